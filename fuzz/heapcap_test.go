package fuzz

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mb = 1 << 20

// A collection that ends near its goal is left alone; one whose heap piles
// past the goal by more than an eighth is finished under the low GOGC, which
// is put back once that collection has ended, and not before.
func TestCapperLowersOnlyForAPileAndRestoresAfterItsCollection(t *testing.T) {
	c := &capper{}
	assert.Equal(t, capNone, c.step(capSample{objects: 12 * mb, goal: 13 * mb, cycles: 5, percent: 400}), "under the goal")
	assert.Equal(t, capNone, c.step(capSample{objects: 14 * mb, goal: 13 * mb, cycles: 5, percent: 400}), "past it by less than an eighth")
	assert.Equal(t, capLower, c.step(capSample{objects: 15 * mb, goal: 13 * mb, cycles: 5, percent: 400}), "piled up")

	c = &capper{lowered: true, cycle: 5, saved: 400}
	assert.Equal(t, capNone, c.step(capSample{objects: 16 * mb, goal: 2 * mb, cycles: 5, percent: capLowPercent}), "the collection is still marking")
	assert.Equal(t, capRestore, c.step(capSample{objects: 3 * mb, goal: 2 * mb, cycles: 6, percent: capLowPercent}), "it ended")
}

// GOGC off, or already at or below the low value, is the user's or already
// tight: the cap never touches it, nor a goal not yet known.
func TestCapperLeavesGOGCOffOrLowAlone(t *testing.T) {
	c := &capper{}
	assert.Equal(t, capNone, c.step(capSample{objects: 50 * mb, goal: 13 * mb, percent: -1}))
	assert.Equal(t, capNone, c.step(capSample{objects: 50 * mb, goal: 13 * mb, percent: capLowPercent}))
	assert.Equal(t, capNone, c.step(capSample{objects: 50 * mb, goal: 0, percent: 400}))
}

// The watcher sets GOGC low at a pile and back when the collection ends, and
// puts it back when stopped while lowered; a quiet heap sees no change.
func TestWatchHeapSetsAndRestoresGOGC(t *testing.T) {
	run := func(samples []capSample, stopAfter int) []int {
		percent := 400
		var set []int
		setter := func(p int) int {
			set = append(set, p)
			old := percent
			percent = p
			return old
		}
		done, tick := make(chan struct{}), make(chan time.Time)
		finished := make(chan struct{})
		i := 0
		go func() {
			watchHeap(done, tick, func() capSample { s := samples[i]; s.percent = int64(percent); i++; return s }, setter)
			close(finished)
		}()
		for range stopAfter {
			tick <- time.Time{}
		}
		close(done)
		<-finished
		return set
	}
	quiet := []capSample{{objects: 10 * mb, goal: 13 * mb, cycles: 1}, {objects: 12 * mb, goal: 13 * mb, cycles: 1}}
	assert.Empty(t, run(quiet, 2))

	pile := []capSample{
		{objects: 16 * mb, goal: 13 * mb, cycles: 1},
		{objects: 17 * mb, goal: 3 * mb, cycles: 1},
		{objects: 4 * mb, goal: 13 * mb, cycles: 2},
	}
	assert.Equal(t, []int{capLowPercent, 400}, run(pile, 3), "lowered at the pile, back after the collection")
	assert.Equal(t, []int{capLowPercent, 400}, run(pile, 2), "stopped mid-collection: put back on stop")
}

// The real watcher ends on stop and leaves GOGC as it found it.
func TestCapHeapStopLeavesGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	stop := CapHeap(time.Millisecond)
	buf := make([][]byte, 0, 64)
	for range 2000 {
		buf = append(buf[:len(buf)%64], make([]byte, 4096))
	}
	stop()
	require.Equal(t, 400, debug.SetGCPercent(400))
}
