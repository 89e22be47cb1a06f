package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

// execAMR runs the CLI in-process and returns its output and exit code,
// mapping errors to codes the way main does.
func execAMR(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	code = exitOK
	if err != nil {
		code = exitBad
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		if err.Error() != "" {
			errOut.WriteString(err.Error() + "\n")
		}
	}
	return out.String(), errOut.String(), code
}

// publishedCopy copies a published scenario directory into dir.
func publishedCopy(t *testing.T, name, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, name)
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "scenarios", name))))
	return dst
}

func TestHashBothFormsAgree(t *testing.T) {
	dir := t.TempDir()
	asDir := publishedCopy(t, "l2-govern", dir)
	b, _, err := scenarios.Load(asDir)
	require.NoError(t, err)
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	asFile := filepath.Join(dir, "l2-govern.json")
	require.NoError(t, os.WriteFile(asFile, data, 0o644))

	stdout, stderr, code := execAMR(t, "hash", asDir, asFile)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}  `+regexp.QuoteMeta(asDir)+`$`, lines[0])
	assert.Regexp(t, `^sha256:[0-9a-f]{64}  `+regexp.QuoteMeta(asFile)+`$`, lines[1])
	assert.Equal(t, strings.Fields(lines[0])[0], strings.Fields(lines[1])[0])

	stdout, _, code = execAMR(t, "hash", "--json", asDir, asFile)
	require.Equal(t, exitOK, code)
	var rows []hashJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &rows))
	require.Len(t, rows, 2)
	assert.Equal(t, asDir, rows[0].Path)
	assert.Equal(t, rows[0].Hash, rows[1].Hash)
	assert.Equal(t, strings.Fields(lines[0])[0], rows[0].Hash)
}

func TestHashBadBundles(t *testing.T) {
	dir := t.TempDir()
	good := publishedCopy(t, "l0-respond", dir)
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte("{\n  \"format\": \"amr.bundle/v1\",\n  \"meta\": {\n"), 0o644))
	invalid := publishedCopy(t, "l1-anchor-collision", dir)
	text, err := os.ReadFile(filepath.Join(invalid, "bundle.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(invalid, "bundle.json"),
		[]byte(strings.Replace(string(text), `"top_level": 1`, `"top_level": 9`, 1)), 0o644))

	stdout, stderr, code := execAMR(t, "hash", good, broken, invalid)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stdout, good, "good bundles are still hashed")
	assert.NotContains(t, stdout, broken)
	assert.Contains(t, stderr, broken+":")
	assert.Regexp(t, regexp.QuoteMeta(filepath.Join(invalid, "bundle.json"))+`:7: meta.top_level`, stderr)

	_, _, code = execAMR(t, "hash")
	assert.Equal(t, exitBad, code, "no bundle is bad usage")
	_, stderr, code = execAMR(t, "hash", filepath.Join(dir, "absent"))
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "absent")
}
