package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/shrink"
)

func publishedBundle(t *testing.T, name string) *scenarios.Bundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		if p.Name == name {
			return p.Bundle.Clone()
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

func TestShrinkCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "shrunk")
	stdout, stderr, code := execAMR(t, "shrink", "../../scenarios/l2-govern", "--impl", "weak-send-without-approval",
		"--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "shrunk l2-govern: weak-send-without-approval violates L2.approval-binding")
	assert.Contains(t, stdout, "replay: amr replay "+out+" --impl weak-send-without-approval")
	b, _, err := scenarios.LoadDir(out)
	require.NoError(t, err)
	assert.Equal(t, "shrunk", b.Meta.Origin.Kind)
	assert.Less(t, len(shrink.Events(b)), 21)

	// --json carries the same bundle and the statistics.
	stdout, stderr, code = execAMR(t, "shrink", "../../scenarios/l2-govern", "--impl", "weak-send-without-approval", "--json")
	require.Equal(t, exitOK, code, stderr)
	var doc shrinkJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, "L2.approval-binding", doc.Invariant)
	assert.Equal(t, 21, doc.Stats.EventsBefore)
	assert.Equal(t, len(shrink.Events(b)), doc.Stats.EventsAfter)
	assert.Equal(t, "reference", doc.Control)
	assert.Equal(t, b.Meta.Origin.ShrunkHash, doc.ShrunkHash, "deterministic")

	// A seed is passed on to the replay command; a generated original's
	// campaign seed and run are kept.
	gen := publishedBundle(t, "l0-respond")
	gen.Meta.Origin = &scenarios.Origin{Kind: "generated", CampaignSeed: "18446744073709551615", Run: "3"}
	genPath := filepath.Join(dir, "generated.json")
	require.NoError(t, scenarios.SaveJSON(gen, genPath))
	stdout, stderr, code = execAMR(t, "shrink", genPath, "--impl", "weak-no-send", "--seed", "18446744073709551615", "--json")
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, "18446744073709551615", doc.Bundle.Meta.Origin.CampaignSeed)
	assert.Equal(t, "3", doc.Bundle.Meta.Origin.Run)
	assert.Equal(t, "shrunk", doc.Bundle.Meta.Origin.Kind)
	assert.Equal(t, "BUNDLE", strings.Fields(doc.Replay)[2])
	assert.Contains(t, doc.Replay, "--seed 18446744073709551615")
}

func TestShrinkCommandRefuses(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format": 1}`), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no impl", []string{"../../scenarios/l0-respond"}, "needs --impl"},
		{"unknown impl", []string{"../../scenarios/l0-respond", "--impl", "nobody"}, "unknown implementation"},
		{"unknown invariant", []string{"../../scenarios/l0-respond", "--impl", "weak-no-send", "--invariant", "L9.nothing"}, "unknown invariant"},
		{"passing bundle", []string{"../../scenarios/l0-respond", "--impl", "reference"}, "nothing to shrink"},
		{"another invariant", []string{"../../scenarios/l0-respond", "--impl", "weak-no-send", "--invariant", "L0.outbox-declared"}, "does not violate L0.outbox-declared"},
		{"bad bundle", []string{bad, "--impl", "weak-no-send"}, "bad bundle input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := execAMR(t, append([]string{"shrink"}, tc.args...)...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}
