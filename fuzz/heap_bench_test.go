package fuzz

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
)

// heapRuns are the generated runs of campaign 7 that allocated the most of
// the 13,600 of its first 10^5 runs measured (runs 0-6,999 and
// 50,000-56,599), 11.0, 7.1 and 6.9 MB against a mean of 1.1 MB at
// fe6e0d2, and run 0, an ordinary one.
var heapRuns = []int{514, 56357, 6884, 0}

// BenchmarkRunPeakLive is the most live heap one generated run holds while
// it is played and judged: what a campaign's memory grows with when runs
// hold more, as opposed to the garbage they make between collections
// (BenchmarkCampaignRun's B/op). The collector runs at GOGC=1 for the
// benchmark, so it marks after every few kilobytes, and the live heap it
// marked each time is sampled; peak-live-B is the largest of those above
// the heap left after a forced collection before the run, over heapRuns.
// Objects allocated while a collection marks count as live, so the figure
// is an upper bound.
func BenchmarkRunPeakLive(b *testing.B) {
	ref := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	var peak uint64
	for b.Loop() {
		for _, i := range heapRuns {
			runtime.GC()
			base := markedLive()
			s := sampleLive()
			r, err := PlayGenerated(7, i, faults.DefaultPreset, ref, 0)
			top := s.stop()
			if err != nil {
				b.Fatal(err)
			}
			if r.Failed() {
				b.Fatalf("run %d: the reference failed: %v", i, r.Invariants())
			}
			if top > base && top-base > peak {
				peak = top - base
			}
		}
	}
	b.ReportMetric(float64(peak), "peak-live-B")
}

// markedLive is the heap the last collection marked live.
func markedLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// liveSampler records the largest marked live heap over the collections
// that end while it runs: a finalizer runs after each collection that
// found its object unreachable, reads the figure and sets up the next.
type liveSampler struct {
	mu      sync.Mutex
	top     uint64
	stopped bool
}

func sampleLive() *liveSampler {
	s := &liveSampler{}
	s.arm()
	return s
}

func (s *liveSampler) arm() {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.stopped {
			return
		}
		s.top = max(s.top, markedLive())
		s.arm()
	})
}

// stop ends the sampling, counting the live heap the run leaves too.
func (s *liveSampler) stop() uint64 {
	runtime.GC()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	return max(s.top, markedLive())
}
