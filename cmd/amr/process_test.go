package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
)

// The process tests run this test binary as amr itself: with
// AMR_CMD_HELPER set, TestAMRHelper runs the command line after "--".
const cmdHelperEnv = "AMR_CMD_HELPER"

func TestAMRHelper(t *testing.T) {
	if os.Getenv(cmdHelperEnv) == "" {
		return
	}
	os.Exit(run(flag.Args()))
}

// amrCmd is an --impl-cmd that runs this binary as 'amr ARGS'.
func amrCmd(t *testing.T, args ...string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	t.Setenv(cmdHelperEnv, "1")
	words := append([]string{os.Args[0], "-test.run=^TestAMRHelper$", "-test.count=1", "--"}, args...)
	return sim.JoinCommand(words)
}

func scenario(name string) string { return filepath.Join("..", "..", "scenarios", name) }

func TestRunsTheReferenceAsAProcess(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	// TMPDIR makes the run directories land where the test can see them.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "2",
		scenario("l0-respond"), scenario("l3-fleet-concurrent"))
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "2 scenario(s): 2 passed")
	assert.Contains(t, stdout, "process regime step")
	// A one-shot run starts a process or two per tick: one short bundle.
	stdout, stderr, code = execAMR(t, "run", "--impl-cmd", impl, "--regime", "once", "--runs", "1", scenario("l0-respond"))
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "process regime once")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "the directories of passing runs are removed")
}

func TestAWeakProcessFailsAndIsKept(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "weak-no-send")
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--name", "no-send-process", "--regime", "step",
		"--runs", "1", "--out", out, "--json", scenario("l0-respond"))
	require.Equal(t, exitFail, code, stdout+stderr)
	var doc runJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, "no-send-process", doc.Impl)
	assert.Equal(t, sim.RegimeStep, doc.Process["regime"])
	require.Len(t, doc.Results, 1)
	assert.Equal(t, "fail", doc.Results[0].Levels["L0"])
	run := filepath.Join(out, "l0-respond", "run-1")
	for _, name := range []string{"run.jsonl", "verdict.json", sim.StdoutLog, sim.StderrLog, "sandbox/drafts.jsonl"} {
		assert.FileExists(t, filepath.Join(run, name))
	}
}

func TestBadProcessFlags(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unclosed quote", []string{"--impl-cmd", `serve "x`}, "unclosed"},
		{"no such program", []string{"--impl-cmd", "amr-no-such-program-here"}, "not found"},
		{"unknown regime", []string{"--impl-cmd", "true", "--regime", "sometimes"}, "unknown regime"},
		{"window past timeout", []string{"--impl-cmd", "true", "--window", "3s"}, "shorter than the timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := execAMR(t, append([]string{"run"}, c.args...)...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, c.msg)
		})
	}
	_, stderr, code := execAMR(t, "serve-impl", "nobody")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "unknown implementation")
}

// python finds the real interpreter: version managers put a shell script
// in front of it that costs a second per start.
func python(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python responder is not tested")
	}
	out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
	if err == nil && strings.TrimSpace(string(out)) != "" {
		py = strings.TrimSpace(string(out))
	}
	return py
}

func TestPythonResponder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	impl := sim.JoinCommand([]string{python(t), filepath.Join("..", "..", "examples", "python", "responder.py")})
	bundles := []string{scenario("l2-govern")}
	runs := "1"
	if os.Getenv("AMR_PROCESS_SWEEP") != "" {
		bundles = []string{scenario("l0-respond"), scenario("l1-anchor-collision"), scenario("l1-crash-after-send"),
			scenario("l1-multiturn-crash"), scenario("l2-approval-redelivery"), scenario("l2-govern"),
			scenario("l2-tick-jump-intake")}
		runs = "5"
	}
	stdout, stderr, code := execAMR(t, append([]string{"run", "--impl-cmd", impl, "--regime", "step", "--runs", runs}, bundles...)...)
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "0 failed")
}

// amr replay --cut-from replays a process run: its seed, and each crash
// inside a tick killing at the write count that run recorded. Against a real
// process that is best effort (the process may write on before the signal
// lands), so this test checks what the command guarantees: the seed and the
// cuts taken from the run log, and each crash armed at its recorded count.
// That a replayed cut lands at the same write is shown with a writer whose
// writes are spaced apart, in sim (TestReplayedCutKillsAtTheRecordedWriteCount).
func TestReplayReproducesTheRecordedCut(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--no-freeze", "--runs", "2",
		"--out", out, scenario("l1-multiturn-crash"))
	require.Equal(t, exitOK, code, stdout+stderr)
	run := filepath.Join(out, "l1-multiturn-crash", "run-2")
	replayed := filepath.Join(t.TempDir(), "replay")
	stdout, stderr, code = execAMR(t, "replay", scenario("l1-multiturn-crash"), "--impl-cmd", impl, "--regime", "step",
		"--no-freeze", "--cut-from", run, "--out", replayed)
	require.Equal(t, exitOK, code, stdout+stderr)

	for _, name := range []string{sim.StdoutLog, sim.StderrLog} {
		assert.FileExists(t, filepath.Join(replayed, name), "a replay keeps the process's own output")
	}
	first, second := readLog(t, run), readLog(t, replayed)
	assert.Equal(t, *first[0].Start().Engine, *second[0].Start().Engine, "the engine seed of the run log")
	cuts := sim.CutsOf(first)
	require.NotEmpty(t, cuts)
	assert.Equal(t, sim.ProcessSpec{Cuts: cuts}.Params()["cuts"], second[0].Start().Params["cuts"], "the cuts of the run log")
	var a, b []sandbox.LogRecord
	for _, r := range first {
		if r.Kind == sandbox.LogCrash {
			a = append(a, r)
		}
	}
	for _, r := range second {
		if r.Kind == sandbox.LogCrash {
			b = append(b, r)
		}
	}
	require.Len(t, b, len(a))
	for i := range a {
		assert.Equal(t, a[i].Tick, b[i].Tick)
		assert.Equal(t, a[i].AfterWrites, b[i].AfterWrites, "crash %d keeps the fault's k", i)
		if a[i].AfterWrites > 0 && a[i].Written > a[i].AfterWrites {
			assert.Contains(t, b[i].Detail, fmt.Sprintf("at the replayed cut of %d writes", a[i].Written), "crash %d", i)
		}
	}

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--cut-from", run}, "needs --impl-cmd"},
		{[]string{"--impl-cmd", impl, "--cut-from", run, "--seed", "3"}, "--seed does not apply"},
		{[]string{"--impl-cmd", impl, "--cut-from", filepath.Join(run, "nothing.jsonl")}, "no such file"},
	} {
		_, stderr, code := execAMR(t, append([]string{"replay", scenario("l1-multiturn-crash")}, c.args...)...)
		assert.Equal(t, exitBad, code, c.args)
		assert.Contains(t, stderr, c.msg)
	}
	_, stderr, code = execAMR(t, "replay", scenario("l0-respond"), "--impl-cmd", impl, "--cut-from", run)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "another bundle")
}

func readLog(t *testing.T, dir string) []sandbox.LogRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, sandbox.RunLogFile))
	require.NoError(t, err)
	log, err := sandbox.ParseRunLog(data)
	require.NoError(t, err)
	require.NotEmpty(t, log)
	return log
}

// amr fuzz against a process: the counterexample is found, shrunk with the
// process as the implementation under test, and written with the process's
// own output; the printed replay reproduces the shrunk run.
func TestFuzzFindsAndShrinksAProcess(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "weak-send-per-approval")
	// The replay below fails without --out, so its run directory is left
	// for reading: under the test's own TMPDIR, it goes with the test.
	t.Setenv("TMPDIR", t.TempDir())
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := execAMR(t, "fuzz", "--impl-cmd", impl, "--regime", "step", "--seed", "1", "--runs", "60",
		"--workers", "1", "--no-corpus", "--out", out, "--json")
	require.Equal(t, exitFail, code, stderr)
	var doc struct {
		Counterexample struct {
			Invariants []string `json:"invariants"`
			Shrunk     struct {
				Invariant string `json:"invariant"`
				Error     string `json:"error"`
				Replay    string `json:"replay"`
				Stats     struct {
					EventsBefore int `json:"events_before"`
					EventsAfter  int `json:"events_after"`
				} `json:"stats"`
			} `json:"shrunk"`
		} `json:"counterexample"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	s := doc.Counterexample.Shrunk
	require.Empty(t, s.Error)
	assert.Equal(t, doc.Counterexample.Invariants[0], s.Invariant)
	assert.Less(t, s.Stats.EventsAfter, s.Stats.EventsBefore)
	for _, sub := range []string{fuzz.RawDir, fuzz.ShrunkDir} {
		for _, name := range []string{"bundle.json", "run.jsonl", "verdict.json", sim.StdoutLog, sim.StderrLog} {
			assert.FileExists(t, filepath.Join(out, sub, name))
		}
	}
	args, err := sim.SplitCommand(strings.TrimPrefix(s.Replay, "amr "))
	require.NoError(t, err)
	rout, rerr, rcode := execAMR(t, args...)
	require.Equal(t, exitFail, rcode, rout+rerr)
	assert.Contains(t, rout, s.Invariant)
}

func TestImplAndImplCmdAreExclusive(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	_, stderr, code := execAMR(t, "run", "--impl", "weak-no-send", "--impl-cmd", impl, "--regime", "step",
		"--runs", "1", scenario("l0-respond"))
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "--impl and --impl-cmd are exclusive")
	_, stderr, code = execAMR(t, "run", "--name", "mine", "--runs", "1", scenario("l0-respond"))
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "--name names a process implementation")
}

func TestNameNamesAProcessInTablesAndJSON(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--name", "my-daemon", "--regime", "step",
		"--runs", "1", scenario("l0-respond"))
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "(impl my-daemon, 1 run(s) each)")
	stdout, _, code = execAMR(t, "run", "--impl-cmd", impl, "--name", "my-daemon", "--regime", "step",
		"--runs", "1", "--json", scenario("l0-respond"))
	require.Equal(t, exitOK, code)
	var doc runJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, "my-daemon", doc.Impl)
	assert.Equal(t, "my-daemon", doc.Results[0].Impl)
}

func TestConformProbesAProcess(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	decl := filepath.Join("..", "..", "examples", "submissions", "reference.json")
	stdout, stderr, code := execAMR(t, "conform", "--declaration", decl, "--impl-cmd", impl, "--regime", "step", "--runs", "1")
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "0 mismatch")
	assert.Contains(t, stdout, "(impl reference,")
	// A weak process under the reference's declaration is caught.
	weak := amrCmd(t, "serve-impl", "weak-no-send")
	stdout, stderr, code = execAMR(t, "conform", "--declaration", decl, "--impl-cmd", weak, "--name", "no-send",
		"--regime", "step", "--runs", "1")
	assert.Equal(t, exitFail, code, stdout+stderr)
	assert.Contains(t, stdout, "MISMATCH")
	assert.Contains(t, stdout, "(impl no-send,")
	_, stderr, code = execAMR(t, "conform", "--declaration", decl, "--impl", "reference", "--impl-cmd", impl)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "exclusive")
}

func TestRegressMeasuresAProcessAgainstItsRows(t *testing.T) {
	ref := amrCmd(t, "serve-impl", "reference")
	stdout, stderr, code := execAMR(t, "regress", "--runs", "1", "--impl-cmd", ref, "--name", "reference", "--regime", "step")
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "x 1 implementation(s)")
	assert.Contains(t, stdout, "no change")
	// The weak one held to the reference's rows regresses.
	weak := amrCmd(t, "serve-impl", "weak-no-send")
	stdout, stderr, code = execAMR(t, "regress", "--runs", "1", "--impl-cmd", weak, "--name", "reference", "--regime", "step")
	assert.Equal(t, exitFail, code, stdout+stderr)
	assert.Contains(t, stdout, "regression")
	// --update keeps every other implementation's rows.
	path := filepath.Join(t.TempDir(), "baseline.json")
	committed, err := os.ReadFile(filepath.Join("..", "..", "testdata", "baseline.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, committed, 0o644))
	stdout, stderr, code = execAMR(t, "regress", "--runs", "1", "--baseline", path, "--update", "--impl-cmd", weak,
		"--name", "my-daemon", "--regime", "step")
	require.Equal(t, exitOK, code, stdout+stderr)
	base, err := suite.ReadBaseline(path)
	require.NoError(t, err)
	before, err := suite.ReadBaseline(filepath.Join("..", "..", "testdata", "baseline.json"))
	require.NoError(t, err)
	mine := 0
	for _, r := range base.Results {
		if r.Impl == "my-daemon" {
			mine++
		}
	}
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	assert.Equal(t, len(pubs), mine, "one row per published scenario")
	assert.Len(t, base.Results, len(before.Results)+len(pubs))
}

// script writes an executable shell script into a test directory.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "impl.sh")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}

func TestAProcessThatCannotStartIsItsOwnOutcome(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	t.Setenv("TMPDIR", t.TempDir())
	dies := script(t, "echo 'fatal: cannot open config.toml' >&2\nexit 3\n")
	notExec := filepath.Join(t.TempDir(), "impl.sh")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	for _, c := range []struct {
		name, cmd, regime, want string
	}{
		{"typo", filepath.Join(t.TempDir(), "no-such-impl"), "step", "no such file or directory"},
		{"not executable", notExec, "step", "permission denied"},
		{"exits at once, step", dies, "step", "fatal: cannot open config.toml"},
		{"exits at once, quiescence", dies, "quiescence", "fatal: cannot open config.toml"},
		{"exits at once, once", dies, "once", "fatal: cannot open config.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, asJSON := range []bool{false, true} {
				args := []string{"run", "--impl-cmd", c.cmd, "--regime", c.regime, "--runs", "1", scenario("l0-respond")}
				if asJSON {
					args = append(args, "--json")
				}
				stdout, stderr, code := execAMR(t, args...)
				assert.Equal(t, exitBad, code, stdout+stderr)
				assert.Contains(t, stderr, "the implementation did not start: ")
				assert.Contains(t, stderr, c.want)
				assert.NotContains(t, stdout+stderr, "L0.reply", "never a level verdict")
			}
		})
	}
}

func TestAHungOneShotRunNeverPasses(t *testing.T) {
	ref := amrCmd(t, "serve-impl", "reference")
	t.Setenv("TMPDIR", t.TempDir())
	// Correct up to tick 20 (every reply of l0-respond is due by then),
	// then every invocation hangs.
	hangs := script(t, "if [ \"$AMR_TICK\" -ge 20 ]; then exec sleep 30; fi\nexec "+ref+"\n")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", hangs, "--regime", "once", "--timeout", "500ms",
		"--runs", "1", "--json", scenario("l0-respond"))
	require.Equal(t, exitFail, code, stdout+stderr)
	var doc runJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	require.Len(t, doc.Results, 1)
	rep := doc.Results[0]
	assert.Equal(t, "pass", rep.Levels["L0"], "the levels are judged as they are")
	assert.False(t, rep.Passed())
	assert.Equal(t, 1, rep.ProcessDown)
	run := rep.Runs[0]
	require.NotNil(t, run.Process)
	assert.True(t, run.Process.Hung)
	assert.Equal(t, "process", run.Class)
	assert.Equal(t, sim.ProcHung, run.Process.Down)
	// The table says so too.
	stdout, _, code = execAMR(t, "run", "--impl-cmd", hangs, "--regime", "once", "--timeout", "500ms",
		"--runs", "1", scenario("l0-respond"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "HUNG 1/1")
	assert.Contains(t, stdout, "0 passed, 1 failed")
	assert.Contains(t, stdout, "no crash fault came after it")
}

func TestProcessFactsArePerRunInJSON(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "2", "--json",
		scenario("l1-crash-after-send"))
	require.Equal(t, exitOK, code, stdout+stderr)
	var doc runJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	for _, run := range doc.Results[0].Runs {
		require.NotNil(t, run.Process)
		assert.Equal(t, "step", run.Process.Regime)
		assert.Equal(t, run.Crashes+1, run.Process.Instances)
		assert.Equal(t, run.Crashes, run.Process.Count(sim.ProcCrash))
		assert.Empty(t, run.Class, "a passing run has no failure class")
	}
	// In process there are no process facts.
	stdout, _, code = execAMR(t, "run", "--runs", "1", "--json", scenario("l0-respond"))
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stdout, `"process":`)
}

func TestOutKeepsTheWholeRunDirectory(t *testing.T) {
	ref := amrCmd(t, "serve-impl", "reference")
	t.Setenv("TMPDIR", t.TempDir())
	impl := script(t, "mkdir -p db && echo 'state of my own' > db/main.db && echo booting >> app.log\nexec "+ref+"\n")
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "1", "--out", out, scenario("l0-respond"))
	require.Equal(t, exitOK, code, stdout+stderr)
	run := filepath.Join(out, "l0-respond", "run-1")
	for _, name := range []string{"run-dir/sandbox/db/main.db", "run-dir/sandbox/app.log", "run-dir/sandbox/drafts.jsonl",
		"run-dir/" + sim.StderrLog, "run-dir/" + sim.StdoutLog, sim.StderrLog} {
		assert.FileExists(t, filepath.Join(run, name))
	}
	assert.NoFileExists(t, filepath.Join(run, "run-dir", sim.CutNote))
	assert.NotContains(t, stdout, "was cut")
	var rr suite.RunReport
	data, err := os.ReadFile(filepath.Join(run, "verdict.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rr))
	require.NotNil(t, rr.RunDir)
	assert.Equal(t, "run-dir", rr.RunDir.Dir)
	// A tight bound cuts the copy, and says so.
	out = filepath.Join(t.TempDir(), "out")
	stdout, stderr, code = execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "1", "--out", out,
		"--keep-bytes", "1KiB", scenario("l0-respond"))
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "the copy of its run directory was cut at 1024 bytes")
	note, err := os.ReadFile(filepath.Join(out, "l0-respond", "run-1", "run-dir", sim.CutNote))
	require.NoError(t, err)
	assert.Contains(t, string(note), "left out:")
}

func TestTheRunDirectoryBoundEndsTheImplementation(t *testing.T) {
	ref := amrCmd(t, "serve-impl", "reference")
	t.Setenv("TMPDIR", t.TempDir())
	// 4 MiB in files of 512 KiB in a subdirectory: no file past the
	// per-file bound, the directory past a 1 MiB one.
	fill := script(t, "mkdir -p cache && for i in 1 2 3 4 5 6 7 8; do head -c 524288 /dev/zero > cache/$i; done\nexec "+ref+"\n")
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", fill, "--regime", "step", "--runs", "1", "--max-run-dir", "1MiB",
		"--json", scenario("l0-respond"))
	require.Equal(t, exitFail, code, stdout+stderr)
	var doc runJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	run := doc.Results[0].Runs[0]
	require.NotNil(t, run.Process)
	assert.Equal(t, sim.ProcBound, run.Process.Down)
	assert.Equal(t, "process", run.Class)
	assert.Equal(t, "1048576", doc.Process["max_run_dir_bytes"])
	// The same implementation within the default bound passes.
	stdout, stderr, code = execAMR(t, "run", "--impl-cmd", fill, "--regime", "step", "--runs", "1", scenario("l0-respond"))
	require.Equal(t, exitOK, code, stdout+stderr)
	_, stderr, code = execAMR(t, "run", "--impl-cmd", fill, "--max-run-dir", "lots", scenario("l0-respond"))
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "is not a size")
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512KiB": 512 << 10, "64MiB": 64 << 20, "1G": 1 << 30, "3 MB": 3 << 20, "10B": 10} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "0", "-1", "lots", "1TiB", "1.5MiB"} {
		_, err := parseSize(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "64MiB", formatSize(64<<20))
	assert.Equal(t, "1000", formatSize(1000))
}

func TestProgressGoesToStderrOnly(t *testing.T) {
	args := []string{"run", "--runs", "2", scenario("l0-respond"), scenario("l2-govern")}
	quiet, quietErr, code := execAMR(t, args...)
	require.Equal(t, exitOK, code)
	assert.Empty(t, quietErr, "no progress when stderr is not a terminal and --progress is not given")
	loud, loudErr, code := execAMR(t, append(args, "--progress")...)
	require.Equal(t, exitOK, code)
	assert.Equal(t, quiet, loud, "stdout is the same with progress")
	for _, want := range []string{"l0-respond run 1/2: pass", "l0-respond run 2/2: pass", "l2-govern run 2/2: pass"} {
		assert.Contains(t, loudErr, want)
	}
	assert.NotContains(t, loudErr, "tick ", "no tick lines in process")
	asJSON, _, code := execAMR(t, append(args, "--progress", "--json")...)
	require.Equal(t, exitOK, code)
	var doc runJSON
	require.NoError(t, json.Unmarshal([]byte(asJSON), &doc), "--json output is JSON alone")
}

func TestProgressShowsTicksOfSlowRegimes(t *testing.T) {
	impl := amrCmd(t, "serve-impl", "reference")
	b := shortBundle(t, "l0-respond", 4)
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "once", "--runs", "1", "--progress", b)
	require.Equal(t, exitOK, code, stdout+stderr)
	for _, want := range []string{"l0-short run 1/1: tick 0/4", "l0-short run 1/1: tick 4/4", "l0-short run 1/1: pass"} {
		assert.Contains(t, stderr, want)
	}
	assert.NotContains(t, stdout, "tick 0/4")
	// The step regime is fast: a line per run only.
	_, stderr, code = execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "1", "--progress", b)
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stderr, "tick 0/4")
	assert.Contains(t, stderr, "l0-short run 1/1: pass")
}

// shortBundle copies a published scenario into a test directory under a
// new name, its horizon cut to horizon.
func shortBundle(t *testing.T, name string, horizon int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "l0-short")
	require.NoError(t, os.CopyFS(dir, os.DirFS(scenario(name))))
	path := filepath.Join(dir, "bundle.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	meta := doc["meta"].(map[string]any)
	meta["name"], meta["horizon"] = "l0-short", horizon
	data, err = json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return dir
}
