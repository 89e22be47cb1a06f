package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The implementation is given the bundle's rules.json bytes unchanged, at the
// start and at each rules change, and the run log records the hash of what
// was written: the initial bytes on the start record, each change's on its
// rules record.
func TestRulesBytesAreWrittenUnchanged(t *testing.T) {
	initial := `[{"when":{"subject_contains":"s"},"admit":true,"id":"all"}]`
	later := "[\n\t{\"id\": \"none\", \"admit\": false}\n]\n"
	plain := []scenarios.Rule{{ID: "every", Admit: true}}
	subject := "s"
	b := toyBundle()
	b.Rules = []scenarios.Rule{{ID: "all", Admit: true, When: scenarios.Conditions{SubjectContains: &subject}}}
	b.RulesJSON = initial
	b.Faults = []scenarios.Fault{
		{At: 4, Kind: scenarios.FaultRules, Rules: []scenarios.Rule{{ID: "none"}}, RulesJSON: later},
		{At: 8, Kind: scenarios.FaultRules, Rules: plain},
	}
	require.Empty(t, scenarios.Validate(b, nil).Errors())

	seen := map[int]string{}
	f := func() sandbox.Implementation {
		return stepFunc(func(env *sandbox.Env) error {
			tick, err := sandbox.ReadClock(env.Files)
			if err != nil {
				return err
			}
			data, err := env.Files.Read(sandbox.Rules)
			seen[tick] = string(data)
			return err
		})
	}
	res := run(t, b, f, 1)
	for tick, want := range map[int]string{0: initial, 3: initial, 4: later, 7: later, 8: string(scenarios.RulesBytes(plain)), 12: string(scenarios.RulesBytes(plain))} {
		assert.Equal(t, want, seen[tick], "rules.json at tick %d", tick)
	}

	start := kinds(res, sandbox.LogStart)
	require.Len(t, start, 1)
	assert.Equal(t, scenarios.RulesHash([]byte(initial)), start[0].RulesHash)
	changes := kinds(res, sandbox.LogRules)
	require.Len(t, changes, 2)
	assert.Equal(t, scenarios.RulesHash([]byte(later)), changes[0].RulesHash)
	assert.Equal(t, scenarios.RulesHash(scenarios.RulesBytes(plain)), changes[1].RulesHash)
}

// A bundle without a rules text gets the default encoding, as before.
func TestRulesBytesDefaultToTheEncoding(t *testing.T) {
	b := toyBundle()
	b.Rules = []scenarios.Rule{{ID: "all", Admit: true}}
	var first []byte
	f := func() sandbox.Implementation {
		return stepFunc(func(env *sandbox.Env) error {
			if first == nil {
				first, _ = env.Files.Read(sandbox.Rules)
			}
			return nil
		})
	}
	res := run(t, b, f, 1)
	assert.Equal(t, string(scenarios.RulesBytes(b.Rules)), string(first))
	assert.Equal(t, scenarios.RulesHash(scenarios.RulesBytes(b.Rules)), kinds(res, sandbox.LogStart)[0].RulesHash)
}
