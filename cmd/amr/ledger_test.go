package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/play"
)

// A second run over an unchanged suite plays nothing; after one bundle
// changes, only its runs play again. The ledger verifies clean, and an
// edited byte is reported by position.
func TestRunWithLedger(t *testing.T) {
	dir := t.TempDir()
	a := publishedCopy(t, "l0-respond", dir)
	b := publishedCopy(t, "l2-approval-redelivery", dir)
	led := filepath.Join(dir, "ledger.jsonl")
	args := []string{"run", "--runs", "2", "--out", filepath.Join(dir, "out"), "--ledger", led, a, b}

	out, errOut, code := execAMR(t, args...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "4 receipt(s) appended, 0 run(s) skipped")
	assert.Contains(t, out, "artifact copies in "+filepath.Join(dir, "objects")+string(filepath.Separator))
	assert.DirExists(t, filepath.Join(dir, "objects"), "beside the ledger, where the run said")

	out, _, code = execAMR(t, args...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "4 receipt(s) appended, 4 run(s) skipped")

	meta := filepath.Join(a, "bundle.json")
	data, err := os.ReadFile(meta)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(meta, bytes.Replace(data, []byte(`"horizon": 30`), []byte(`"horizon": 31`), 1), 0o644))
	out, _, code = execAMR(t, args...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "4 receipt(s) appended, 2 run(s) skipped", "only the changed bundle's runs play")

	out, _, code = execAMR(t, append(args, "--force")...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "4 receipt(s) appended, 0 run(s) skipped")

	out, _, code = execAMR(t, "ledger", "verify", led)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "16 receipt(s): 10 ran, 6 skipped")
	assert.Contains(t, out, "ok: every hash and every link verifies")

	ledgerData, err := os.ReadFile(led)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(ledgerData), "\n")
	lines[4] = strings.Replace(lines[4], `"run":1`, `"run":2`, 1)
	require.NoError(t, os.WriteFile(led, []byte(strings.Join(lines, "")), 0o644))
	out, _, code = execAMR(t, "ledger", "verify", led)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, out, "position 5")
	assert.Contains(t, out, "edited")

	_, _, code = execAMR(t, "ledger", "verify", filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, exitBad, code)
}

// When the two oracles disagree, amr run and amr check exit 3 and say
// INVALID.
func TestDisagreeingOraclesExitThree(t *testing.T) {
	dir := t.TempDir()
	b := publishedCopy(t, "l2-approval-redelivery", dir)
	out := filepath.Join(dir, "out")
	_, _, code := execAMR(t, "run", "--runs", "1", "--impl", "weak-send-per-approval", "--out", out, b)
	require.Equal(t, exitFail, code, "the real oracles agree: a plain fail")

	restore := play.WithOracles(func(in checker.Input) checker.Verdict {
		v := checker.Check(in)
		v.Violations = v.Violations[:0:0]
		return v
	}, nil)
	defer restore()
	stdout, stderr, code := execAMR(t, "run", "--runs", "1", "--impl", "weak-send-per-approval", b)
	assert.Equal(t, exitInvalid, code, stderr)
	assert.Contains(t, stdout, "INVALID l2-approval-redelivery run 1")
	assert.Contains(t, stderr, "oracles disagree")

	stdout, _, code = execAMR(t, "check", "--bundle", b, "--sandbox", filepath.Join(out, "l2-approval-redelivery", "run-1", "sandbox"))
	assert.Equal(t, exitInvalid, code)
	assert.Contains(t, stdout, "INVALID")
}

func TestConformCommand(t *testing.T) {
	decl := func(name string) string { return filepath.Join("..", "..", "examples", "submissions", name) }
	out, _, code := execAMR(t, "conform", "--runs", "1", "--declaration", decl("reference.json"))
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "44 match, 0 mismatch, 0 unverifiable")

	out, _, code = execAMR(t, "conform", "--runs", "1", "--declaration", decl("weak-ignore-escalation.json"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, out, "L4.send-after-escalation  present")
	assert.Contains(t, out, "MISMATCH")
	assert.Contains(t, out, "L4.send-after-escalation: declared present, but:")

	out, _, code = execAMR(t, "conform", "--runs", "1", "--declaration", decl("reference.json"), "--impl", "weak-no-send")
	assert.Equal(t, exitFail, code, "--impl overrides the declaration's implementation")
	assert.Contains(t, out, "impl weak-no-send")

	_, _, code = execAMR(t, "conform")
	assert.Equal(t, exitBad, code)
	_, _, code = execAMR(t, "conform", "--declaration", filepath.Join(t.TempDir(), "none.json"))
	assert.Equal(t, exitBad, code)
}
