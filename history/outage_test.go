package history

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

func TestBudgetRestartsFromAnOutage(t *testing.T) {
	c := clock{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	os := []outage{{from: 2, until: 12, up: true}}
	q, ok := budget(c, os, 2, 5)
	require.True(t, ok)
	assert.Equal(t, 17, c[q], "a budget ending at 7, inside the outage, runs 5 from the restart at 12")
	q, ok = budget(c, os, 12, 5)
	require.True(t, ok)
	assert.Equal(t, 17, c[q], "one that ends after it keeps its end")
	q, ok = budget(c, []outage{{from: 3, until: 5, up: true}}, 2, 5)
	require.True(t, ok)
	assert.Equal(t, 10, c[q], "a short outage inside the budget: 5 from the restart at 5")
	q, ok = budget(c, []outage{{from: 8, until: 10, up: true}}, 2, 5)
	require.True(t, ok)
	assert.Equal(t, 7, c[q], "an outage after the budget changes nothing")
	q, ok = budget(c, nil, 2, 5)
	require.True(t, ok)
	assert.Equal(t, 7, c[q], "no outage, no change")
	_, ok = budget(c, []outage{{from: 2}}, 2, 5)
	assert.False(t, ok, "an outage that never ends leaves the budget unjudged")
	_, ok = budget(c, []outage{{from: 2, until: 18, up: true}}, 2, 5)
	assert.False(t, ok, "a restarted budget past the horizon is unjudged")
}

// Without a run log the history places a crash's restart where the engine
// does: at once, when its downtime ends, or nowhere for a crash that lands
// while the implementation is down.
func TestRestartsFromTheBundle(t *testing.T) {
	b := &scenarios.Bundle{Meta: scenarios.Meta{Horizon: 30}, Faults: []scenarios.Fault{
		{At: 2, Kind: scenarios.FaultCrash, Down: 5},
		{At: 4, Kind: scenarios.FaultCrash},
		{At: 9, Kind: scenarios.FaultCrash},
		{At: 20, Kind: scenarios.FaultCrash, AfterWrites: 1, Down: 40},
		{At: 25, Kind: scenarios.FaultCrash},
	}}
	r, _ := restartsOf(b, newTimeline(b))
	assert.Equal(t, restart{tick: 7, down: 5, up: true}, r[0])
	assert.Equal(t, restart{}, r[1])
	assert.Equal(t, restart{tick: 9, up: true}, r[2])
	assert.Equal(t, restart{down: 40}, r[3])
	assert.Equal(t, restart{}, r[4])
}

// A downtime's crash and an immediate crash at one tick: the immediate one
// lands first (it needs no write), restarts at once, and the downtime's
// restart is still its own. The history used to take the crashes in the
// bundle's order and pair the downtime with the other crash's restart, so
// without a run log it judged a message due in the downtime as if nothing
// had been down.
func TestADowntimeKeepsItsRestartBesideAnImmediateCrash(t *testing.T) {
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		crashes := []scenarios.Fault{
			{At: 3, Kind: scenarios.FaultCrash, AfterWrites: 2, Down: 10},
			{At: 3, Kind: scenarios.FaultCrash},
		}
		b := &scenarios.Bundle{Meta: scenarios.Meta{Horizon: 40},
			Faults: []scenarios.Fault{crashes[order[0]], crashes[order[1]]}}
		h := Compile(Input{Bundle: b, Files: map[string][]byte{}})
		assert.Equal(t, []outage{{from: 3, until: 13, up: true}}, outagesOf(h.Ops), "bundle order %v", order)
	}
}
