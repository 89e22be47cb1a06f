package fuzz

import (
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// tornStateBundle is l3-fleet-concurrent with a crash that tears the first
// state.json of tick 0 (D157): every implementation here writes one then.
func tornStateBundle(t *testing.T) *scenarios.Bundle {
	b := publishedBundle(t, "l3-fleet-concurrent")
	b.Faults = append(b.Faults, scenarios.Fault{At: 0, Kind: scenarios.FaultCrash, AfterWrites: 1,
		WritesTo: scenarios.StateFile, Torn: true})
	b.Normalize()
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	return b
}

// playTornState plays the bundle and holds that the crash tore state.json;
// it returns the invariants the run failed.
func playTornState(t *testing.T, b *scenarios.Bundle, impl play.Impl) []string {
	t.Helper()
	seed := uint64(1)
	r, err := Play(b, impl, &seed, 0)
	require.NoError(t, err)
	torn := false
	for _, rec := range r.Result.Log {
		torn = torn || rec.Kind == sandbox.LogCrash && rec.Torn == sandbox.State && rec.WritesTo == scenarios.StateFile
	}
	require.True(t, torn, "%s: the crash tore state.json", impl.Name)
	var inv []string
	for _, v := range r.Verdict().Violations {
		inv = append(inv, v.Invariant)
	}
	return inv
}

// A torn state.json is caught in an implementation that trusts it:
// weak-stale-state writes state.json only while it finds none, so after
// the torn crash it keeps the half file and fails L3.state-schema; the
// reference rewrites the state.json it finds unlike its own and is clean.
// In process and as a traced process alike.
func TestATornStateCatchesAnImplementationThatTrustsIt(t *testing.T) {
	b := tornStateBundle(t)
	impls := map[string]func(string) play.Impl{"in process": func(n string) play.Impl { return builtin(t, n) }}
	if runtime.GOOS == "linux" {
		impls["process"] = builtinProcess
	}
	for how, impl := range impls {
		t.Run(how, func(t *testing.T) {
			assert.Empty(t, playTornState(t, b, impl(examples.ReferenceName)), "the reference")
			weak := playTornState(t, b, impl("weak-stale-state"))
			assert.True(t, slices.Contains(weak, "L3.state-schema"), "weak-stale-state: %v", weak)
		})
	}
}

// The other direction of the kind: a default campaign in process whose
// generated torn crashes aimed at state.json tear it leaves the reference
// clean (the process campaigns hold it as a process).
func TestATornStateCrashLeavesTheReferenceClean(t *testing.T) {
	cfg := Config{Impl: builtin(t, examples.ReferenceName), Seed: 1, Runs: 60, KeepGoing: true}
	sum := runCampaign(t, cfg)
	require.Zero(t, sum.FailedRuns)
	require.Zero(t, sum.InvalidRuns)
	assert.Positive(t, sum.Coverage.Hits(CTornState))
}
