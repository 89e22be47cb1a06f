package fuzz

import (
	"testing"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
)

// BenchmarkCampaignRun is one generated run of a campaign against the
// reference on the default preset, as a worker plays it: generate,
// validate, simulate, judge and read coverage. One goroutine plays, so
// runs/s is per core; runs/cpu-s divides by the CPU time the process used
// (garbage collection included), which a busy machine does not distort.
func BenchmarkCampaignRun(b *testing.B) {
	ref := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	b.ReportAllocs()
	cpu := cpuSeconds()
	n := 0
	for i := 0; b.Loop(); i++ {
		r, err := PlayGenerated(1, i, faults.DefaultPreset, ref, 0)
		if err != nil {
			b.Fatal(err)
		}
		if r.Failed() {
			b.Fatalf("run %d: the reference failed: %v", i, r.Invariants())
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "runs/s")
	if used := cpuSeconds() - cpu; used > 0 {
		b.ReportMetric(float64(n)/used, "runs/cpu-s")
	}
}
