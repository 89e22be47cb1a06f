package checker_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// rules.json judged with a run log: the harness's own bytes and the same
// rules in another layout pass; other rules, however encoded, and a file
// that is no rules list fail L0.harness-files.
func TestRulesFileJudgedWithARunLog(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	var b *scenarios.Bundle
	for _, p := range published {
		if len(p.Bundle.Rules) > 1 && len(p.Bundle.RulesJSON) == 0 && !changesRules(p.Bundle) {
			b = p.Bundle
			break
		}
	}
	require.NotNil(t, b, "a published bundle with rules, no rules text and no rules change")
	res, err := sim.Run(b, func() sandbox.Implementation { return idle{} }, sim.Options{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, scenarios.RulesBytes(b.Rules), res.Files.Files()[sandbox.Rules])

	other := append([]scenarios.Rule(nil), b.Rules...)
	other[0].Admit = !other[0].Admit
	tests := []struct {
		name  string
		rules []byte
		ok    bool
	}{
		{"the harness's bytes", scenarios.RulesBytes(b.Rules), true},
		{"the same rules on one line", bytes.ReplaceAll(scenarios.RulesBytes(b.Rules), []byte("\n"), nil), true},
		{"other rules in the harness's encoding", scenarios.RulesBytes(other), false},
		{"other rules on one line", bytes.ReplaceAll(scenarios.RulesBytes(other), []byte("\n"), nil), false},
		{"the rules reversed", scenarios.RulesBytes(append([]scenarios.Rule{b.Rules[len(b.Rules)-1]}, b.Rules[:len(b.Rules)-1]...)), false},
		{"not a rules list", []byte(`{"rules": []}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range res.Files.Files() {
				files[k] = v
			}
			files[sandbox.Rules] = tt.rules
			v := checker.Check(checker.Input{Bundle: b, Files: files, Log: res.Log})
			found := false
			for _, x := range v.Violations {
				if x.Invariant == "L0.harness-files" && bytes.Contains([]byte(x.Detail), []byte(sandbox.Rules)) {
					found = true
				}
			}
			assert.Equal(t, !tt.ok, found, "%v", v.Violations)
		})
	}
}

func changesRules(b *scenarios.Bundle) bool {
	for _, f := range b.Faults {
		if f.Kind == scenarios.FaultRules {
			return true
		}
	}
	return false
}
