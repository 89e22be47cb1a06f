package fuzz

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

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
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go tool to build amr: " + err.Error())
	}
	runs := 1000
	if s := os.Getenv("AMR_PROCESS_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("AMR_PROCESS_RUNS=%q is not a positive number", s)
		}
		runs = n
	}
	bin := filepath.Join(b.TempDir(), "amr")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/amr").CombinedOutput(); err != nil {
		b.Fatalf("building amr: %v\n%s", err, out)
	}
	impl := play.Impl{Name: "reference", Process: &sim.ProcessSpec{
		Command: []string{bin, "serve-impl", "reference"}, Regime: sim.RegimeStep}}
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
