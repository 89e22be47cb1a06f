package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runDirFixture makes a run directory as a process leaves one: the logs,
// the spec's files, a private database in a subdirectory, and a link.
func runDirFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, size := range map[string]int{
		StdoutLog: 10, StderrLog: 20, "sandbox/audit.jsonl": 100, "sandbox/private/db/state.db": 300,
		"sandbox/app.log": 50,
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("x", size)), 0o644))
	}
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(root, "sandbox", "link")))
	return root
}

func TestKeepRunDirCopiesEverything(t *testing.T) {
	res := &Result{Workdir: runDirFixture(t)}
	dst := filepath.Join(t.TempDir(), "run-dir")
	kept, err := res.KeepRunDir(dst, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, int64(480), kept.Bytes)
	assert.Equal(t, 5, kept.Files)
	assert.Empty(t, kept.Cut)
	assert.Equal(t, []string{"sandbox/link (a link, not followed)"}, kept.Left)
	data, err := os.ReadFile(filepath.Join(dst, "sandbox", "private", "db", "state.db"))
	require.NoError(t, err)
	assert.Len(t, data, 300)
	_, err = os.Lstat(filepath.Join(dst, "sandbox", "link"))
	assert.True(t, os.IsNotExist(err), "a link is never copied")
	note, err := os.ReadFile(filepath.Join(dst, CutNote))
	require.NoError(t, err)
	assert.Contains(t, string(note), "left out:  sandbox/link")
}

func TestKeepRunDirIsBoundedAndSaysSo(t *testing.T) {
	root := runDirFixture(t)
	require.NoError(t, os.Remove(filepath.Join(root, "sandbox", "link")))
	res := &Result{Workdir: root}
	dst := filepath.Join(t.TempDir(), "run-dir")
	kept, err := res.KeepRunDir(dst, 150)
	require.NoError(t, err)
	assert.Equal(t, int64(150), kept.Bytes)
	// The logs first, then the smallest files: app.log and audit.jsonl
	// fit, nothing of the database does.
	for _, name := range []string{StdoutLog, StderrLog, "sandbox/app.log"} {
		assert.FileExists(t, filepath.Join(dst, filepath.FromSlash(name)))
	}
	assert.Equal(t, []string{"sandbox/audit.jsonl (70 of 100 bytes)"}, kept.Cut)
	assert.Equal(t, []string{"sandbox/private/db/state.db (300 bytes)"}, kept.Left)
	note, err := os.ReadFile(filepath.Join(dst, CutNote))
	require.NoError(t, err)
	assert.Contains(t, string(note), "cut at its bound of 150 bytes")
	assert.Contains(t, string(note), "cut short: sandbox/audit.jsonl")

	// Within the bound there is no note.
	dst2 := filepath.Join(t.TempDir(), "run-dir")
	kept, err = res.KeepRunDir(dst2, 480)
	require.NoError(t, err)
	assert.Empty(t, kept.Cut)
	assert.Empty(t, kept.Left)
	assert.NoFileExists(t, filepath.Join(dst2, CutNote))
}

func TestKeepRunDirOfAnInProcessRunDoesNothing(t *testing.T) {
	kept, err := (&Result{}).KeepRunDir(t.TempDir(), 0)
	require.NoError(t, err)
	assert.Nil(t, kept)
}
