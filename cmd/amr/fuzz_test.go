package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

func TestFuzzFindsWritesAndReplaysACounterexample(t *testing.T) {
	dir := t.TempDir()
	out, corpus := filepath.Join(dir, "out"), filepath.Join(dir, "corpus")
	stdout, stderr, code := execAMR(t, "fuzz", "--impl", "weak-no-send", "--seed", "3", "--runs", "200",
		"--out", out, "--corpus", corpus)
	require.Equal(t, exitFail, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "seed: campaign=3\namr fuzz: impl weak-no-send, profile default, 200 runs"), stdout)
	assert.Contains(t, stdout, "counterexample: run ")
	assert.Regexp(t, `violated: .*L0\.reply`, stdout)
	assert.Contains(t, stdout, "profile: preset=default")
	// The run as found and its shrunk form are both written, each with
	// everything needed to read and replay it.
	for _, sub := range []string{fuzz.RawDir, fuzz.ShrunkDir} {
		for _, name := range []string{"bundle.json", "bundle/inbox.jsonl", "sandbox/drafts.jsonl", "run.jsonl",
			"history.jsonl", "verdict.json", "profile.json"} {
			assert.FileExists(t, filepath.Join(out, sub, name))
		}
	}
	assert.FileExists(t, filepath.Join(out, fuzz.ShrunkDir, "shrink.json"))
	assert.Regexp(t, `as found: \d+ events`, stdout)
	assert.Regexp(t, `shrunk: +\d+ events, horizon \d+ \(\d+ oracle calls`, stdout)
	kept, err := filepath.Glob(filepath.Join(corpus, "*.json"))
	require.NoError(t, err)
	require.Len(t, kept, 1)
	keptBundle, _, err := scenarios.Load(kept[0])
	require.NoError(t, err)
	assert.Equal(t, "shrunk", keptBundle.Meta.Origin.Kind, "the corpus keeps the shrunk bundle")

	// The printed command replays the shrunk run exactly.
	m := regexp.MustCompile(`replay: +amr (run .*)`).FindStringSubmatch(stdout)
	require.NotNil(t, m)
	args := strings.Fields(m[1])
	assert.Contains(t, m[1], "--runs 1 --seed ")
	assert.Contains(t, m[1], filepath.Join(out, fuzz.ShrunkDir, "bundle.json"))
	rout, rerr, rcode := execAMR(t, args...)
	require.Equal(t, exitFail, rcode, rerr)
	assert.Contains(t, rout, "L0.reply")

	var verdict struct {
		Violations []struct {
			Invariant string `json:"invariant"`
		} `json:"violations"`
		Invalid bool `json:"invalid"`
	}
	for _, sub := range []string{fuzz.RawDir, fuzz.ShrunkDir} {
		data, err := os.ReadFile(filepath.Join(out, sub, "verdict.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &verdict))
		require.NotEmpty(t, verdict.Violations)
		assert.False(t, verdict.Invalid)
	}

	// The next campaign replays the kept bundle first and stops on it.
	stdout, _, code = execAMR(t, "fuzz", "--impl", "weak-no-send", "--seed", "4", "--runs", "200",
		"--out", out, "--corpus", corpus)
	require.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "1 replayed, 1 still fail(s), 0 fixed")
	assert.Contains(t, stdout, "still fails")

	// Against the reference the same bundle is fixed.
	stdout, _, code = execAMR(t, "fuzz", "--seed", "4", "--runs", "5", "--out", out, "--corpus", corpus)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "1 replayed, 0 still fail(s), 1 fixed")
}

type fuzzDoc struct {
	Impl        string         `json:"impl"`
	Campaign    string         `json:"campaign_seed"`
	Runs        int            `json:"runs"`
	FailedRuns  int            `json:"failed_runs"`
	InvalidRuns int            `json:"invalid_runs"`
	Found       map[string]int `json:"found"`
	Outcome     string         `json:"outcome"`
	Shard       string         `json:"shard"`
	Coverage    []struct {
		Name string `json:"name"`
		Runs int    `json:"runs"`
	} `json:"coverage"`
	Counterexample *struct {
		Run        int      `json:"run"`
		Invariants []string `json:"invariants"`
		Replay     string   `json:"replay"`
		Shrunk     *struct {
			Invariant string `json:"invariant"`
			Error     string `json:"error"`
			Replay    string `json:"replay"`
			Timeline  string `json:"timeline"`
			Stats     struct {
				EventsBefore int `json:"events_before"`
				EventsAfter  int `json:"events_after"`
			} `json:"stats"`
		} `json:"shrunk"`
		Profile *struct {
			Preset string `json:"preset"`
		} `json:"profile"`
	} `json:"counterexample"`
	Reproduction  *fuzz.Reproduction `json:"reproduction"`
	NotReproduced *struct {
		Rate string `json:"rate"`
	} `json:"not_reproduced"`
}

func fuzzJSONRun(t *testing.T, wantCode int, args ...string) fuzzDoc {
	t.Helper()
	stdout, stderr, code := execAMR(t, append([]string{"fuzz", "--json", "--no-corpus"}, args...)...)
	require.Equal(t, wantCode, code, stderr)
	assert.Contains(t, stderr, "amr fuzz: impl", "the header goes to stderr with --json")
	var doc fuzzDoc
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	return doc
}

func TestFuzzJSONIsTheSameForAnyNumberOfWorkers(t *testing.T) {
	dir := t.TempDir()
	one := fuzzJSONRun(t, exitOK, "--seed", "9", "--runs", "40", "--workers", "1")
	three := fuzzJSONRun(t, exitOK, "--seed", "9", "--runs", "40", "--workers", "3", "--check-determinism")
	assert.Equal(t, "clean", one.Outcome)
	assert.Equal(t, 40, one.Runs)
	assert.Equal(t, one.Coverage, three.Coverage)
	assert.NotEmpty(t, one.Coverage)

	weak := fuzzJSONRun(t, exitFail, "--impl", "weak-send-per-approval", "--seed", "9", "--runs", "300", "--out", dir)
	require.NotNil(t, weak.Counterexample)
	assert.Equal(t, "counterexample", weak.Outcome)
	assert.Equal(t, weak.Counterexample.Run+1, weak.Runs)
	require.NotNil(t, weak.Counterexample.Profile)
	assert.Equal(t, "default", weak.Counterexample.Profile.Preset)
	assert.Contains(t, weak.Counterexample.Replay, "amr run --impl weak-send-per-approval --runs 1 --seed ")

	var parts int
	for i := range 2 {
		part := fuzzJSONRun(t, exitOK, "--seed", "9", "--runs", "40", "--shard", []string{"0/2", "1/2"}[i])
		parts += part.Runs
	}
	assert.Equal(t, 40, parts)
}

func TestFuzzNoShrinkKeepsOnlyTheRunAsFound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	doc := fuzzJSONRun(t, exitFail, "--impl", "weak-no-send", "--seed", "3", "--runs", "200", "--out", out, "--no-shrink")
	require.NotNil(t, doc.Counterexample)
	assert.Nil(t, doc.Counterexample.Shrunk)
	assert.FileExists(t, filepath.Join(out, fuzz.RawDir, "bundle.json"))
	assert.NoDirExists(t, filepath.Join(out, fuzz.ShrunkDir))
}

func TestFuzzJSONReportsTheShrink(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	doc := fuzzJSONRun(t, exitFail, "--impl", "weak-send-per-approval", "--seed", "9", "--runs", "300", "--out", out)
	require.NotNil(t, doc.Counterexample)
	s := doc.Counterexample.Shrunk
	require.NotNil(t, s)
	assert.Empty(t, s.Error)
	assert.Equal(t, doc.Counterexample.Invariants[0], s.Invariant, "the shrink keeps the first violated invariant")
	assert.Less(t, s.Stats.EventsAfter, s.Stats.EventsBefore)
	assert.Contains(t, s.Replay, filepath.Join(out, fuzz.ShrunkDir, "bundle.json"))
	assert.Contains(t, s.Timeline, "amr replay ")
}

// TestFuzzMarksADisagreementOfTheOraclesInvalid doctors the level checker
// to forget every duplicate effect: the history checker still sees them, so
// the guard must stop the campaign with INVALID (exit 3) rather than report
// a pass or a fail.
func TestFuzzMarksADisagreementOfTheOraclesInvalid(t *testing.T) {
	restore := play.WithOracles(func(in checker.Input) checker.Verdict {
		v := checker.Check(in)
		kept := v.Violations[:0]
		for _, x := range v.Violations {
			if x.Invariant != "L1.duplicate-effect" {
				kept = append(kept, x)
			}
		}
		v.Violations = kept
		return v
	}, nil)
	defer restore()
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := execAMR(t, "fuzz", "--impl", "weak-send-per-approval", "--seed", "9", "--runs", "300",
		"--no-corpus", "--out", out)
	require.Equal(t, exitInvalid, code, stderr)
	assert.Contains(t, stdout, "INVALID: run ")
	assert.Contains(t, stdout, "duplicate")
	assert.Contains(t, stdout, ": invalid")
	assert.FileExists(t, filepath.Join(out, fuzz.InvalidDir, "bundle.json"))
	assert.FileExists(t, filepath.Join(out, fuzz.InvalidDir, "verdict.json"))
	assert.NoDirExists(t, filepath.Join(out, fuzz.RawDir))
}

func TestFuzzKeepGoingCountsEveryFailingRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	doc := fuzzJSONRun(t, exitFail, "--impl", "weak-send-per-approval", "--seed", "9", "--runs", "200", "--out", out,
		"--keep-going", "--no-shrink")
	assert.Equal(t, 200, doc.Runs)
	assert.Zero(t, doc.InvalidRuns)
	assert.Greater(t, doc.FailedRuns, 1)
	assert.NotEmpty(t, doc.Found)
	first := fuzzJSONRun(t, exitFail, "--impl", "weak-send-per-approval", "--seed", "9", "--runs", "200", "--out", out, "--no-shrink")
	assert.Equal(t, first.Counterexample.Run, doc.Counterexample.Run, "the counterexample is the first failing run either way")
	assert.Equal(t, 1, first.FailedRuns)
}

func TestFuzzRejectsBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--runs", "0"},
		{"--shard", "2/2"},
		{"--shard", "x"},
		{"--profile", "nope"},
		{"--impl", "no-such-impl"},
		{"--workers", "0"},
		{"--time", "-1s"},
		{"extra-arg"},
	} {
		_, stderr, code := execAMR(t, append([]string{"fuzz", "--no-corpus"}, args...)...)
		assert.Equal(t, exitBad, code, "%v: %s", args, stderr)
	}
}

func TestFuzzHelpTeachesWithExamples(t *testing.T) {
	stdout, _, code := execAMR(t, "fuzz", "--help")
	require.Equal(t, exitOK, code)
	for _, want := range []string{"amr fuzz --impl weak-send-before-record", "--shard", "Profile presets:", "crash", "Exit 0",
		fmt.Sprintf("%d times that for --impl-cmd", fuzz.ProcessWorkersPerCore)} {
		assert.Contains(t, stdout, want)
	}
}

// A process counterexample whose crashes cut the process inside a tick gets
// a second replay command that kills at the recorded write counts; one
// without such a cut does not.
func TestFuzzPrintsACutReplayForAProcessCutInsideATick(t *testing.T) {
	impl, err := lookupImpl("weak-no-send")
	require.NoError(t, err)
	var found *fuzz.Run
	for i := 0; found == nil && i < 50; i++ {
		r, err := fuzz.PlayGenerated(3, i, faults.DefaultPreset, impl, 0)
		require.NoError(t, err)
		if r.Failed() {
			found = r
		}
	}
	require.NotNil(t, found, "no failing run among the first 50 of campaign 3")
	proc := play.Impl{Name: "./my-daemon", Process: &sim.ProcessSpec{Command: []string{"./my-daemon"}, Regime: sim.RegimeStep}}
	pf := &processFlags{cmdline: "./my-daemon", regime: sim.RegimeStep, stepTimeout: sim.DefaultStepTimeout, hangLimit: sim.DefaultHangLimit}
	o := fuzzOptions{seed: 3, noShrink: true}
	cx := &fuzz.Counterexample{Run: found, Source: "generated"}

	var log []sandbox.LogRecord
	for _, r := range found.Result.Log {
		if r.Kind != sandbox.LogCrash || r.AfterWrites == 0 {
			log = append(log, r)
		}
	}
	found.Result.Log = log
	var w strings.Builder
	doc, _, err := reportCounterexample(newFuzzCmd(), &w, cx, proc, pf, o, t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, doc.ReplayCuts, "no crash cut this run inside a tick")

	found.Result.Log = append(found.Result.Log, sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: 2, AfterWrites: 2, Written: 3})
	w.Reset()
	dir := t.TempDir()
	doc, _, err = reportCounterexample(newFuzzCmd(), &w, cx, proc, pf, o, dir)
	require.NoError(t, err)
	want := "amr replay " + filepath.Join(dir, fuzz.RawDir, "bundle.json") + " --impl-cmd ./my-daemon --regime step --cut-from " + filepath.Join(dir, fuzz.RawDir)
	assert.Equal(t, want, doc.ReplayCuts)
	assert.Contains(t, w.String(), want)
}

// A failing run is replayed before it is reported; in process every replay
// fails again, and the document says so.
func TestFuzzReplaysTheFailingRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	doc := fuzzJSONRun(t, exitFail, "--impl", "weak-no-send", "--seed", "3", "--runs", "200", "--out", out, "--no-shrink", "--replays", "3")
	require.NotNil(t, doc.Reproduction)
	assert.Equal(t, fuzz.Reproduction{Status: fuzz.Reproduced, Replays: 3, Failed: 3}, *doc.Reproduction)
	assert.Nil(t, doc.NotReproduced)
	require.NotNil(t, doc.Counterexample)
}
