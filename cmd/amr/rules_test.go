package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// compactGovern is l2-govern as another tool would write it: rules.json as
// one compact line with no trailing newline, and its rules change given as
// the exact text to write, keys in another order. It returns the bundle's
// directory and the two texts.
func compactGovern(t *testing.T) (dir, initial, later string) {
	t.Helper()
	dir = publishedCopy(t, "l2-govern", t.TempDir())
	b, _, err := scenarios.Load(dir)
	require.NoError(t, err)
	data, err := json.Marshal(b.Rules)
	require.NoError(t, err)
	initial = string(data)
	require.NoError(t, os.WriteFile(filepath.Join(dir, scenarios.FileRules), data, 0o644))

	faults, err := os.ReadFile(filepath.Join(dir, scenarios.FileFaults))
	require.NoError(t, err)
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(faults)), "\n") {
		var f map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &f))
		if f["kind"] == scenarios.FaultRules {
			text, err := json.Marshal(f["rules"]) // a generic value: its keys sorted
			require.NoError(t, err)
			later = string(text)
			f["rules_json"] = later
			out, err := json.Marshal(f)
			require.NoError(t, err)
			line = string(out)
		}
		lines = append(lines, line)
	}
	require.NotEmpty(t, later, "l2-govern has a rules change")
	require.NoError(t, os.WriteFile(filepath.Join(dir, scenarios.FileFaults), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return dir, initial, later
}

// A bundle whose rules.json is compact one-line JSON runs through amr run
// with the reference and passes L2: the implementation hashes the bytes it
// is given, and the checker accepts exactly those, with the run log and
// without it. An audit that cites the hash of amr's re-encoding instead is
// L2.admission-record, both ways.
func TestCompactRulesBundleRunsAndChecks(t *testing.T) {
	dir, initial, later := compactGovern(t)
	b, _, err := scenarios.Load(dir)
	require.NoError(t, err)
	require.NotEqual(t, initial, string(scenarios.RulesBytes(b.Rules)))

	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := execAMR(t, "run", "--runs", "1", "--out", out, dir)
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "0 failed")

	run := filepath.Join(out, "l2-govern", "run-1")
	box := filepath.Join(run, "sandbox")
	final, err := os.ReadFile(filepath.Join(box, sandbox.Rules))
	require.NoError(t, err)
	assert.Equal(t, later, string(final), "the rules change wrote the fault's text unchanged")
	log := readLog(t, run)
	assert.Equal(t, scenarios.RulesHash([]byte(initial)), log[0].RulesHash, "the start record names the initial bytes")
	audit, err := os.ReadFile(filepath.Join(box, sandbox.Audit))
	require.NoError(t, err)
	for _, text := range []string{initial, later} {
		assert.Contains(t, string(audit), scenarios.RulesHash([]byte(text)), "admissions cite the bytes given")
	}

	_, _, code = execAMR(t, "check", "--bundle", dir, "--sandbox", box)
	assert.Equal(t, exitOK, code, "with the run log found beside the sandbox")
	_, _, code = execAMR(t, "check", "--no-log", "--bundle", dir, "--sandbox", box)
	assert.Equal(t, exitOK, code, "without a run log")

	// The same audit citing amr's re-encoding of the rules instead.
	reencoded := strings.ReplaceAll(string(audit), scenarios.RulesHash([]byte(initial)), scenarios.RulesHash(scenarios.RulesBytes(b.Rules)))
	require.NotEqual(t, string(audit), reencoded)
	require.NoError(t, os.WriteFile(filepath.Join(box, sandbox.Audit), []byte(reencoded), 0o644))
	for _, args := range [][]string{{"check", "--json"}, {"check", "--json", "--no-log"}} {
		stdout, _, code = execAMR(t, append(args, "--bundle", dir, "--sandbox", box)...)
		assert.Equal(t, exitFail, code, args)
		assert.Contains(t, stdout, `"L2.admission-record"`, args)
	}
}

// The Python responder hashes the rules.json bytes it reads, so it passes
// the compact bundle too.
func TestPythonResponderHashesTheBytesGiven(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	impl := sim.JoinCommand([]string{python(t), filepath.Join("..", "..", "examples", "python", "responder.py")})
	dir, _, _ := compactGovern(t)
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "1", dir)
	require.Equal(t, exitOK, code, stdout+stderr)
	assert.Contains(t, stdout, "0 failed")
}
