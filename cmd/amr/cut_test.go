package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A process run with a crash after k writes names how it was cut in its
// --json process facts; --no-trace makes it watch.
func TestAProcessRunNamesItsCut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	impl := amrCmd(t, "serve-impl", "reference")
	cuts := func(extra ...string) []string {
		args := append([]string{"run", "--impl-cmd", impl, "--regime", "step", "--runs", "1", "--json"}, extra...)
		stdout, stderr, code := execAMR(t, append(args, scenario("l1-crash-after-send"))...)
		require.Equal(t, exitOK, code, stdout+stderr)
		var doc struct {
			Results []struct {
				Runs []struct {
					Process struct {
						Cut string `json:"cut"`
					} `json:"process"`
				} `json:"runs"`
			} `json:"results"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
		var out []string
		for _, r := range doc.Results {
			for _, run := range r.Runs {
				out = append(out, run.Process.Cut)
			}
		}
		return out
	}
	watched := cuts("--no-trace")
	require.Len(t, watched, 1)
	assert.Equal(t, "watch: tracing turned off", watched[0])
	traced := cuts()
	require.Len(t, traced, 1)
	assert.True(t, traced[0] == "trace" || strings.HasPrefix(traced[0], "watch: "), traced[0])
}
