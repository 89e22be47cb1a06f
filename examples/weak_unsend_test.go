package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// weak-unsend's final files are those of an implementation that waits for
// its approvals: only what the harness saw written shows the sends it took
// back.
func TestUnsendIsSeenOnlyThroughTheRunLog(t *testing.T) {
	var b *scenarios.Bundle
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range published {
		if p.Name == "l2-govern" {
			b = p.Bundle
		}
	}
	require.NotNil(t, b)
	im, ok := Lookup("weak-unsend")
	require.True(t, ok)
	res, err := sim.Run(b, im.New, sim.Options{Seed: 1})
	require.NoError(t, err)

	in := checker.Input{Bundle: b, Files: res.Files.Files(), Log: res.Log}
	v := checker.Check(in)
	got := map[string]int{}
	for _, x := range v.Violations {
		got[x.Invariant]++
	}
	rewrites := 0
	for _, r := range res.Log {
		if r.Kind == sandbox.LogRewrite {
			rewrites++
		}
	}
	require.Positive(t, rewrites)
	assert.Equal(t, rewrites, got["L0.append-only"], "one violation per rewrite")
	assert.Positive(t, got["L2.approval-binding"], "each send taken back had no approval")
	hv := history.Check(history.Compile(history.Input{Bundle: b, Files: in.Files, Log: in.Log}))
	g := checker.Guard(v, hv)
	assert.True(t, g.Agree, g.String())

	in.Log = nil
	blind := checker.Check(in)
	assert.Empty(t, blind.Violations, "the final files alone look like the reference's")
}
