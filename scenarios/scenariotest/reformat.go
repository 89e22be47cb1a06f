package scenariotest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

// ReformatJSONFile rewrites a JSON file with sorted keys and tab
// indentation: the same content in other bytes.
func ReformatJSONFile(t testing.TB, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	out, err := json.MarshalIndent(v, "", "\t")
	require.NoError(t, err)
	require.NotEqual(t, string(data), string(out))
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// ReformatDir rewrites every file of a directory-form bundle with other
// whitespace and key order, except rules.json: its bytes are what the
// implementation is given, and part of the bundle.
func ReformatDir(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Name() == scenarios.FileRules:
		case strings.HasSuffix(e.Name(), ".json"):
			ReformatJSONFile(t, path)
		default:
			reformatLines(t, path)
		}
	}
}

// reformatLines rewrites a JSONL file with sorted keys, blank lines and
// stray whitespace around each record.
func reformatLines(t testing.TB, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var v any
		require.NoError(t, json.Unmarshal([]byte(line), &v))
		out, err := json.Marshal(v) // sorted keys, unlike the struct order
		require.NoError(t, err)
		lines = append(lines, " \t"+string(out)+"  ")
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n\n")+"\n"), 0o644))
}
