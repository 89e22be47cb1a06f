package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A process that asks the stub for what it does not honour, and sends it a
// request it refuses, gets both counted in the report: in the table's
// footer and in --json.
const askingProcess = `import json, os, sys, urllib.request, urllib.error
base = os.environ["OPENAI_BASE_URL"]
def post(body):
    req = urllib.request.Request(base + "/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req).read()
    except urllib.error.HTTPError:
        pass
for line in sys.stdin:
    if line.strip() == "tick 1":
        post({"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.3, "n": 2})
        post({"model": "m", "messages": []})
    print("idle " + line[5:].strip(), flush=True)
`

func TestRunCountsWhatTheStubRefusedAndIgnored(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	script := filepath.Join(t.TempDir(), "ask.py")
	require.NoError(t, os.WriteFile(script, []byte(askingProcess), 0o644))
	t.Setenv("TMPDIR", t.TempDir())
	impl := sim.JoinCommand([]string{py, script})
	stdout, stderr, code := execAMR(t, "run", "--impl-cmd", impl, "--regime", "step", "--runs", "2", scenario("l0-respond"))
	require.Equal(t, exitFail, code, stdout+stderr)
	assert.Contains(t, stdout, "stub model, l0-respond: 2 request(s) refused; not honoured: n (2 call(s)), temperature (2 call(s))")

	stdout, stderr, _ = execAMR(t, "run", "--json", "--impl-cmd", impl, "--regime", "step", "--runs", "1", scenario("l0-respond"))
	var doc struct {
		Results []struct {
			Model *sandbox.ModelCallStats `json:"model_calls"`
			Runs  []struct {
				Model *sandbox.ModelCallStats `json:"model_calls"`
			} `json:"runs"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout+stderr)
	want := &sandbox.ModelCallStats{Calls: 1, Rejected: 1, Ignored: map[string]int{"n": 1, "temperature": 1}}
	assert.Equal(t, want, doc.Results[0].Model)
	assert.Equal(t, want, doc.Results[0].Runs[0].Model)

	// The reference asks for nothing the stub ignores: no line, no field.
	stdout, _, code = execAMR(t, "run", "--runs", "1", scenario("l0-respond"))
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stdout, "stub model")
}
