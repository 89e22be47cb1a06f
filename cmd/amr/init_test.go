package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scaffold"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
)

// initAndRun writes a skeleton with amr init, builds it if it must be
// built, and runs the published suite against it in the step regime: the
// skeleton a team starts from is green.
func initAndRun(t *testing.T, lang string, interpreter string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process implementations run on Linux only")
	}
	dir := filepath.Join(t.TempDir(), "my-responder")
	out, errOut, code := execAMR(t, "init", dir, "--lang", lang)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "wrote "+filepath.Join(dir, "README.md"))
	assert.Contains(t, out, "--regime step")

	s, ok := scaffold.Lookup(lang)
	require.True(t, ok)
	if len(s.Build) > 0 {
		build := exec.Command(s.Build[0], s.Build[1:]...)
		build.Dir = dir
		build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
		msg, err := build.CombinedOutput()
		require.NoError(t, err, "%s", msg)
	}
	words := append([]string(nil), s.Run...)
	if interpreter != "" {
		words[0] = interpreter
	}
	for i, w := range words {
		if i > 0 || strings.HasPrefix(w, "./") {
			words[i] = filepath.Join(dir, w)
		}
	}
	// The published suite: no BUNDLE argument. One run each keeps the test
	// short; the five-run figure is measured, not asserted.
	out, errOut, code = execAMR(t, "run", "--impl-cmd", sim.JoinCommand(words), "--regime", "step", "--runs", "1")
	require.Equal(t, exitOK, code, out+errOut)
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	assert.Contains(t, out, fmt.Sprintf("%d scenario(s): %d passed, 0 failed", len(pubs), len(pubs)))
}

func TestInitPythonPassesThePublishedSuite(t *testing.T) {
	initAndRun(t, "python", python(t))
}

func TestInitNodePassesThePublishedSuite(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("AMR_REQUIRE_CLIENTS") == "1" {
			t.Fatal("node is not installed, and AMR_REQUIRE_CLIENTS=1 requires it")
		}
		t.Skip("node is not installed: the Node skeleton is not tested")
	}
	initAndRun(t, "node", node)
}

func TestInitGoPassesThePublishedSuite(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the Go skeleton cannot be built")
	}
	initAndRun(t, "go", "")
}

// A directory that holds anything is refused (exit 2) and left as it was;
// an unknown language too, writing nothing.
func TestInitRefusesANonEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(mine, []byte("mine\n"), 0o644))
	_, errOut, code := execAMR(t, "init", dir, "--lang", "python")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, "is not empty")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written")

	fresh := filepath.Join(t.TempDir(), "new")
	_, errOut, code = execAMR(t, "init", fresh, "--lang", "cobol")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, "want one of go, node, python")
	assert.NoDirExists(t, fresh)

	_, errOut, code = execAMR(t, "init", mine, "--lang", "go")
	assert.Equal(t, exitBad, code)
	assert.Contains(t, errOut, "is not a directory")

	empty := t.TempDir()
	_, errOut, code = execAMR(t, "init", empty, "--lang", "go")
	assert.Equal(t, exitOK, code, errOut)
	assert.FileExists(t, filepath.Join(empty, "main.go"))
	assert.FileExists(t, filepath.Join(empty, "go.mod"))
}
