package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim"
)

// The process tests run this test binary as the implementation:
// referenceProcess starts it with -test.run selecting TestFuzzHelperProcess
// and this variable set, and it serves the reference as `amr serve-impl
// reference` does, without building amr.
const fuzzHelperEnv = "AMR_FUZZ_HELPER"

// TestFuzzHelperProcess is not a test: it is the implementation process of
// the process campaigns here, and does nothing in a normal test run.
func TestFuzzHelperProcess(t *testing.T) {
	name := os.Getenv(fuzzHelperEnv)
	if name == "" {
		return
	}
	im, ok := examples.Lookup(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "%s=%s: no such built-in implementation\n", fuzzHelperEnv, name)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err := sim.Serve(ctx, im.New(), sim.ServeConfig{})
	switch {
	case errors.Is(err, sim.ErrStepFailed):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

// builtinProcess is a built-in implementation run as an OS process in the
// step regime: this test binary serving it.
func builtinProcess(name string) play.Impl {
	return play.Impl{Name: name + " (process)", Process: &sim.ProcessSpec{
		Command: []string{os.Args[0], "-test.run=^TestFuzzHelperProcess$", "-test.count=1"},
		Env:     []string{fuzzHelperEnv + "=" + name},
		Regime:  sim.RegimeStep,
	}}
}

// processCampaign is the campaign TestProcessCampaignReachesEveryCounter
// plays: the reference as a process, every fault kind on in every run (the
// `all` preset, so that no counter waits on a kind drawn off), seed 1.
func processCampaign() Config {
	return Config{Impl: builtinProcess(examples.ReferenceName), Seed: 1, Runs: 40, Workers: 4, Preset: "all", KeepGoing: true}
}

// requireCleanProcessCampaign plays cfg and holds it clean: no run the
// oracles disagree on, no run the reference fails, every run played.
func requireCleanProcessCampaign(t *testing.T, cfg Config) *Summary {
	t.Helper()
	sum := runCampaign(t, cfg)
	for _, c := range sum.Coverage.Counts() {
		t.Logf("%-42s %d", c.Name, c.Runs)
	}
	require.Zero(t, sum.InvalidRuns, "no run the oracles disagree on")
	if sum.FailedRuns > 0 {
		t.Fatalf("the reference as a process failed %d of %d runs; the first, run %d: %v",
			sum.FailedRuns, sum.Runs, sum.Failure.Index, sum.Failure.Verdict().Violations)
	}
	assert.Equal(t, cfg.Runs, sum.Runs)
	return sum
}

// A campaign of 40 generated runs of the `all` preset, the reference run as
// an OS process in the step regime, reaches every coverage counter, and the
// reference fails none of the runs (D132; since D139 nothing is set aside).
// About 10 s of CPU here.
func TestProcessCampaignReachesEveryCounter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	sum := requireCleanProcessCampaign(t, processCampaign())
	assert.Empty(t, sum.Coverage.Missing(), "counters a process campaign must reach")
}

// defaultProcessCampaign is a default-preset campaign of modest size with
// the reference as a process: the preset amr fuzz plays unless told
// otherwise, each kind on in about half the runs.
func defaultProcessCampaign() Config {
	return Config{Impl: builtinProcess(examples.ReferenceName), Seed: 1, Runs: 60, Workers: 4, KeepGoing: true}
}

// A default campaign of 60 runs, the reference as an OS process, is clean
// and reaches every counter (D141; since D158 nothing is set aside),
// crash_between_send_and_record and crash_tore_state_json included. About
// 15 s of CPU here.
func TestDefaultProcessCampaignReachesEveryCounter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	sum := requireCleanProcessCampaign(t, defaultProcessCampaign())
	assert.Empty(t, sum.Coverage.Missing(), "counters a default process campaign must reach")
	assert.Positive(t, sum.Coverage.Hits(CCrashSendRecord), "the crash after a send is drawn by default")
	assert.Positive(t, sum.Coverage.Hits(CTornState), "the torn crash aimed at state.json is drawn by default")
}

// BenchmarkProcessCampaignReachesEveryCounter is the process variant of
// TestDefaultCampaignReachesEveryCounter at full size: the reference, built
// as amr and run as an OS process in the step regime (`amr serve-impl
// reference`), under a default campaign. It fails when a counter is missed
// or the reference fails a run, and reports runs per second and the
// counters missed:
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

// Each deployment fault kind finds its weak implementation run as an OS
// process, from generation alone, as it does in process: a deployment
// campaign of seed 2 stops within 30 runs on a run that trips one of the
// implementation's declared targets. (Seed 2 is where weak-cite-failed-call
// as a process failed its step instead, before a timeout's 504 named its
// call, D130. weak-torn-glue is found since a traced process's write can
// be torn, D107.)
func TestDeploymentKindsFindTheirWeakImplementationsAsAProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	for _, name := range []string{"weak-skip-old-signals", "weak-stale-approval", "weak-cite-failed-call", "weak-count-duplicates", "weak-torn-glue"} {
		t.Run(name, func(t *testing.T) {
			im, ok := examples.Lookup(name)
			require.True(t, ok)
			cfg := Config{Impl: builtinProcess(name), Seed: 2, Runs: 30, Workers: 2, Preset: "deployment"}
			sum := runCampaign(t, cfg)
			require.NotNil(t, sum.Failure, "not found as a process in %d runs", cfg.Runs)
			require.True(t, hitsTarget(sum.Failure.Run, im.Targets), "run %d: found %v, but the declared targets are %v\n%s",
				sum.Failure.Index, sum.Failure.Invariants(), im.Targets, processStory(sum.Failure.Run.Result))
			cfg.Impl = builtin(t, name)
			in := runCampaign(t, cfg)
			require.NotNil(t, in.Failure, "in process")
			t.Logf("first failure: run %d as a process, run %d in process", sum.Failure.Index, in.Failure.Index)
		})
	}
}

// processStory is what a process run's processes did and said, for a
// failure message: a run that trips no target of its implementation is
// most often one whose process died or hung, and this says which.
func processStory(r *sim.Result) string {
	if r == nil {
		return "no result"
	}
	facts, _ := json.Marshal(r.Process)
	return fmt.Sprintf("process facts: %s\nstderr.log: %q", facts, r.Output["stderr.log"])
}
