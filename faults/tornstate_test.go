package faults

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
)

// Every crash aimed at state.json is torn_write's own: torn, after the
// first new state.json of a delivery's tick, at most one per bundle, and
// none unless the kind is on (D158).
func TestTornStateCrashesLandAtADeliveryTick(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, b := drawGenerated(t)
		deliveries := map[int]bool{}
		for _, m := range b.Inbox {
			deliveries[m.At] = true
		}
		n := 0
		for _, f := range b.Faults {
			if f.WritesTo != scenarios.StateFile {
				continue
			}
			n++
			require.True(t, p.On(TornWrite), "a crash aimed at state.json with %s off", TornWrite)
			require.Equal(t, scenarios.FaultCrash, f.Kind)
			require.True(t, f.Torn)
			require.Equal(t, 1, f.AfterWrites)
			require.Zero(t, f.Down)
			require.True(t, deliveries[f.At], "no delivery at tick %d", f.At)
		}
		require.LessOrEqual(t, n, 1)
		require.Empty(t, scenarios.Validate(b, nil).Errors())
	})
}

// With the kind on at its highest rate most bundles get a torn crash
// aimed at state.json, and with it off none does: the kind does what it
// says.
func TestTornStateCrashesAreDrawnWhenOn(t *testing.T) {
	on := Profile{Preset: "test", Conversations: 3, Fleet: 1, Rates: []Rate{{Kind: TornWrite, PerMille: maxRate}}}
	off := Profile{Preset: "test", Conversations: 3, Fleet: 1, Rates: []Rate{{Kind: CrashWrite, PerMille: maxRate}}}
	count := func(p Profile) int {
		with := 0
		for seed := range uint64(100) {
			for _, f := range Generate(rng.Stream(seed, "bundle"), p).Faults {
				if f.WritesTo == scenarios.StateFile {
					with++
					break
				}
			}
		}
		return with
	}
	require.Greater(t, count(on), 80, "of 100 bundles with %s at %d‰", TornWrite, maxRate)
	require.Zero(t, count(off), "with %s off", TornWrite)
}
