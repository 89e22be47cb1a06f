package fuzz

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// sendCrashTicks are the ticks a crash counting sends landed at.
func sendCrashTicks(log []sandbox.LogRecord) map[int]bool {
	out := map[int]bool{}
	for _, r := range log {
		if r.Kind == sandbox.LogCrash && r.WritesTo == scenarios.SendLog {
			out[r.Tick] = true
		}
	}
	return out
}

// requireCaughtBySendCrash holds a run failed L1.duplicate-effect at the
// tick a crash right after a send landed.
func requireCaughtBySendCrash(t *testing.T, r *Run) {
	t.Helper()
	at := sendCrashTicks(r.Result.Log)
	require.NotEmpty(t, at, "the run has a crash after a send")
	caught := false
	for _, v := range r.Verdict().Violations {
		caught = caught || v.Invariant == "L1.duplicate-effect" && at[v.Tick]
	}
	require.True(t, caught, "a second effect at the tick of a crash after a send: %v\n%s", r.Verdict().Violations, processStory(r.Result))
}

// weak-send-before-record, as an OS process, is caught from generation
// alone by a crash right after a send (D139): the default campaign of seed
// 2 fails at run 4 with a second effect at the tick of such a crash, and
// the run fails the same way when played again, since a traced process is
// cut exactly there (amr fuzz --replays 20 saw 20 of 20). In process the
// same campaign fails at the same run.
func TestASendCrashCatchesSendBeforeRecordAsAProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	const name = "weak-send-before-record"
	cfg := Config{Impl: builtinProcess(name), Seed: 2, Runs: 8, Workers: 4}
	sum := runCampaign(t, cfg)
	require.NotNil(t, sum.Failure, "not found as a process in %d runs", cfg.Runs)
	assert.Equal(t, 4, sum.Failure.Index)
	requireCaughtBySendCrash(t, sum.Failure.Run)

	seed := seeds.Run(cfg.Seed, sum.Failure.Index)
	for range 3 {
		again, err := Play(sum.Failure.Bundle, cfg.Impl, &seed, 0)
		require.NoError(t, err)
		requireCaughtBySendCrash(t, again)
	}

	cfg.Impl = builtin(t, name)
	in := runCampaign(t, cfg)
	require.NotNil(t, in.Failure, "in process")
	assert.Equal(t, 4, in.Failure.Index)
	requireCaughtBySendCrash(t, in.Failure.Run)
}

// The other direction: the reference, which records its send before it can
// forget it, fails none of the runs of that campaign, though their crashes
// after a send land (in process; the process campaigns above hold it as a
// process).
func TestASendCrashLeavesTheReferenceClean(t *testing.T) {
	cfg := Config{Impl: builtin(t, examples.ReferenceName), Seed: 2, Runs: 60, KeepGoing: true}
	sum := runCampaign(t, cfg)
	require.Zero(t, sum.FailedRuns)
	require.Zero(t, sum.InvalidRuns)
	assert.Positive(t, sum.Coverage.Hits(CCrashSendRecord))
}
