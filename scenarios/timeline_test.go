package scenarios_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

func jump(at, by int) scenarios.Fault {
	return scenarios.Fault{Kind: scenarios.FaultTickJump, At: at, By: by}
}

func withClock(horizon int, faults ...scenarios.Fault) *scenarios.Bundle {
	return &scenarios.Bundle{Meta: scenarios.Meta{Horizon: horizon}, Faults: faults}
}

func TestTimelineOfEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *scenarios.Bundle
		want scenarios.Timeline
	}{
		{"no jumps", withClock(4), scenarios.Timeline{0, 1, 2, 3, 4}},
		{"horizon 0", withClock(0), scenarios.Timeline{0}},
		{"negative horizon reads as 0", withClock(-3), scenarios.Timeline{0}},
		{"a jump by 2", withClock(6, jump(1, 2)), scenarios.Timeline{0, 1, 3, 4, 5, 6}},
		{"a jump at tick 0", withClock(4, jump(0, 3)), scenarios.Timeline{0, 3, 4}},
		{"a jump by 1 is no jump", withClock(3, jump(1, 1)), scenarios.Timeline{0, 1, 2, 3}},
		{"a jump by 0 is no jump", withClock(3, jump(1, 0)), scenarios.Timeline{0, 1, 2, 3}},
		{"a negative jump is no jump", withClock(3, jump(1, -5)), scenarios.Timeline{0, 1, 2, 3}},
		{"a jump landing on the horizon", withClock(6, jump(1, 5)), scenarios.Timeline{0, 1, 6}},
		{"a jump past the horizon ends the run", withClock(6, jump(2, 5)), scenarios.Timeline{0, 1, 2}},
		{"a jump that would overflow ends the run", withClock(6, jump(2, math.MaxInt)), scenarios.Timeline{0, 1, 2}},
		{"a jump from the horizon ends nothing", withClock(3, jump(3, 4)), scenarios.Timeline{0, 1, 2, 3}},
		{"two jumps at one tick: the last counts", withClock(8, jump(1, 2), jump(1, 4)), scenarios.Timeline{0, 1, 5, 6, 7, 8}},
		{"a jump inside another is never taken", withClock(8, jump(1, 4), jump(3, 2)), scenarios.Timeline{0, 1, 5, 6, 7, 8}},
		{"a jump where another lands is taken", withClock(8, jump(1, 2), jump(3, 3)), scenarios.Timeline{0, 1, 3, 6, 7, 8}},
		{"jumps off the clock are ignored", withClock(3, jump(-1, 2), jump(9, 2)), scenarios.Timeline{0, 1, 2, 3}},
		{"other faults move no tick", withClock(2, scenarios.Fault{Kind: scenarios.FaultCrash, At: 1, By: 5}), scenarios.Timeline{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, scenarios.TimelineOf(tc.b))
		})
	}
}

func TestTimelineOfNilBundle(t *testing.T) {
	assert.Nil(t, scenarios.TimelineOf(nil))
}

// A hostile horizon is cut at the limit, so no bundle makes a timeline
// longer than MaxHorizon+1 ticks.
func TestTimelineOfHorizonPastTheLimit(t *testing.T) {
	for _, h := range []int{scenarios.MaxHorizon, scenarios.MaxHorizon + 1, math.MaxInt} {
		tl := scenarios.TimelineOf(withClock(h, jump(scenarios.MaxHorizon-1, math.MaxInt)))
		require.Len(t, tl, scenarios.MaxHorizon)
		assert.Equal(t, scenarios.MaxHorizon-1, tl[len(tl)-1])
		tl = scenarios.TimelineOf(withClock(h))
		require.Len(t, tl, scenarios.MaxHorizon+1)
		assert.Equal(t, scenarios.MaxHorizon, tl[len(tl)-1])
	}
}
