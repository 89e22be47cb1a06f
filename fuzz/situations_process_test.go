package fuzz

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim"
)

// BenchmarkProcessCampaignReachesEveryCounter is the process variant of
// TestDefaultCampaignReachesEveryCounter: the reference, built as amr and run
// as an OS process in the step regime (`amr serve-impl reference`), under a
// default campaign. It is a benchmark because a process run costs about a
// hundred in-process ones. It fails when a counter is missed or the
// reference fails a run, and reports runs per second and the counters
// missed:
//
//	AMR_PROCESS_RUNS=1000 go test ./fuzz -run '^$' -bench ProcessCampaignReachesEveryCounter -benchtime 1x
func BenchmarkProcessCampaignReachesEveryCounter(b *testing.B) {
	runs := 1000
	if s := os.Getenv("AMR_PROCESS_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("AMR_PROCESS_RUNS=%q is not a positive number", s)
		}
		runs = n
	}
	impl := processReference(b)
	for b.Loop() {
		sum, err := Campaign(context.Background(), Config{Impl: impl, Seed: 1, Runs: runs, KeepGoing: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range sum.Coverage.Counts() {
			b.Logf("%-40s %d", c.Name, c.Runs)
		}
		if sum.FailedRuns > 0 || sum.InvalidRuns > 0 {
			b.Errorf("the reference as a process failed %d runs, %d invalid", sum.FailedRuns, sum.InvalidRuns)
		}
		missing := sum.Coverage.Missing()
		b.ReportMetric(float64(len(missing)), "missed-counters")
		b.ReportMetric(float64(sum.Runs)/sum.Elapsed.Seconds(), "runs/s")
		if len(missing) > 0 {
			b.Errorf("%d process runs missed %v", sum.Runs, missing)
		}
	}
}

// processReference builds amr and returns the reference run as a process
// in the step regime (`amr serve-impl reference`).
func processReference(b *testing.B) play.Impl {
	b.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go tool to build amr: " + err.Error())
	}
	bin := filepath.Join(b.TempDir(), "amr")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/amr").CombinedOutput(); err != nil {
		b.Fatalf("building amr: %v\n%s", err, out)
	}
	return play.Impl{Name: "reference", Process: &sim.ProcessSpec{
		Command: []string{bin, "serve-impl", "reference"}, Regime: sim.RegimeStep}}
}

// BenchmarkProcessRun is one generated run of a default campaign against
// the reference as a process in the step regime, played by one goroutine.
// It splits the CPU a run costs between the harness (this process:
// engine, driver, stub, judging) and the implementation (the instances it
// started and reaped), so a change to either side shows on its own:
//
//	go test ./fuzz -run '^$' -bench ProcessRun -benchtime 200x -cpuprofile cpu.prof
func BenchmarkProcessRun(b *testing.B) {
	impl := processReference(b)
	self, children := cpuSeconds(), childCPUSeconds()
	n := 0
	for i := 0; b.Loop(); i++ {
		r, err := PlayGenerated(1, i, faults.DefaultPreset, impl, 0)
		if err != nil {
			b.Fatal(err)
		}
		if r.Failed() {
			b.Fatalf("run %d: the reference as a process failed: %v", i, r.Invariants())
		}
		n++
	}
	harness, impls := cpuSeconds()-self, childCPUSeconds()-children
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(1000*harness/float64(n), "harness-ms/run")
	b.ReportMetric(1000*impls/float64(n), "impl-ms/run")
	if harness+impls > 0 {
		b.ReportMetric(float64(n)/(harness+impls), "runs/cpu-s")
	}
}
