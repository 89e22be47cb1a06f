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

// A downtime run's replay ends with what piled up while the implementation
// was down and when it was first acted on; two replays give the same bytes,
// as text and as JSON.
func TestReplayShowsWhatPiledUpInADowntime(t *testing.T) {
	args := []string{"replay", "../../scenarios/l4-downtime-escalation", "--impl", "weak-skip-old-signals", "--refs"}
	stdout, stderr, code := execAMR(t, args...)
	require.Equal(t, exitFail, code, stderr)
	assert.Contains(t, stdout, "downtime: crash at tick 2, down 8 tick(s), restart at tick 10; 3 item(s) piled up\n")
	assert.Regexp(t, `\n +4  signal +s1 +never: no record of the implementation acts on it\n`, stdout)
	assert.Regexp(t, `\n +5  deliver +m2 +tick 10, 5 tick\(s\) after it fired: admit m2 as w-m2 \(rule support\)  \[audit\.jsonl:\d+\]\n`, stdout)
	again, _, _ := execAMR(t, args...)
	assert.Equal(t, stdout, again)

	jargs := []string{"replay", "../../scenarios/l4-downtime-escalation", "--json"}
	j1, stderr, code := execAMR(t, jargs...)
	require.Equal(t, exitOK, code, stderr)
	j2, _, _ := execAMR(t, jargs...)
	assert.Equal(t, j1, j2)
	var tl timeline.Timeline
	require.NoError(t, json.Unmarshal([]byte(j1), &tl))
	require.Len(t, tl.Downtimes, 1)
	require.NotNil(t, tl.Downtimes[0].Restart)
	assert.Equal(t, 10, *tl.Downtimes[0].Restart)
	require.Len(t, tl.Downtimes[0].PiledUp, 3)
	s1 := tl.Downtimes[0].PiledUp[0]
	assert.Equal(t, "s1", s1.ID)
	require.NotNil(t, s1.ActedAt, "the reference reads the escalation at its restart")
	assert.Equal(t, 10, *s1.ActedAt)
}
