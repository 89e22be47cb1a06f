package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func requireLinux(t testing.TB) {
	t.Helper()
	if !processSupported {
		t.Skip("process implementations run on Linux only")
	}
}

func published(t testing.TB, name string) *scenarios.Bundle {
	t.Helper()
	all, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range all {
		if p.Name == name {
			return p.Bundle
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

// runProcess plays b against a process and checks that nothing of the run
// is left running afterwards.
func runProcess(t *testing.T, b *scenarios.Bundle, spec *ProcessSpec, seed uint64) *Result {
	t.Helper()
	res, err := Run(b, nil, Options{Seed: seed, Impl: "process", Process: spec})
	require.NoError(t, err)
	require.NotEmpty(t, res.Workdir)
	t.Cleanup(func() { _ = res.Cleanup() })
	assert.Empty(t, findStrays(filepath.Join(res.Workdir, SandboxDir), procMark{}), "a process of the run is still alive")
	live.Lock()
	groups := len(live.groups)
	live.Unlock()
	assert.Zero(t, groups, "a process group is still registered")
	return res
}

func judge(b *scenarios.Bundle, res *Result) checker.Verdict {
	return checker.Check(checker.Input{Bundle: b, Files: res.Files.Files(), Log: res.Log})
}

func requirePass(t *testing.T, b *scenarios.Bundle, res *Result) {
	t.Helper()
	v := judge(b, res)
	for i := 0; i <= b.Meta.TopLevel; i++ {
		require.Equal(t, checker.Pass, v.Levels[i], "level %d: %+v", i, v.Violations)
	}
}

// shortened is a published bundle cut to a shorter horizon, for the
// regimes whose every tick costs wall-clock time.
func shortened(t *testing.T, name string, horizon int) *scenarios.Bundle {
	b := published(t, name).Clone()
	b.Meta.Horizon = horizon
	return b
}

func TestReferenceAsProcessInEveryRegime(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 14)
	for _, regime := range Regimes {
		t.Run(regime, func(t *testing.T) {
			res := runProcess(t, b, helperSpec("reference", regime), 3)
			requirePass(t, b, res)
			assert.Zero(t, res.Forced)
			start := res.Log[0]
			assert.Equal(t, regime, start.Start().Params["regime"])
		})
	}
}

func TestStepRegimeMatchesInProcess(t *testing.T) {
	requireLinux(t)
	for _, name := range []string{"l2-govern", "l3-fleet-concurrent-redelivery", "l6-post-approval-escalation"} {
		t.Run(name, func(t *testing.T) {
			b := published(t, name)
			res := runProcess(t, b, helperSpec("reference", RegimeStep), 11)
			requirePass(t, b, res)
			in, err := Run(b, examples.Reference(), Options{Seed: 11})
			require.NoError(t, err)
			assert.Equal(t, in.Files.Files(), res.Files.Files(), "the same sandbox in-process and as a process")
		})
	}
}

func TestStepRegimeIsDeterministic(t *testing.T) {
	requireLinux(t)
	// Crashes at tick boundaries only: a crash between writes is best
	// effort for a process and may land at a different write.
	b := published(t, "l2-govern").Clone()
	b.Faults = append(b.Faults, scenarios.Fault{At: 6, Kind: scenarios.FaultCrash})
	b.Normalize()
	a := runProcess(t, b, helperSpec("reference", RegimeStep), 5)
	c := runProcess(t, b, helperSpec("reference", RegimeStep), 5)
	assert.Equal(t, string(a.LogBytes()), string(c.LogBytes()))
	assert.Equal(t, a.Files.Files(), c.Files.Files())
	assert.Equal(t, a.Crashes, c.Crashes)
	assert.GreaterOrEqual(t, a.Crashes, 2)
	requirePass(t, b, a)
}

func TestCrashInsideATickKillsTheWriter(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 3}}
	res := runProcess(t, b, helperSpec("slow", RegimeStep), 1)
	crashes := kinds(res, sandbox.LogCrash)
	require.Len(t, crashes, 1)
	c := crashes[0]
	assert.Equal(t, 1, c.Tick)
	assert.Equal(t, 3, c.AfterWrites)
	assert.GreaterOrEqual(t, c.Written, 3, "killed no earlier than the third write")
	assert.Less(t, c.Written, 5, "killed before the tick's work was done")
	assert.Equal(t, 5+c.Written, c.Lines[sandbox.Audit], "the cut: all of tick 0, and what tick 1 had written")
	assert.Len(t, kinds(res, sandbox.LogRestart), 1)
	// The fresh instance was sent the tick again and did all of its work.
	audit, _ := sandbox.ParseAudit(res.Files.View(sandbox.Audit))
	assert.Len(t, audit, 5+c.Written+5+5)
}

func TestHostileProcesses(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 6)
	cases := []struct {
		role, regime string
		tune         func(*ProcessSpec)
		check        func(t *testing.T, res *Result)
	}{
		{"garbage", RegimeStep, nil, func(t *testing.T, res *Result) {
			v := judge(b, res)
			assert.Equal(t, checker.Fail, v.Levels[0])
			assert.Contains(t, invariants(v), "L0.record-format")
			// The unterminated outbox line is never counted as written
			// during the run, and is judged at the end.
			for _, r := range kinds(res, sandbox.LogTickEnd) {
				assert.Equal(t, 1, r.Lines[sandbox.Outbox])
			}
			assert.True(t, strings.HasSuffix(string(res.Files.View(sandbox.Outbox)), `{"effect_id":`))
		}},
		{"busy", RegimeQuiescence, func(s *ProcessSpec) {
			s.Window, s.Timeout, s.HangLimit = 40*time.Millisecond, 120*time.Millisecond, 2
		}, func(t *testing.T, res *Result) {
			// Ticks may pass quiet before the process has started.
			assert.GreaterOrEqual(t, res.Forced, 2)
			require.Len(t, kinds(res, sandbox.LogHung), 1)
			assert.GreaterOrEqual(t, kinds(res, sandbox.LogHung)[0].Tick, 1)
		}},
		{"mute", RegimeStep, func(s *ProcessSpec) { s.StepTimeout = 150 * time.Millisecond }, func(t *testing.T, res *Result) {
			hung := kinds(res, sandbox.LogHung)
			require.Len(t, hung, 1)
			assert.Contains(t, hung[0].Detail, "tick 0 not answered")
			assert.Equal(t, 1, res.Forced)
		}},
		{"work-then-exit", RegimeQuiescence, nil, func(t *testing.T, res *Result) {
			exits := kinds(res, sandbox.LogExit)
			require.Len(t, exits, 1)
			assert.Equal(t, "exit status 4", exits[0].Detail)
			require.NotNil(t, res.Process)
			e := eventsOf(res.Process, ProcExit)
			require.Len(t, e, 1)
			require.NotNil(t, e[0].Code)
			assert.Equal(t, 4, *e[0].Code)
			assert.Contains(t, res.Process.StderrTail, "worked, then failed")
			assert.NotContains(t, res.Process.StderrTail, "[amr:")
			assert.Equal(t, "exited", res.Process.Outcome())
		}},
		{"answer-then-exit", RegimeStep, nil, func(t *testing.T, res *Result) {
			e := eventsOf(res.Process, ProcExit)
			require.Len(t, e, 1)
			assert.Equal(t, 5, *e[0].Code)
			assert.LessOrEqual(t, e[0].Tick, 1, "seen at the tick it answered or the next")
		}},
		{"work-then-exit", RegimeOnce, nil, func(t *testing.T, res *Result) {
			errs := kinds(res, sandbox.LogStepError)
			require.Len(t, errs, len(scenarios.TimelineOf(b)))
			assert.Contains(t, errs[0].Detail, "exit status 4")
			assert.Len(t, eventsOf(res.Process, ProcFailed), len(scenarios.TimelineOf(b)))
		}},
		{"daemon", RegimeStep, nil, func(t *testing.T, res *Result) {
			esc := kinds(res, sandbox.LogEscaped)
			require.Len(t, esc, 1)
			assert.Contains(t, esc[0].Detail, "1 process(es)")
		}},
		{"daemon", RegimeOnce, nil, func(t *testing.T, res *Result) {
			assert.Len(t, kinds(res, sandbox.LogEscaped), len(scenarios.TimelineOf(b)), "one daemon left behind per tick, each killed")
		}},
		{"huge", RegimeStep, func(s *ProcessSpec) { s.MaxFileBytes = 1 << 20 }, func(t *testing.T, res *Result) {
			over := kinds(res, sandbox.LogOversize)
			require.NotEmpty(t, over)
			assert.Contains(t, over[0].Detail, sandbox.Drafts)
			assert.LessOrEqual(t, len(res.Files.View(sandbox.Drafts)), 1<<20)
		}},
		{"tamper", RegimeStep, nil, func(t *testing.T, res *Result) {
			require.Len(t, kinds(res, sandbox.LogTamper), 1)
			assert.NotContains(t, string(res.Files.View(sandbox.Inbox)), "forged")
		}},
	}
	for _, c := range cases {
		t.Run(c.role+"/"+c.regime, func(t *testing.T) {
			spec := helperSpec(c.role, c.regime)
			if c.tune != nil {
				c.tune(spec)
			}
			done := make(chan *Result, 1)
			go func() {
				defer close(done)
				done <- runProcess(t, b, spec, 1)
			}()
			select {
			case res := <-done:
				require.NotNil(t, res)
				c.check(t, res)
			case <-time.After(30 * time.Second):
				KillAll()
				t.Fatal("the harness hung")
			}
		})
	}
}

func invariants(v checker.Verdict) []string {
	var out []string
	for _, x := range v.Violations {
		out = append(out, x.Invariant)
	}
	return out
}

func TestOneShotRunsAgainOnExit75(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 3)
	res := runProcess(t, b, helperSpec("retry", RegimeOnce), 1)
	assert.Equal(t, 2*len(scenarios.TimelineOf(b)), res.Steps, "two invocations per tick")
	assert.Empty(t, kinds(res, sandbox.LogStepError))
	assert.Zero(t, res.Forced)
}

func TestCancelKillsEverythingAndRemovesTheRun(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 30)
	spec := helperSpec("busy", RegimeQuiescence)
	base, err := os.MkdirTemp(DefaultTempDir(), "amr-test-*")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	spec.TempDir = base
	spec.HangLimit = 100
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err = Run(b, nil, Options{Process: spec, Context: ctx})
	require.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(spec.TempDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the run directory is removed")
	live.Lock()
	defer live.Unlock()
	assert.Empty(t, live.groups)
	assert.Empty(t, live.sandboxes)
}

func TestBadSpecsAreRefused(t *testing.T) {
	b := published(t, "l0-respond")
	for _, spec := range []ProcessSpec{
		{},
		{Command: []string{"true"}, Regime: "sometimes"},
		{Command: []string{"true"}, Window: time.Second, Timeout: time.Second},
	} {
		_, err := Run(b, nil, Options{Process: &spec})
		assert.Error(t, err, "%+v", spec)
	}
}

func eventsOf(f *ProcessFacts, kind string) []ProcessEvent {
	var out []ProcessEvent
	for _, e := range f.Events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// notStarted plays b against a process that must not get going, and
// checks that nothing of the run is left: no directory, no process.
func notStarted(t *testing.T, b *scenarios.Bundle, spec *ProcessSpec) *NotStartedError {
	t.Helper()
	base := t.TempDir()
	spec.TempDir = base
	res, err := Run(b, nil, Options{Seed: 1, Impl: "process", Process: spec})
	require.Error(t, err)
	require.Nil(t, res)
	var ns *NotStartedError
	require.ErrorAs(t, err, &ns)
	entries, rerr := os.ReadDir(base)
	require.NoError(t, rerr)
	assert.Empty(t, entries, "the run directory is removed")
	live.Lock()
	defer live.Unlock()
	assert.Empty(t, live.groups)
	return ns
}

func TestAProcessThatDoesNotStartHasItsOwnOutcome(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 4)
	t.Run("missing", func(t *testing.T) {
		ns := notStarted(t, b, &ProcessSpec{Command: []string{filepath.Join(t.TempDir(), "no-such-program")}, Regime: RegimeStep})
		assert.Contains(t, ns.Error(), "the implementation did not start: ")
		assert.Contains(t, ns.Error(), "no such file or directory")
	})
	t.Run("not executable", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "impl.sh")
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644))
		ns := notStarted(t, b, &ProcessSpec{Command: []string{path}, Regime: RegimeQuiescence})
		assert.Contains(t, ns.Error(), "permission denied")
	})
	for _, regime := range Regimes {
		t.Run("exits at once/"+regime, func(t *testing.T) {
			spec := helperSpec("exit", regime)
			// A quiescence process still running when its first tick
			// ends has started: the window must outlast this binary's
			// start, however loaded the machine.
			spec.Window = 2 * time.Second
			ns := notStarted(t, b, spec)
			if regime == RegimeOnce {
				assert.Contains(t, ns.Error(), "its first invocation, at tick 0, failed")
			} else {
				assert.Contains(t, ns.Error(), "ended by itself at tick 0")
			}
			assert.Contains(t, ns.Error(), "exit status 3")
			assert.Equal(t, "leaving at once", ns.StderrTail)
		})
	}
	t.Run("step, exit 0 before answering", func(t *testing.T) {
		spec := &ProcessSpec{Command: []string{"true"}, Regime: RegimeStep}
		ns := notStarted(t, b, spec)
		assert.Contains(t, ns.Error(), "before answering a tick")
	})
}

// The other direction: a process that ends by itself after it showed it
// works is judged, its end on record (TestHostileProcesses), and a
// quiescence or one-shot process that ends with status 0 before writing
// anything is judged too: it may have had nothing to do.
func TestAProcessThatEndsWellAtOnceIsJudged(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 4)
	for _, regime := range []string{RegimeQuiescence, RegimeOnce} {
		t.Run(regime, func(t *testing.T) {
			res := runProcess(t, b, &ProcessSpec{Command: []string{"true"}, Regime: regime, Window: 20 * time.Millisecond}, 1)
			require.NotNil(t, res.Process)
			assert.Equal(t, regime, res.Process.Regime)
		})
	}
}

func TestACrashAfterKWritesCountsTheSpecsFilesByDefault(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 3)
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 2}}
	// At each tick the helper writes state.json, private/app.log, audit
	// a1, db.json, audit a2: the crash after 2 writes lands after the k-th
	// write that counts.
	for _, c := range []struct {
		name          string
		count, ignore []string
		audit         int // audit lines seen when it landed: this tick's plus tick 0's two
	}{
		{"spec files", nil, nil, 2 + 1},
		{"state.json ignored", nil, []string{"state.json"}, 2 + 2},
		{"private files counted", []string{"private/", "db.json"}, nil, 2 + 0},
		{"a pattern", []string{"private/*.log"}, nil, 2 + 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := helperSpec("journaled", RegimeStep)
			spec.CountWrites, spec.IgnoreWrites = c.count, c.ignore
			res := runProcess(t, b, spec, 1)
			crashes := kinds(res, sandbox.LogCrash)
			require.Len(t, crashes, 1)
			assert.Equal(t, 2, crashes[0].Written)
			assert.Equal(t, c.audit, crashes[0].Lines[sandbox.Audit])
		})
	}
}

func TestWritePatterns(t *testing.T) {
	s := ProcessSpec{CountWrites: []string{"private/", "data/*.db", "journal"}, IgnoreWrites: []string{"private/cache/"}}
	count := s.WriteCounter()
	for rel, want := range map[string]bool{
		"state.json": true, "private/x": true, "private/a/b": true, "private/cache/y": false,
		"data/app.db": true, "data/app.log": false, "journal": true, "journal/001": true, "other.txt": false,
	} {
		assert.Equal(t, want, count(rel), rel)
	}
	ignoreState := ProcessSpec{IgnoreWrites: []string{"state.json"}}.WriteCounter()
	assert.False(t, ignoreState("state.json"))
	for _, bad := range []ProcessSpec{
		{Command: []string{"x"}, IgnoreWrites: []string{"audit.jsonl"}},
		{Command: []string{"x"}, IgnoreWrites: []string{"*.jsonl"}},
		{Command: []string{"x"}, CountWrites: []string{"[unclosed"}},
	} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	assert.NoError(t, ProcessSpec{Command: []string{"x"}, IgnoreWrites: []string{"private/*.jsonl"}}.Validate())
}

// bootTicks returns the ticks at which each instance first saw the clock.
func bootTicks(t *testing.T, res *Result) []int {
	t.Helper()
	var ticks []int
	for _, line := range strings.Split(strings.TrimSpace(string(res.Files.View(sandbox.Audit))), "\n") {
		var rec struct {
			Event string `json:"event"`
			At    int    `json:"at"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if rec.Event == "booted" {
			ticks = append(ticks, rec.At)
		}
	}
	return ticks
}

func TestTheClockWaitsForTheReadinessHandshake(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 12)
	b.Faults = []scenarios.Fault{{At: 5, Kind: scenarios.FaultCrash}}
	for _, ready := range []string{ReadyStdout, ReadyFile} {
		t.Run(ready, func(t *testing.T) {
			spec := helperSpec("slow-boot", RegimeQuiescence)
			spec.Ready = ready
			res := runProcess(t, b, spec, 1)
			assert.Equal(t, []int{0, 5}, bootTicks(t, res), "each instance boots at the tick it was started at")
			readies := kinds(res, sandbox.LogReady)
			require.Len(t, readies, 2)
			assert.Equal(t, "instance 1 ready", readies[0].Detail)
			assert.Equal(t, 5, readies[1].Tick)
			assert.Equal(t, ready, res.Log[0].Start().Params["ready"])
			assert.Empty(t, eventsOf(res.Process, ProcReady))
		})
	}
	t.Run("without a handshake the clock goes on", func(t *testing.T) {
		res := runProcess(t, b, helperSpec("slow-boot", RegimeQuiescence), 1)
		// Ticks pass while it boots: the first instance may even be
		// killed by the crash of tick 5 before it ever looked.
		boots := bootTicks(t, res)
		require.NotEmpty(t, boots)
		assert.Greater(t, boots[0], 0)
		assert.Greater(t, boots[len(boots)-1], 5)
		assert.Empty(t, kinds(res, sandbox.LogReady))
	})
	t.Run("a handshake that never comes", func(t *testing.T) {
		spec := helperSpec("never-ready", RegimeQuiescence)
		spec.Ready, spec.ReadyTimeout = ReadyStdout, 100*time.Millisecond
		res := runProcess(t, shortened(t, "l0-respond", 3), spec, 1)
		readies := kinds(res, sandbox.LogReady)
		require.Len(t, readies, 1)
		assert.Contains(t, readies[0].Detail, "not ready within 100ms; the clock goes on")
		assert.Len(t, eventsOf(res.Process, ProcReady), 1)
	})
	t.Run("step regime", func(t *testing.T) {
		spec := helperSpec("idle", RegimeStep)
		spec.Env = append(spec.Env, "AMR_HELPER_SAY_READY=1")
		spec.Ready = ReadyStdout
		res := runProcess(t, shortened(t, "l0-respond", 3), spec, 1)
		readies := kinds(res, sandbox.LogReady)
		require.Len(t, readies, 1)
		assert.Equal(t, "instance 1 ready", readies[0].Detail)
		assert.NotContains(t, string(res.Output[StdoutLog]), "idle ")
	})
	t.Run("ends before it is ready", func(t *testing.T) {
		spec := helperSpec("exit", RegimeQuiescence)
		spec.Ready = ReadyFile
		ns := notStarted(t, b, spec)
		assert.Contains(t, ns.Error(), "before it was ready")
	})
}

func TestReadinessHandshakesAreChecked(t *testing.T) {
	for _, bad := range []ProcessSpec{
		{Command: []string{"x"}, Ready: "banner"},
		{Command: []string{"x"}, Ready: ReadyStdout, Regime: RegimeOnce},
	} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	assert.NoError(t, ProcessSpec{Command: []string{"x"}, Ready: ReadyFile, Regime: RegimeStep}.Validate())
}

func TestTheRunDirectoryIsBounded(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 4)
	b.Faults = []scenarios.Fault{{At: 2, Kind: scenarios.FaultCrash}}
	for _, regime := range Regimes {
		t.Run(regime, func(t *testing.T) {
			spec := helperSpec("filler", regime)
			spec.MaxRunDirBytes = 2 << 20
			res := runProcess(t, b, spec, 1)
			bound := kinds(res, sandbox.LogBound)
			require.Len(t, bound, 1)
			assert.Contains(t, bound[0].Detail, "more than 2097152 bytes")
			assert.Equal(t, ProcBound, res.Process.Down)
			assert.True(t, res.Process.KilledForGood())
			assert.Empty(t, eventsOf(res.Process, ProcRestart), "the crash fault does not bring it back")
			assert.Equal(t, "2097152", res.Log[0].Start().Params["max_run_dir_bytes"])
			size, _ := dirSize(res.Workdir, 1<<40)
			assert.Less(t, size, int64(8<<20), "stopped well before it wrote all 10 MiB")
		})
	}
	t.Run("within the bound", func(t *testing.T) {
		spec := helperSpec("filler", RegimeStep)
		spec.MaxRunDirBytes = 64 << 20
		res := runProcess(t, b, spec, 1)
		assert.Empty(t, kinds(res, sandbox.LogBound))
		assert.Empty(t, res.Process.Down)
	})
}

func TestOnlyProcessesAliveAfterTheGraceAreEscaped(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 4)
	b.Faults = []scenarios.Fault{{At: 2, Kind: scenarios.FaultCrash}}
	// A child out of the group that dies 20ms after the kill is not
	// escaped: the grace is escapeGrace.
	res := runProcess(t, b, helperSpec("lingering-daemon", RegimeStep), 1)
	assert.Empty(t, kinds(res, sandbox.LogEscaped))
	assert.Empty(t, eventsOf(res.Process, ProcEscaped))
	// One that lives on is, at the crash and at the end.
	res = runProcess(t, b, helperSpec("daemon", RegimeStep), 1)
	esc := kinds(res, sandbox.LogEscaped)
	require.Len(t, esc, 2)
	assert.Equal(t, 2, esc[0].Tick)
	assert.Contains(t, esc[0].Detail, fmt.Sprintf("alive %s after the kill", escapeGrace))
	assert.Len(t, eventsOf(res.Process, ProcEscaped), 2)
}

func TestAHungProcessIsRestartedByALaterCrash(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 8)
	b.Faults = []scenarios.Fault{{At: 3, Kind: scenarios.FaultCrash}}
	spec := helperSpec("hang-first", RegimeStep)
	// Long enough for a restarted instance to answer on a loaded machine.
	spec.StepTimeout = time.Second
	res := runProcess(t, b, spec, 1)
	f := res.Process
	require.NotNil(t, f)
	assert.True(t, f.Hung, "the run is marked hung")
	assert.True(t, f.KilledForGood())
	require.Len(t, eventsOf(f, ProcHung), 1)
	assert.Equal(t, 0, eventsOf(f, ProcHung)[0].Tick)
	restarts := eventsOf(f, ProcRestart)
	require.Len(t, restarts, 1)
	assert.Equal(t, 3, restarts[0].Tick)
	assert.Empty(t, eventsOf(f, ProcNotRestarted))
	assert.Empty(t, f.Down, "running again when the run ended")
	assert.Equal(t, 2, f.Instances)
	assert.Len(t, kinds(res, sandbox.LogRestart), 1)
	// The restarted instance answered every tick after the crash.
	for _, r := range kinds(res, sandbox.LogTickEnd) {
		assert.Equal(t, r.Tick == 0, r.Forced, "tick %d", r.Tick)
	}
}

func TestAHungProcessWithNoLaterCrashSaysWhy(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 4)
	spec := helperSpec("mute", RegimeStep)
	spec.StepTimeout = 150 * time.Millisecond
	res := runProcess(t, b, spec, 1)
	f := res.Process
	assert.Equal(t, ProcHung, f.Down)
	nr := eventsOf(f, ProcNotRestarted)
	require.Len(t, nr, 1)
	assert.Contains(t, nr[0].Detail, "no crash fault came after it")
	assert.Equal(t, ProcHung, f.Outcome())
}

func TestAProcessKilledForABoundIsNotRestarted(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 6)
	b.Faults = []scenarios.Fault{{At: 4, Kind: scenarios.FaultCrash}}
	spec := helperSpec("huge", RegimeStep)
	spec.MaxFileBytes = 1 << 20
	res := runProcess(t, b, spec, 1)
	f := res.Process
	assert.Equal(t, ProcOversize, f.Down)
	assert.Empty(t, eventsOf(f, ProcRestart))
	nr := eventsOf(f, ProcNotRestarted)
	require.Len(t, nr, 1)
	assert.Contains(t, nr[0].Detail, "does not bring it back")
}

// BenchmarkRegimes plays the same bundles (l0-respond, 31 ticks;
// l2-govern, 136 ticks) against the reference in-process and as a process
// in each regime, with the default window and timeouts, and reports ticks
// per second.
//
//	go test ./sim -run XXX -bench 'Regimes/.*/in-process' -benchtime 2000x
//	go test ./sim -run XXX -bench 'Regimes/l0-respond/(step|once|quiescence)' -benchtime 3x
func BenchmarkRegimes(b *testing.B) {
	requireLinux(b)
	for _, name := range []string{"l0-respond", "l2-govern"} {
		bundle := published(b, name)
		b.Run(name, func(b *testing.B) {
			benchRegimes(b, bundle, []string{"in-process", RegimeStep, RegimeOnce, RegimeQuiescence})
		})
	}
}

// BenchmarkStepThroughput is the step regime's throughput on a long bundle
// (2001 ticks), where starting the process is paid once.
func BenchmarkStepThroughput(b *testing.B) {
	requireLinux(b)
	bundle := published(b, "l0-respond").Clone()
	bundle.Meta.Horizon = 2000
	benchRegimes(b, bundle, []string{"in-process", RegimeStep})
}

func benchRegimes(b *testing.B, bundle *scenarios.Bundle, modes []string) {
	ticks := float64(len(scenarios.TimelineOf(bundle)))
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var res *Result
				var err error
				if mode == "in-process" {
					res, err = Run(bundle, examples.Reference(), Options{Seed: 1})
				} else {
					spec := helperSpec("reference", mode)
					spec.Window, spec.Timeout, spec.StepTimeout, spec.Poll = 0, 0, 0, 0
					res, err = Run(bundle, nil, Options{Seed: 1, Process: spec})
				}
				if err != nil {
					b.Fatal(err)
				}
				_ = res.Cleanup()
			}
			b.ReportMetric(ticks*float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
		})
	}
}

// BenchmarkFindStrays is one look through /proc for a run's processes:
// every process (the mark of a harness that could not take one), and only
// those forked since a mark taken at the start, as a run looks.
func BenchmarkFindStrays(b *testing.B) {
	b.Run("every-process", func(b *testing.B) {
		for b.Loop() {
			findStrays("/nonexistent", procMark{start: startTime(os.Getpid())})
		}
	})
	b.Run("since-mark", func(b *testing.B) {
		mark := markProcs()
		for b.Loop() {
			findStrays("/nonexistent", mark)
		}
	})
}

// A process killed after its k-th write could call the model before the
// kill landed, leaving a call no draft cites that the in-process run never
// makes. While a crash is armed every model call is a look at the sandbox:
// the call of an instance that reached its cut is refused.
func TestAModelCallPastTheCutIsRefused(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 1)
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 1}}
	spec := helperSpec("caller", RegimeStep)
	// Looks far apart: only the call itself can catch the cut in time.
	spec.Poll = 100 * time.Millisecond
	res := runProcess(t, b, spec, 1)
	crashes := kinds(res, sandbox.LogCrash)
	require.Len(t, crashes, 1)
	assert.Equal(t, 1, crashes[0].Written, "killed at the call that followed the first write")
	calls, errs := sandbox.ParseModelCalls(res.Files.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	audit := string(res.Files.View(sandbox.Audit))
	for _, c := range calls {
		assert.Contains(t, audit, `"call":"`+c.Rec.CallID+`"`, "call %s at tick %d is cited", c.Rec.CallID, c.Rec.At)
	}
	assert.Len(t, calls, 2, "one call per tick: the killed instance's call was refused")
}

// The reference as a process calls the model exactly as often as in
// process, and every call has its surprise, crashes inside ticks included.
func TestReferenceProcessCallsMatchInProcess(t *testing.T) {
	requireLinux(t)
	b := published(t, "l1-multiturn-crash")
	for seed := uint64(1); seed <= 5; seed++ {
		res := runProcess(t, b, helperSpec("reference", RegimeStep), seed)
		files := res.Files.Files()
		s := history.Surprises(history.Compile(history.Input{Bundle: b, Files: files, Log: res.Log}))
		in, err := Run(b, examples.Reference(), Options{Seed: seed})
		require.NoError(t, err)
		want := history.Surprises(history.Compile(history.Input{Bundle: b, Files: in.Files.Files(), Log: in.Log}))
		assert.Zero(t, s.Unattributed, "seed %d: %+v", seed, s.Items)
		assert.Equal(t, want.ByKind, s.ByKind, "seed %d", seed)
	}
}

// A crash after k writes lands where the harness first sees k writes,
// which for a process may be further. Replaying the recorded cut kills the
// process at the same write count, so both runs have the same files
// written when it died.
func TestReplayedCutKillsAtTheRecordedWriteCount(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 1}}
	// Looking only every 50ms, and not holding the process at its writes,
	// the harness sees the first write late: the process has written more
	// by then.
	late := helperSpec("slow", RegimeStep)
	late.Poll = 50 * time.Millisecond
	late.NoFreeze, late.NoTrace = true, true
	first := runProcess(t, b, late, 1)
	cuts := CutsOf(first.Log)
	require.Len(t, cuts, 1)
	crash := kinds(first, sandbox.LogCrash)[0]
	require.Greater(t, crash.Written, 1, "the first run got past its first write")
	assert.Equal(t, Cut{Tick: 1, Index: 0, Writes: crash.Written}, cuts[0])

	replay := helperSpec("slow", RegimeStep)
	replay.Cuts = cuts
	again := runProcess(t, b, replay, 1)
	got := kinds(again, sandbox.LogCrash)
	require.Len(t, got, 1)
	assert.Equal(t, crash.Written, got[0].Written)
	assert.Equal(t, crash.Lines, got[0].Lines, "the same files written when it died")
	assert.Equal(t, 1, got[0].AfterWrites, "the record keeps the fault's k")
	assert.Contains(t, got[0].Detail, "replayed cut")
	assert.Equal(t, formatCuts(cuts), again.Log[0].Start().Params["cuts"])
	assert.Equal(t, "off", first.Log[0].Start().Params["freeze"])
	assert.Equal(t, first.Files.Files(), again.Files.Files())

	// Without the cut the same harness kills at the first write.
	exact := runProcess(t, b, helperSpec("slow", RegimeStep), 1)
	assert.Equal(t, 1, kinds(exact, sandbox.LogCrash)[0].Written)
}

// While a crash after k writes is armed the process is held at each write
// it makes, so the crash lands at its write even when the harness's own
// looks are far apart; without the hold it lands late.
func TestAHeldProcessIsCutAtItsWrite(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 2}}
	spec := helperSpec("slow", RegimeStep)
	spec.Poll = time.Second // no look in time but the freezer's
	spec.NoTrace = true
	held := runProcess(t, b, spec, 1)
	assert.Equal(t, 2, kinds(held, sandbox.LogCrash)[0].Written)

	spec.NoFreeze, spec.NoTrace = true, true // the watch, without its hold
	loose := runProcess(t, b, spec, 1)
	assert.Greater(t, kinds(loose, sandbox.LogCrash)[0].Written, 2)
}

// In the quiescence regime the process runs while the harness writes a
// tick's clock and inputs; it is held meanwhile, so it never sees a new
// clock with part of that tick's deliveries. The spy reads the inbox at the
// first sight of each new clock.
func TestAProcessSeesEachTickWhole(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l0-respond", 12)
	b.Inbox = nil
	for tick := 1; tick <= 10; tick++ {
		for i := range 3 {
			id := fmt.Sprintf("m%d-%d", tick, i)
			b.Inbox = append(b.Inbox, scenarios.Delivery{ID: id, ConversationID: "c-" + id, From: "ann@example.com",
				Subject: "Order", Body: "Where is my order?", At: tick})
		}
	}
	b.Approvals, b.Signals, b.Faults = nil, nil, nil
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	spec := helperSpec("spy", RegimeQuiescence)
	res := runProcess(t, b, spec, 1)
	out, err := os.ReadFile(filepath.Join(res.Workdir, StdoutLog))
	require.NoError(t, err)
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		var tick, lines int
		if _, err := fmt.Sscanf(line, `seen {"tick":%d} %d`, &tick, &lines); err != nil {
			continue
		}
		seen++
		want := 3 * min(tick, 10)
		assert.Equal(t, want, lines, "at the first sight of tick %d", tick)
	}
	assert.Greater(t, seen, 5, "the spy saw the ticks go by:\n%s", out)
}

func TestCutsOf(t *testing.T) {
	log := []sandbox.LogRecord{
		{Kind: sandbox.LogCrash, Tick: 2},                               // at the boundary: no cut
		{Kind: sandbox.LogCrash, Tick: 3, AfterWrites: 1, Written: 3},   // got further
		{Kind: sandbox.LogCrash, Tick: 3, AfterWrites: 2, Written: 2},   // exact
		{Kind: sandbox.LogCrash, Tick: 5, AfterWrites: 4, Written: 1},   // landed at the tick's end
		{Kind: sandbox.LogCrash, Tick: 5, AfterWrites: 6, Written: 7},   // the tick's second
		{Kind: sandbox.LogRestart, Tick: 5, AfterWrites: 6, Written: 7}, // not a crash
	}
	want := []Cut{{Tick: 3, Index: 0, Writes: 3}, {Tick: 3, Index: 1, Writes: 2}, {Tick: 5, Index: 1, Writes: 7}}
	assert.Equal(t, want, CutsOf(log))
	assert.Equal(t, "3.0=3 3.1=2 5.1=7", formatCuts(want))
	assert.Empty(t, CutsOf(nil))
}
