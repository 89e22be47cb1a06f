package shrink_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/shrink"
)

// needsTwo holds while a forged approval and a crash are both left: delta
// debugging has to try many candidates before it finds the pair.
func needsTwo(b *scenarios.Bundle) bool {
	forged, crash := false, false
	for _, a := range b.Approvals {
		forged = forged || a.Forge != ""
	}
	for _, f := range b.Faults {
		crash = crash || f.Kind == scenarios.FaultCrash
	}
	return forged && crash
}

// A shrink's result and statistics do not depend on how many workers judge
// its candidates.
func TestShrinkResultIsTheSameForAnyNumberOfWorkers(t *testing.T) {
	in := published(t, "l2-govern")
	require.True(t, needsTwo(in))
	var want *shrink.Result
	for _, workers := range []int{1, 2, 4, 7} {
		res, err := shrink.Shrink(in, needsTwo, shrink.Options{Plays: 10_000, Workers: workers})
		require.NoError(t, err)
		res.Stats.Elapsed = 0
		if want == nil {
			want = res
			continue
		}
		assert.Equal(t, jsonOf(t, want.Bundle), jsonOf(t, res.Bundle), "workers %d", workers)
		assert.Equal(t, want.Stats, res.Stats, "workers %d", workers)
	}
	assert.False(t, want.Stats.BudgetHit)
	assert.Equal(t, 2, want.Stats.EventsAfter-len(want.Bundle.Inbox))
}

// A play budget stops a shrink at the same candidate whatever the machine:
// a slow oracle changes nothing.
func TestShrinkPlayBudgetIsDeterministic(t *testing.T) {
	in := published(t, "l2-govern")
	slow := func(b *scenarios.Bundle) bool { time.Sleep(time.Millisecond); return needsTwo(b) }
	var first *shrink.Result
	for _, oracle := range []shrink.Oracle{needsTwo, slow} {
		for _, workers := range []int{1, 3} {
			res, err := shrink.Shrink(in, oracle, shrink.Options{Plays: 15, Workers: workers})
			require.NoError(t, err)
			assert.True(t, res.Stats.BudgetHit)
			assert.Equal(t, 15, res.Stats.OracleCalls)
			if first == nil {
				first = res
				continue
			}
			assert.Equal(t, jsonOf(t, first.Bundle), jsonOf(t, res.Bundle))
		}
	}
	assert.True(t, needsTwo(first.Bundle), "a stopped shrink still returns a failing bundle")
}
