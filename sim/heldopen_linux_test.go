//go:build linux

package sim

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A log held open reads what opening its path again reads, whatever the
// implementation did to the path between two reads: appended to it, renamed
// a file over it, removed it, put a link or a FIFO in its place, changed its
// mode. Only an unchanged file is read through the kept descriptor.
func TestHeldOpenReadsWhatAFreshOpenReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "outbox.jsonl")
	other := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("elsewhere\n"), 0o644))
	h := newHeldOpen()
	defer h.close()
	steps := []struct {
		name   string
		change func()
		kept   bool // read through the descriptor of the read before
	}{
		{"created", func() { require.NoError(t, os.WriteFile(path, []byte("a\n"), 0o644)) }, false},
		{"appended", func() { appendTo(t, path, "b\n") }, true},
		{"untouched", func() {}, true},
		{"renamed over", func() {
			require.NoError(t, os.WriteFile(path+".new", []byte("x\ny\nz\n"), 0o644))
			require.NoError(t, os.Rename(path+".new", path))
		}, false},
		{"chmod", func() { require.NoError(t, os.Chmod(path, 0o600)) }, false},
		{"truncated", func() { require.NoError(t, os.Truncate(path, 2)) }, true},
		{"removed", func() { require.NoError(t, os.Remove(path)) }, false},
		{"a symbolic link", func() { require.NoError(t, os.Symlink(other, path)) }, false},
		{"a FIFO", func() {
			require.NoError(t, os.Remove(path))
			require.NoError(t, syscall.Mkfifo(path, 0o644))
		}, false},
		{"a file again", func() {
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.WriteFile(path, []byte("again\n"), 0o644))
		}, false},
	}
	for _, off := range []int64{0, 2} {
		for _, s := range steps {
			before := h.opens
			s.change()
			got, gotSize, gotErr := h.read(path, off, 1<<20)
			want, wantSize, wantErr := readRegular(path, off, 1<<20)
			assert.Equal(t, string(want), string(got), "%s (from %d)", s.name, off)
			assert.Equal(t, wantSize, gotSize, "%s (from %d)", s.name, off)
			assert.Equal(t, wantErr == nil, gotErr == nil, "%s (from %d): %v against %v", s.name, off, gotErr, wantErr)
			if wantErr != nil {
				assert.Equal(t, wantErr.Error(), gotErr.Error(), s.name)
				assert.Equal(t, -1, h.fd, "%s: nothing kept after a failed open", s.name)
				continue
			}
			assert.Equal(t, s.kept, h.opens == before, "%s (from %d): kept descriptor", s.name, off)
		}
		require.NoError(t, os.Remove(path))
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// BenchmarkLogLook is one look at a log of 20 lines that did not change:
// opening the path each time, against the descriptor held open.
//
//	go test ./sim -run '^$' -bench LogLook -count 8
func BenchmarkLogLook(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	line := `{"ts":"t1","kind":"admitted","message_id":"m1","work_id":"w-1"}` + "\n"
	data := []byte{}
	for range 20 {
		data = append(data, line...)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := readRegular(path, 0, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("held", func(b *testing.B) {
		h := newHeldOpen()
		defer h.close()
		for b.Loop() {
			if _, _, err := h.read(path, 0, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
}
