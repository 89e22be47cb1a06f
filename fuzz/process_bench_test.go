package fuzz

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim"
)

// builtReference builds amr and returns the reference run as a process in
// the step regime (`amr serve-impl reference`): the binary a user runs,
// whose start is part of what a process run costs.
func builtReference(b *testing.B) play.Impl {
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
//	go test ./fuzz -run '^$' -bench 'ProcessRun$' -benchtime 100x -cpuprofile cpu.prof
func BenchmarkProcessRun(b *testing.B) {
	impl := builtReference(b)
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
