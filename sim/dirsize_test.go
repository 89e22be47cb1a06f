package sim

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sizedTree makes a run directory with files at several depths, an empty
// directory, links to a file and to a directory (never followed) and a
// FIFO, and returns the bytes of its regular files.
func sizedTree(t testing.TB) (string, int64) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(outside, make([]byte, 1<<16), 0o644))
	files := map[string]int{"stdout.log": 10, "sandbox/drafts.jsonl": 300, "sandbox/private/db": 4000,
		"sandbox/private/a/b/c": 7, "sandbox/.amr-tmp/write-1": 0}
	var total int64
	for name, n := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644))
		total += int64(n)
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "sandbox", "empty"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "sandbox", "link")))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(root, "sandbox", "dirlink")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "sandbox", "fifo"), 0o644))
	return root, total
}

// The run directory's measure counts the same bytes and entries however it
// is taken, and stops past either bound.
func TestDirSizeIsTheWalksMeasure(t *testing.T) {
	root, total := sizedTree(t)
	size, entries := dirSize(root, 1<<30)
	wsize, wentries := walkSize(root, 1<<30)
	assert.Equal(t, total, size, "links are not followed, a FIFO has no bytes")
	assert.Equal(t, wsize, size)
	assert.Equal(t, wentries, entries)
	assert.Equal(t, 15, entries, "the root, 5 directories under it, 5 files, 2 links, a FIFO and the empty directory")

	size, _ = dirSize(root, total-1)
	assert.Greater(t, size, total-1, "past the byte bound")
	size, _ = dirSize(root, total)
	assert.Equal(t, total, size, "at the bound is within it")
}

func TestDirSizeStopsPastTheEntryBound(t *testing.T) {
	root, err := os.MkdirTemp(DefaultTempDir(), "amr-entries-*")
	require.NoError(t, err)
	defer os.RemoveAll(root)
	for i := 0; i <= maxRunDirEntries; i++ {
		f, err := os.Create(filepath.Join(root, "f"+strconv.Itoa(i)))
		require.NoError(t, err)
		f.Close()
	}
	_, entries := dirSize(root, 1<<30)
	assert.Greater(t, entries, maxRunDirEntries)
}

// BenchmarkDirSize is the measure of a run directory taken at the end of
// every tick, against a walk by path.
func BenchmarkDirSize(b *testing.B) {
	root, _ := sizedTree(b)
	b.Run("dirSize", func(b *testing.B) {
		for b.Loop() {
			dirSize(root, 1<<30)
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkSize(root, 1<<30)
		}
	})
}
