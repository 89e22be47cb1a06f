package shrink_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/shrink"
)

// A shrunk bundle keeps a timeout's hold (D183), so it replays the failure
// it was shrunk from: the oracle here asks only for a timeout, and the hold
// comes out as it went in.
func TestShrinkKeepsATimeoutsHold(t *testing.T) {
	b := published(t, "l0-model-failures")
	held := false
	for i, f := range b.Model.Failures {
		if f.Kind == scenarios.ModelTimeout {
			b.Model.Failures[i].HoldMS, held = 7, true
		}
	}
	require.True(t, held, "the scenario has a timeout")
	hasTimeout := func(c *scenarios.Bundle) bool {
		for _, f := range c.Model.Failures {
			if f.Kind == scenarios.ModelTimeout {
				return true
			}
		}
		return false
	}
	res, err := shrink.Shrink(b, hasTimeout, shrink.Options{Plays: 200})
	require.NoError(t, err)
	var holds []int
	for _, f := range res.Bundle.Model.Failures {
		if f.Kind == scenarios.ModelTimeout {
			holds = append(holds, f.HoldMS)
		}
	}
	assert.Equal(t, []int{7}, holds)
	assert.Less(t, res.Stats.EventsAfter, res.Stats.EventsBefore, "it shrank")
}
