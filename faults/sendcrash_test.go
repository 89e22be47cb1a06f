package faults

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
)

// Every crash after a send is drawn where a send is likely: at the tick of
// an approval of a real draft, k no more than such approvals there, at most
// maxSendCrashes of them, and none unless the kind is on. The bundle stays
// valid (the property above holds it so for every profile).
func TestSendCrashesLandAtApprovalsThatMaySend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, b := drawGenerated(t)
		sends := map[int]int{}
		for _, a := range b.Approvals {
			if a.Decision == scenarios.DecisionApprove && a.Forge == "" && !a.Stale() {
				sends[a.At]++
			}
		}
		n := 0
		for _, f := range b.Faults {
			if f.WritesTo == "" || f.WritesTo == scenarios.StateFile {
				continue // not aimed at a send; tornstate_test.go holds the state.json ones
			}
			n++
			require.True(t, p.On(CrashSend), "a crash after a send with %s off", CrashSend)
			require.Equal(t, scenarios.FaultCrash, f.Kind)
			require.Equal(t, scenarios.SendLog, f.WritesTo)
			require.Positive(t, sends[f.At], "no approval that may send at tick %d", f.At)
			require.GreaterOrEqual(t, f.AfterWrites, 1)
			require.LessOrEqual(t, f.AfterWrites, sends[f.At])
			require.Zero(t, f.Down, "a downtime is drawn by its own kind")
		}
		require.LessOrEqual(t, n, maxSendCrashes)
		require.Empty(t, scenarios.Validate(b, nil).Errors())
	})
}

// With the kind on at its highest rate, a bundle with an approval that may
// send gets a crash after a send most of the time: the kind does what it
// says, not in name only.
func TestSendCrashesAreDrawnWhenOn(t *testing.T) {
	p := Profile{Preset: "test", Conversations: 3, Fleet: 1, Rates: []Rate{{Kind: CrashSend, PerMille: maxRate}}}
	with, eligible := 0, 0
	for seed := range uint64(100) {
		b := Generate(rng.Stream(seed, "bundle"), p)
		may := false
		for _, a := range b.Approvals {
			may = may || a.Decision == scenarios.DecisionApprove && a.Forge == "" && !a.Stale()
		}
		if !may {
			continue
		}
		eligible++
		for _, f := range b.Faults {
			if f.WritesTo == scenarios.SendLog {
				with++
				break
			}
		}
	}
	require.Positive(t, eligible)
	require.Greater(t, with*10, eligible*7, "%d of %d bundles with an approval got a crash after a send", with, eligible)
}
