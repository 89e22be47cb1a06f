package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// A stub log line that cannot be read is shown as a fixture defect, in text
// and in --json, and the draft citing the call on it does not fail L0.
func TestCheckShowsFixtureDefects(t *testing.T) {
	b, box := keptRun(t, "l0-respond")

	stdout, _, code := execAMR(t, "check", "--bundle", b, "--sandbox", box)
	require.Equal(t, exitOK, code, stdout)
	assert.NotContains(t, stdout, "FIXTURE DEFECT")

	calls := filepath.Join(box, sandbox.ModelCalls)
	data, err := os.ReadFile(calls)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	require.NotEmpty(t, lines)
	lines[0] = []byte(`{"call_id": truncated`)
	require.NoError(t, os.WriteFile(calls, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644))

	stdout, _, code = execAMR(t, "check", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitOK, code, stdout)
	assert.Contains(t, stdout, "FIXTURE DEFECTS: 1 (the harness's files are wrong, not the implementation)")
	assert.Contains(t, stdout, "model-calls.jsonl:1")
	assert.NotContains(t, stdout, "L0.draft-origin")

	stdout, _, code = execAMR(t, "check", "--json", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitOK, code, stdout)
	var doc checkJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	require.Len(t, doc.FixtureDefects, 1)
	assert.Equal(t, sandbox.ModelCalls, doc.FixtureDefects[0].File)
	assert.Equal(t, 1, doc.FixtureDefects[0].Line)
	assert.Empty(t, doc.Violations)

	// The same log well formed but without the call: the draft's origin
	// fails, and there is no defect to excuse it.
	lines[0] = []byte(`{"call_id":"someone-else"}`)
	require.NoError(t, os.WriteFile(calls, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644))
	stdout, _, code = execAMR(t, "check", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitFail, code, stdout)
	assert.Contains(t, stdout, "L0.draft-origin")
	assert.NotContains(t, stdout, "FIXTURE DEFECT")
}

// A sandbox file or run log past --max-file-bytes is refused whole, with
// the file and the flag named; with the bound raised the same sandbox is
// judged as before.
func TestCheckBoundsFileSize(t *testing.T) {
	b, box := keptRun(t, "l0-respond")
	audit, err := os.Stat(filepath.Join(box, sandbox.Audit))
	require.NoError(t, err)
	runLog, err := os.Stat(filepath.Join(filepath.Dir(box), sandbox.RunLogFile))
	require.NoError(t, err)

	small := strconv.FormatInt(audit.Size()-1, 10)
	_, stderr, code := execAMR(t, "check", "--max-file-bytes", small, "--no-log", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "file too large")
	assert.Contains(t, stderr, "--max-file-bytes")

	// Every sandbox file fits, the run log does not.
	var most int64
	entries, err := os.ReadDir(box)
	require.NoError(t, err)
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		most = max(most, info.Size())
	}
	require.Less(t, most, runLog.Size(), "the run log is the largest file")
	_, stderr, code = execAMR(t, "check", "--max-file-bytes", strconv.FormatInt(most, 10), "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, sandbox.RunLogFile)
	assert.Contains(t, stderr, "--max-file-bytes")

	stdout, _, code := execAMR(t, "check", "--max-file-bytes", strconv.FormatInt(runLog.Size(), 10), "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitOK, code, stdout)
	def, _, code := execAMR(t, "check", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, def, stdout)

	_, stderr, code = execAMR(t, "check", "--max-file-bytes", "0", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "--max-file-bytes must be a positive number")
}

// keptRun plays one run of a copy of a published scenario with --out and
// returns the copy's path and the kept run's sandbox.
func keptRun(t *testing.T, name string) (bundle, box string) {
	t.Helper()
	dir := t.TempDir()
	bundle = publishedCopy(t, name, dir)
	out := filepath.Join(dir, "out")
	_, _, code := execAMR(t, "run", "--runs", "1", "--out", out, bundle)
	require.Equal(t, exitOK, code)
	return bundle, filepath.Join(out, name, "run-1", "sandbox")
}
