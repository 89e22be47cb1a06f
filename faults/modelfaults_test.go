package faults

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
)

// Generated timeouts are held a few milliseconds for the most part, so a
// campaign does not wait on them, and some long enough that a client with
// a timeout under a quarter of a second or under two seconds sees its own
// (D183); every generated bundle with them validates.
func TestGeneratedTimeoutsHoldBothWays(t *testing.T) {
	p := Profile{Preset: "test", Conversations: 3, Fleet: 1, Rates: []Rate{{Kind: ModelFaults, PerMille: maxRate}}}
	held := map[string]int{}
	total := 0
	for seed := uint64(0); seed < 300; seed++ {
		b := Generate(rng.Stream(seed, "bundle"), p)
		require.Empty(t, scenarios.Validate(b, nil).Errors(), "seed %d", seed)
		for _, f := range b.Model.Failures {
			if f.Kind != scenarios.ModelTimeout {
				assert.Zero(t, f.HoldMS, "seed %d: only a timeout is held", seed)
				continue
			}
			switch h := f.Hold(); {
			case h >= 1 && h <= 50:
				held["short"]++
			case h == 250:
				held["quarter"]++
			case h == scenarios.DefaultHoldMS:
				held["default"]++
			default:
				t.Fatalf("seed %d: a hold of %d ms is none the generator draws", seed, h)
			}
			total += f.Hold()
		}
	}
	for _, k := range []string{"short", "quarter", "default"} {
		assert.Positive(t, held[k], "%s holds: %v", k, held)
	}
	n := held["short"] + held["quarter"] + held["default"]
	assert.Less(t, total/n, scenarios.DefaultHoldMS/8, "the mean hold, ms: %v", held)
}
