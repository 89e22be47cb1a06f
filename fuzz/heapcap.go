package fuzz

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// A campaign's heap sits at its collector's goal; what raised a long
// campaign's peak was the heap piled up while one collection was still
// marking, its mark stretched on a loaded machine while the workers went on
// allocating (D161). At GOGC=400 the pacer paces the workers' assists against
// a goal it may extend fivefold, so nothing but the mark's end stops the pile.
// CapHeap watches for that pile and, while it lasts, lowers GOGC: the pacer
// then finds the heap past its goal and makes every allocating goroutine do
// marking work in proportion, so the mark finishes on the workers' own
// threads. The work is the mark's own, done sooner and by other threads,
// and the collections after it are paced as before.

// capLowPercent is the GOGC a piled-up collection is finished under: low
// enough that the heap of the moment is past the goal it gives.
const capLowPercent = 10

// capSample is what the cap reads of the runtime.
type capSample struct {
	objects uint64 // heap bytes in objects, live or not yet swept
	goal    uint64 // the collector's heap goal
	cycles  uint64 // collections completed
	percent int64  // GOGC
}

// capper decides, one sample at a time, when to lower GOGC and when to put
// it back.
type capper struct {
	lowered bool
	cycle   uint64 // the collection under way when lowered
	saved   int    // the GOGC to put back
}

type capAction int

const (
	capNone capAction = iota
	capLower
	capRestore
)

// step returns what to do about the sample. The heap is piled up when its
// objects pass the goal by more than an eighth: a collection that marks in
// time ends within a megabyte or two of a 13 MB goal (docs/performance.md).
// It is put back as soon as that collection has ended. A GOGC that is off
// or already low is left alone.
func (c *capper) step(s capSample) capAction {
	if c.lowered {
		if s.cycles != c.cycle {
			return capRestore
		}
		return capNone
	}
	if s.percent <= capLowPercent || s.goal == 0 || s.objects <= s.goal+s.goal/8 {
		return capNone
	}
	return capLower
}

// CapHeap watches the heap every interval until stop is called, finishing
// a piled-up collection under a low GOGC as described above. stop puts
// back the GOGC the cap found, if it had lowered it, and waits for the
// watcher to end; call it before anything else resets GOGC.
func CapHeap(every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		watchHeap(done, t.C, readCapSample(), debug.SetGCPercent)
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// watchHeap runs the capper on a sample at every tick until done, setting
// GOGC with set (which returns the value it replaced).
func watchHeap(done <-chan struct{}, tick <-chan time.Time, read func() capSample, set func(int) int) {
	c := &capper{}
	for {
		select {
		case <-done:
			if c.lowered {
				set(c.saved)
			}
			return
		case <-tick:
		}
		s := read()
		switch c.step(s) {
		case capLower:
			c.lowered, c.cycle = true, s.cycles
			c.saved = set(capLowPercent)
		case capRestore:
			c.lowered = false
			set(c.saved)
		}
	}
}

// readCapSample reads the runtime's figures the cap needs.
func readCapSample() func() capSample {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/gc/gogc:percent"},
	}
	return func() capSample {
		metrics.Read(samples)
		return capSample{objects: samples[0].Value.Uint64(), goal: samples[1].Value.Uint64(),
			cycles: samples[2].Value.Uint64(), percent: int64(samples[3].Value.Uint64())}
	}
}
