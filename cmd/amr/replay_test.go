package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/suite"
	"github.com/amr-bench/amr/timeline"
)

func TestReplayPrintsTheTimeline(t *testing.T) {
	stdout, stderr, code := execAMR(t, "replay", "../../scenarios/l4-operator-escalation", "--impl", "weak-ignore-escalation")
	require.Equal(t, exitFail, code, stderr)
	assert.Contains(t, stdout, "l4-operator-escalation  impl weak-ignore-escalation")
	assert.Contains(t, stdout, "OPERATOR_ESCALATION -> w-m1")
	assert.Contains(t, stdout, "violation  L4.send-after-escalation")

	again, _, _ := execAMR(t, "replay", "../../scenarios/l4-operator-escalation", "--impl", "weak-ignore-escalation")
	assert.Equal(t, stdout, again, "a replay is deterministic")

	stdout, stderr, code = execAMR(t, "replay", "../../scenarios/l4-operator-escalation")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "impl reference")
	assert.Contains(t, stdout, "no violations")
}

// The replay of amr run --runs 1 --seed N shows the run that amr run judged.
func TestReplayUsesTheSeedsOfRun(t *testing.T) {
	for _, seed := range []string{"", "7"} {
		args := []string{"run", "--runs", "1", "--json", "--impl", "weak-stale-state", "../../scenarios/l3-fleet-concurrent"}
		rargs := []string{"replay", "--json", "--impl", "weak-stale-state", "../../scenarios/l3-fleet-concurrent"}
		if seed != "" {
			args = append(args, "--seed", seed)
			rargs = append(rargs, "--seed", seed)
		}
		stdout, _, _ := execAMR(t, args...)
		var run runJSON
		require.NoError(t, json.Unmarshal([]byte(stdout), &run))
		stdout, _, _ = execAMR(t, rargs...)
		var tl timeline.Timeline
		require.NoError(t, json.Unmarshal([]byte(stdout), &tl))
		require.NotNil(t, tl.Engine)
		assert.Equal(t, run.Results[0].Runs[0].Seeds, tl.Seeds)
		assert.Equal(t, run.Results[0].Runs[0].Violations, tl.Violations)
	}
}

func TestReplayKeepsTheRun(t *testing.T) {
	dir := t.TempDir()
	shrunk := filepath.Join(dir, "shrunk")
	_, stderr, code := execAMR(t, "shrink", "../../scenarios/l1-crash-after-send", "--impl", "weak-send-before-record", "--out", shrunk)
	require.Equal(t, exitOK, code, stderr)

	out := filepath.Join(dir, "replay")
	// No --impl: a shrunk bundle replays against the implementation its
	// provenance names.
	stdout, stderr, code := execAMR(t, "replay", shrunk, "--out", out, "--refs")
	require.Equal(t, exitFail, code, stderr)
	assert.Contains(t, stdout, "impl weak-send-before-record")
	assert.Contains(t, stdout, "[outbox.jsonl:2]")
	for _, f := range []string{"sandbox/outbox.jsonl", "run.jsonl", "verdict.json", "timeline.txt", "timeline.json"} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	text, err := os.ReadFile(filepath.Join(out, "timeline.txt"))
	require.NoError(t, err)
	assert.Equal(t, stdout, string(text))
	var rr suite.RunReport
	data, err := os.ReadFile(filepath.Join(out, "verdict.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rr))
	assert.Equal(t, "fail", rr.Levels["L1"])

	// The kept sandbox judges the same with amr check.
	_, _, code = execAMR(t, "check", "--bundle", shrunk, "--sandbox", filepath.Join(out, "sandbox"))
	assert.Equal(t, exitFail, code)
}

func TestReplayRefusesBadInput(t *testing.T) {
	_, stderr, code := execAMR(t, "replay", "../../scenarios/l0-respond", "--impl", "nobody")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "unknown implementation")
	_, _, code = execAMR(t, "replay", filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, exitBad, code)
}
