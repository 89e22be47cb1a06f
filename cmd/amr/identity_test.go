package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/sim"
)

// writeScript writes a shell script that runs this binary as 'amr
// serve-impl NAME' and returns its path.
func writeScript(t *testing.T, path, helper, name string) {
	t.Helper()
	script := "#!/bin/sh\n# a responder: the built-in " + name + " as a process\nexec " + helper + " serve-impl " + name + "\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
}

// An interpreted implementation is its script, not its interpreter: after
// a passing receipt, the script is edited to break it, and the next run
// plays (and fails) instead of copying the pass forward.
func TestABrokenScriptIsNeverSkippedAsReceipted(t *testing.T) {
	helper := amrCmd(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "responder.sh")
	writeScript(t, script, helper, "reference")
	led := filepath.Join(dir, "ledger", "ledger.jsonl")
	args := []string{"run", "--impl-cmd", "sh " + script, "--regime", "step", "--runs", "1", "--ledger", led, scenario("l0-respond")}

	out, errOut, code := execAMR(t, args...)
	require.Equal(t, exitOK, code, out+errOut)
	out, errOut, code = execAMR(t, args...)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "1 run(s) skipped as already receipted", "an unchanged script is the same implementation")

	writeScript(t, script, helper, "weak-no-send")
	out, errOut, code = execAMR(t, args...)
	assert.Equal(t, exitFail, code, "the broken script is played and judged: "+out+errOut)
	assert.Contains(t, out, "0 run(s) skipped")
	assert.Contains(t, out, "L0.reply")
}

// The same with the Python responder, run by its interpreter.
func TestABrokenPythonResponderIsNeverSkipped(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "python", "responder.py"))
	require.NoError(t, err)
	script := filepath.Join(dir, "responder.py")
	require.NoError(t, os.WriteFile(script, src, 0o644))
	led := filepath.Join(dir, "ledger.jsonl")
	args := []string{"run", "--impl-cmd", sim.JoinCommand([]string{py, script}), "--regime", "step", "--runs", "1", "--ledger", led, scenario("l0-respond")}
	out, errOut, code := execAMR(t, args...)
	require.Equal(t, exitOK, code, out+errOut)

	// Break it: it never writes to the outbox.
	broken := strings.ReplaceAll(string(src), "outbox.jsonl", "nowhere.jsonl")
	require.NotEqual(t, string(src), broken, "the responder writes outbox.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(broken), 0o644))
	out, errOut, code = execAMR(t, args...)
	assert.Equal(t, exitFail, code, out+errOut)
	assert.Contains(t, out, "0 run(s) skipped")
}

// A command through sh -c names no file amr can hash: its identity is
// unknown, every run plays, and amr says so. A declared version makes it
// known, and then it is memoized.
func TestAnUnknownIdentityIsNeverSkipped(t *testing.T) {
	helper := amrCmd(t)
	dir := t.TempDir()
	led := filepath.Join(dir, "ledger.jsonl")
	cmdline := sim.JoinCommand([]string{"sh", "-c", helper + " serve-impl reference"})
	args := []string{"run", "--impl-cmd", cmdline, "--regime", "step", "--runs", "1", "--ledger", led, scenario("l0-respond")}
	for i := 0; i < 2; i++ {
		out, errOut, code := execAMR(t, args...)
		require.Equal(t, exitOK, code, out+errOut)
		assert.Contains(t, out, "0 run(s) skipped")
		assert.Contains(t, out, "is unknown (sh -c runs code")
	}
	declared := append(args, "--identity-version", "my-daemon 1.4.2")
	out, _, code := execAMR(t, declared...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "0 run(s) skipped")
	assert.NotContains(t, out, "is unknown")
	out, _, code = execAMR(t, declared...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "1 run(s) skipped", "a declared identity is memoized")
}

// A declared directory is part of the identity: a file changed in it makes
// the next run play.
func TestADeclaredDirectoryIsPartOfTheIdentity(t *testing.T) {
	helper := amrCmd(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib.txt"), []byte("v1\n"), 0o644))
	led := filepath.Join(dir, "ledger.jsonl")
	args := []string{"run", "--impl-cmd", helper + " serve-impl reference", "--regime", "step", "--runs", "1",
		"--ledger", led, "--identity-dir", src, scenario("l0-respond")}
	out, errOut, code := execAMR(t, args...)
	require.Equal(t, exitOK, code, out+errOut)
	out, _, _ = execAMR(t, args...)
	assert.Contains(t, out, "1 run(s) skipped")
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib.txt"), []byte("v2\n"), 0o644))
	out, _, _ = execAMR(t, args...)
	assert.Contains(t, out, "0 run(s) skipped")
}

func TestIdentityFlagsAreRefusedWhereTheyMeanNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no ledger", []string{"--impl-cmd", "true", "--identity-version", "1"}, "give --ledger"},
		{"built-in", []string{"--ledger", filepath.Join(t.TempDir(), "l.jsonl"), "--identity-version", "1"}, "process implementation"},
		{"no such directory", []string{"--impl-cmd", "true", "--ledger", filepath.Join(t.TempDir(), "l.jsonl"), "--identity-dir", "/no/such/dir"}, "not a readable directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := execAMR(t, append([]string{"run"}, c.args...)...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, c.msg)
		})
	}
}

// A receipt that says pass where the verdict it kept says fail, re-hashed
// and the chain re-linked after it: amr ledger verify reports it (exit 1),
// and amr run does not copy it forward.
func TestLedgerVerifyCatchesAConsistentLie(t *testing.T) {
	dir := t.TempDir()
	led := filepath.Join(dir, "ledger.jsonl")
	args := []string{"run", "--impl", "weak-no-send", "--runs", "1", "--ledger", led, scenario("l0-respond")}
	_, _, code := execAMR(t, args...)
	require.Equal(t, exitFail, code)

	data, err := os.ReadFile(led)
	require.NoError(t, err)
	var r ledger.Receipt
	require.NoError(t, json.Unmarshal(data, &r))
	require.Equal(t, "fail", r.Verdict.Levels["L0"])
	r.Verdict.Levels["L0"] = "pass"
	r.Verdict.Violations = []ledger.Violation{}
	r.ContentHash = ""
	canon, err := jcs.Marshal(r)
	require.NoError(t, err)
	r.ContentHash = ledger.Digest(canon)
	line, err := r.Line()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(led, line, 0o644))

	out, _, code := execAMR(t, "ledger", "verify", led)
	assert.Equal(t, exitFail, code, out)
	assert.Contains(t, out, "artifact-disagrees")
	assert.Contains(t, out, "verdict.json says L0 fail, the receipt pass")

	out, _, code = execAMR(t, args...)
	assert.Equal(t, exitFail, code, "the lie is not copied forward: the run plays and fails")
	assert.Contains(t, out, "0 run(s) skipped")
	assert.Contains(t, out, "1 ran receipt(s) fail verification and were not reused")
}
