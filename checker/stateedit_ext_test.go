package checker_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// fullCopies rewrites a run log the way older harnesses wrote it: every
// changed state.json in full on its tick_end record.
func fullCopies(t *testing.T, log []sandbox.LogRecord) []sandbox.LogRecord {
	t.Helper()
	var replay sandbox.StateReplay
	out := make([]sandbox.LogRecord, len(log))
	for i, r := range log {
		version, changed, err := replay.Next(r)
		require.NoError(t, err)
		if changed {
			r.State, r.StateEdit = json.RawMessage(version), nil
		}
		out[i] = r
	}
	return out
}

// A run log that records state.json as edits is judged exactly as one with
// full copies: state consistency is judged on the same versions, so the
// implementation whose state goes stale fails L3.state-consistency either
// way, and the reference passes either way.
func TestStateEditsJudgeAsFullCopies(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range published {
		for _, name := range []string{"reference", "weak-stale-state"} {
			im, ok := examples.Lookup(name)
			require.True(t, ok)
			res, err := sim.Run(p.Bundle, im.New, sim.Options{Seed: 1, Impl: name})
			require.NoError(t, err)
			edits := 0
			for _, r := range res.Log {
				if r.StateEdit != nil {
					edits++
				}
			}
			require.NotZero(t, edits, "%s on %s logs no state edit", name, p.Name)
			files := res.Files.Files()
			got := checker.Check(checker.Input{Bundle: p.Bundle, Files: files, Log: res.Log})
			want := checker.Check(checker.Input{Bundle: p.Bundle, Files: files, Log: fullCopies(t, res.Log)})
			assert.Equal(t, want, got, "%s on %s", name, p.Name)
			stale := false
			for _, v := range got.Violations {
				stale = stale || v.Invariant == "L3.state-consistency"
			}
			if name == "reference" {
				assert.False(t, stale, "reference on %s", p.Name)
			} else if p.Name == "l3-fleet-concurrent-redelivery" {
				assert.True(t, stale, "weak-stale-state on %s passes L3.state-consistency", p.Name)
			}
		}
	}
}

// An edit that does not rebuild its version is never read as a state: the
// version it would have given is a schema problem, not a pass.
func TestABrokenStateEditIsNoState(t *testing.T) {
	p, err := scenarios.Published()
	require.NoError(t, err)
	var b *scenarios.Bundle
	for _, x := range p {
		if x.Name == "l3-fleet-concurrent" {
			b = x.Bundle
		}
	}
	require.NotNil(t, b)
	im, _ := examples.Lookup("reference")
	res, err := sim.Run(b, im.New, sim.Options{Seed: 1})
	require.NoError(t, err)
	log := append([]sandbox.LogRecord(nil), res.Log...)
	for i, r := range log {
		if r.StateEdit != nil {
			broken := *r.StateEdit
			broken.Hash = "00"
			log[i].StateEdit = &broken
			break
		}
	}
	v := checker.Check(checker.Input{Bundle: b, Files: res.Files.Files(), Log: log})
	found := false
	for _, x := range v.Violations {
		found = found || x.Invariant == "L3.state-schema"
	}
	assert.True(t, found, "a broken edit passed: %+v", v.Violations)
}
