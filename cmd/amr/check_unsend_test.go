package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Only the run log shows what an implementation wrote and took back: amr
// check says so when it has none, and with one it also catches a sandbox
// left shorter than the log counted.
func TestCheckSaysWhatItCannotSeeWithoutARunLog(t *testing.T) {
	dir := t.TempDir()
	b := publishedCopy(t, "l2-govern", dir)
	out := filepath.Join(dir, "out")
	_, _, code := execAMR(t, "run", "--runs", "1", "--impl", "weak-unsend", "--out", out, b)
	require.Equal(t, exitFail, code)
	box := filepath.Join(out, "l2-govern", "run-1", "sandbox")

	stdout, _, code := execAMR(t, "check", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitFail, code, stdout)
	assert.Contains(t, stdout, "L0.append-only")
	assert.NotContains(t, stdout, noLogNote)

	stdout, _, code = execAMR(t, "check", "--no-log", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitOK, code, "the files alone hide the sends taken back: %s", stdout)
	assert.Contains(t, stdout, noLogNote)

	stdout, _, _ = execAMR(t, "check", "--no-log", "--json", "--bundle", b, "--sandbox", box)
	var doc checkJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, []string{noLogNote}, doc.Notes)

	stdout, _, _ = execAMR(t, "check", "--json", "--bundle", b, "--sandbox", box)
	doc = checkJSON{}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, []string{}, doc.Notes)
}

func TestCheckCatchesASandboxShorterThanItsRunLog(t *testing.T) {
	b, box := keptRun(t, "l0-respond")
	_, _, code := execAMR(t, "check", "--bundle", b, "--sandbox", box)
	require.Equal(t, exitOK, code)

	require.NoError(t, os.WriteFile(filepath.Join(box, sandbox.Outbox), nil, 0o644))
	stdout, _, code := execAMR(t, "check", "--bundle", b, "--sandbox", box)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "L0.append-only")
}
