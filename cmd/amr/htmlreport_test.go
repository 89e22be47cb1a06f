package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReportWritesOnePage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "runs")
	_, stderr, code := execAMR(t, "run", "--impl", "weak-no-send", "--runs", "2", "--out", out, "../../scenarios/l0-respond")
	require.Equal(t, exitFail, code, stderr)

	page := filepath.Join(dir, "report.html")
	_, stderr, code = execAMR(t, "report", out, "-o", page)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "report written to "+page)
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(data), `data-invariant="L0.reply"`)

	stdout, stderr, code := execAMR(t, "report", out, "--json")
	require.Equal(t, exitOK, code, stderr)
	var p struct {
		Format     string `json:"format"`
		Scoreboard struct {
			Rows []struct {
				Impl  string `json:"impl"`
				Cells []struct {
					Status string `json:"status"`
				} `json:"cells"`
			} `json:"rows"`
		} `json:"scoreboard"`
		Runs []struct {
			Label string `json:"label"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.Equal(t, "amr.report/v1", p.Format)
	require.Len(t, p.Scoreboard.Rows, 1)
	assert.Equal(t, "fail", p.Scoreboard.Rows[0].Cells[0].Status)
	assert.Len(t, p.Runs, 2, "both runs failed: both are shown")

	over := filepath.Join(dir, "over.json")
	require.NoError(t, os.WriteFile(over, []byte(`{"format":"amr.classes/v1","classes":[{"impl":"weak-no-send","scenario":"l0-respond","level":"L0","class":"adapter"}]}`), 0o644))
	_, stderr, code = execAMR(t, "report", out, "--classes", over, "-o", page)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "classes[0].justification: required in an override file")

	_, stderr, code = execAMR(t, "report", dir, "-o", page)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "neither a report.json")
}

func TestReportDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	a, b, w := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "w")
	for _, args := range [][]string{
		{"replay", "../../scenarios/l0-respond", "--out", a},
		{"replay", "../../scenarios/l0-respond", "--out", b},
	} {
		_, stderr, code := execAMR(t, args...)
		require.Equal(t, exitOK, code, stderr)
	}
	_, _, code := execAMR(t, "replay", "../../scenarios/l0-respond", "--impl", "weak-no-send", "--out", w)
	require.Equal(t, exitFail, code)

	stdout, stderr, code := execAMR(t, "report", "diff", a, b)
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "the runs: identical")
	assert.Contains(t, stdout, "no difference")

	html := filepath.Join(dir, "diff.html")
	stdout, stderr, code = execAMR(t, "report", "diff", a, w, "-o", html)
	assert.Equal(t, exitFail, code, stderr)
	assert.Contains(t, stdout, "timeline: first differs at tick 2")
	assert.Contains(t, stdout, "sandbox/outbox.jsonl: line 1 (missing in B)")
	assert.FileExists(t, html)

	_, _, code = execAMR(t, "report", "diff", a, dir)
	assert.Equal(t, exitBad, code)
}

func TestReportNamesTheBoundItRefusesAt(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	_, stderr, code := execAMR(t, "replay", "../../scenarios/l0-respond", "--out", run)
	require.Equal(t, exitOK, code, stderr)
	page := filepath.Join(t.TempDir(), "report.html")
	_, stderr, code = execAMR(t, "report", run, "--max-file-bytes", "100", "-o", page)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "file too large")
	assert.Contains(t, stderr, "(raise the bound with --max-file-bytes)")
	_, stderr, code = execAMR(t, "report", "diff", run, run, "--max-file-bytes", "100")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "(raise the bound with --max-file-bytes)")
	_, stderr, code = execAMR(t, "report", run, "--max-file-bytes", "0", "-o", page)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "--max-file-bytes must be a positive number of bytes")
	_, stderr, code = execAMR(t, "report", run, "--max-file-bytes", "1000000", "-o", page)
	require.Equal(t, exitOK, code, stderr)
}
