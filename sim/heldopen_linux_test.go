//go:build linux

package sim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
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

// A log read whole into the held buffer again and again is followed as it is
// with a fresh buffer at every read: every line added, changed in place,
// taken back or cut is found, and what the watch keeps of the log is not
// overwritten by the next read into the same buffer.
func TestAWholeReadIntoAHeldBufferFollowsTheLogAsAFreshRead(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, sandbox.Audit)
	seen := map[string]*appendLog{}
	for _, n := range sandbox.ImplLogs {
		seen[n] = &appendLog{}
	}
	type report struct {
		name string
		rw   rewrite
		how  string
	}
	var got []report
	w := newWatcher(root, 1<<20, seen, func(name string, rw *rewrite, how string) {
		got = append(got, report{name, *rw, how})
	})
	defer w.close()
	ref := &appendLog{}
	var want []report
	refWrites := 0
	steps := []struct {
		name   string
		change func()
	}{
		{"created", func() { require.NoError(t, os.WriteFile(path, []byte("a\nb\n"), 0o644)) }},
		{"untouched", func() {}},
		{"appended", func() { appendTo(t, path, "c\n") }},
		{"untouched again", func() {}},
		{"a line changed in place, same size", func() { require.NoError(t, os.WriteFile(path, []byte("a\nX\nc\n"), 0o644)) }},
		{"a partial line", func() { appendTo(t, path, "d") }},
		{"the partial line ended", func() { appendTo(t, path, "\n") }},
		{"untouched after the rewrite", func() {}},
		{"cut to its first line", func() { require.NoError(t, os.Truncate(path, 2)) }},
		{"longer than the buffer", func() {
			require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte("longer line\n"), 40), 0o644))
		}},
		{"shorter again", func() { require.NoError(t, os.WriteFile(path, []byte("e\n"), 0o644)) }},
		{"removed", func() { require.NoError(t, os.Remove(path)) }},
		{"back", func() { require.NoError(t, os.WriteFile(path, []byte("e\nf\n"), 0o644)) }},
	}
	var c *logWatch
	for _, lw := range w.logs {
		if lw.name == sandbox.Audit {
			c = lw
		}
	}
	require.NotNil(t, c)
	for _, s := range steps {
		s.change()
		w.verifyLog(sandbox.Audit)
		data, _, err := readRegular(path, 0, 1<<20)
		how := ""
		if err != nil {
			data, how = nil, "removed"
		}
		rw, n := ref.whole(data, false)
		refWrites += n
		if rw != nil {
			want = append(want, report{sandbox.Audit, *rw, how})
		}
		assert.Equal(t, want, got, s.name)
		assert.Equal(t, refWrites, w.writes, s.name)
		assert.Equal(t, string(ref.history()), string(c.seen.history()), s.name)
		assert.Equal(t, string(ref.lastLine()), string(c.seen.lastLine()), s.name)
		assert.Equal(t, ref.total, c.seen.total, s.name)
	}
}

// BenchmarkLookWholeUnchanged is the read of a 20-line log at a tick's end
// when it did not change: it keeps nothing, so it allocates nothing.
//
//	go test ./sim -run '^$' -bench LookWholeUnchanged -benchmem
func BenchmarkLookWholeUnchanged(b *testing.B) {
	root := b.TempDir()
	line := `{"ts":"t1","kind":"admitted","message_id":"m1","work_id":"w-1"}` + "\n"
	if err := os.WriteFile(filepath.Join(root, sandbox.Audit), bytes.Repeat([]byte(line), 20), 0o644); err != nil {
		b.Fatal(err)
	}
	seen := map[string]*appendLog{}
	for _, n := range sandbox.ImplLogs {
		seen[n] = &appendLog{}
	}
	w := newWatcher(root, 1<<20, seen, func(string, *rewrite, string) { b.Fatal("no rewrite") })
	defer w.close()
	w.verifyLog(sandbox.Audit)
	for b.Loop() {
		w.verifyLog(sandbox.Audit)
	}
}

// The harness's rename of its temporary file over one of its files fails
// with os.Rename's very error whatever the implementation put in the way (a
// run that ends on it prints it), and succeeds where os.Rename does.
func TestRenameOverFailsAsOsRenameDoes(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, from, to string)
	}{
		{"nothing in the way", func(t *testing.T, from, to string) {}},
		{"a file in the way", func(t *testing.T, from, to string) {
			require.NoError(t, os.WriteFile(to, []byte("old\n"), 0o644))
		}},
		{"a link in the way", func(t *testing.T, from, to string) {
			require.NoError(t, os.Symlink("/", to))
		}},
		{"an empty directory in the way", func(t *testing.T, from, to string) { require.NoError(t, os.Mkdir(to, 0o755)) }},
		{"a directory with a file in the way", func(t *testing.T, from, to string) {
			require.NoError(t, os.Mkdir(to, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(to, "f"), nil, 0o644))
		}},
		{"no temporary file", func(t *testing.T, from, to string) { require.NoError(t, os.Remove(from)) }},
		{"no temporary file, a directory in the way", func(t *testing.T, from, to string) {
			require.NoError(t, os.Remove(from))
			require.NoError(t, os.Mkdir(to, 0o755))
		}},
	}
	for _, c := range cases {
		var errs [2]error
		var after [2]string
		for i, rename := range []func(string, string) error{os.Rename, renameOver} {
			// The same paths both ways, as an error names them.
			dir := filepath.Join(t.TempDir(), "sandbox")
			require.NoError(t, os.Mkdir(dir, 0o755))
			from, to := filepath.Join(dir, ".amr-clock.tmp"), filepath.Join(dir, "clock")
			require.NoError(t, os.WriteFile(from, []byte(`{"tick":3}`+"\n"), 0o644))
			c.setup(t, from, to)
			errs[i] = rename(from, to)
			data, err := os.ReadFile(to)
			after[i] = string(data)
			if err != nil {
				after[i] = "unreadable"
			}
			if errs[i] != nil {
				errs[i] = errors.New(strings.ReplaceAll(errs[i].Error(), dir, "DIR"))
			}
		}
		assert.Equal(t, errs[0], errs[1], c.name)
		assert.Equal(t, after[0], after[1], c.name)
	}
}

// state.json, which the engine views at every tick's end, is viewed through
// a kept descriptor while it is unchanged, and every view is what a fresh
// open reads, whatever the implementation did to it; once the run is over
// nothing is kept open, and a view opens the path.
func TestStateIsViewedAsAFreshOpenReadsIt(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, sandbox.State)
	d := newDirFiles(root, 64)
	big := `{"pad":"` + strings.Repeat("x", 100) + `"}`
	steps := []struct {
		name   string
		change func()
		kept   bool
	}{
		{"missing", func() {}, false},
		{"written", func() { require.NoError(t, os.WriteFile(path, []byte(`{"a":1}`), 0o644)) }, false},
		{"unchanged", func() {}, true},
		{"renamed over", func() {
			require.NoError(t, os.WriteFile(path+".new", []byte(`{"a":2}`), 0o644))
			require.NoError(t, os.Rename(path+".new", path))
		}, false},
		{"unchanged again", func() {}, true},
		{"changed in place", func() { require.NoError(t, os.WriteFile(path, []byte(`{"a":3}`), 0o644)) }, true},
		{"past the bound", func() { require.NoError(t, os.WriteFile(path, []byte(big), 0o644)) }, true},
		{"a link", func() {
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.Symlink("/etc/hostname", path))
		}, false},
		{"a FIFO", func() {
			require.NoError(t, os.Remove(path))
			require.NoError(t, syscall.Mkfifo(path, 0o644))
		}, false},
		{"a file again", func() {
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.WriteFile(path, []byte(`{"b":1}`), 0o644))
		}, false},
		{"removed", func() { require.NoError(t, os.Remove(path)) }, false},
	}
	for _, s := range steps {
		before := d.state.opens
		s.change()
		got := d.View(sandbox.State)
		gotData, gotFull, gotErr := d.viewState()
		want, wantFull, wantErr := readBounded(path, 64)
		assert.Equal(t, want, got, s.name)
		assert.Equal(t, want, gotData, s.name)
		assert.Equal(t, wantFull, gotFull, s.name)
		assert.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), s.name)
		if wantErr == nil && want != nil {
			assert.Equal(t, s.kept, d.state.opens == before, "%s: kept descriptor", s.name)
		}
	}
	require.NoError(t, os.WriteFile(path, []byte(`{"c":1}`), 0o644))
	assert.Equal(t, `{"c":1}`, string(d.View(sandbox.State)))
	require.GreaterOrEqual(t, d.state.fd, 0)
	d.close()
	assert.Equal(t, -1, d.state.fd, "closed at the run's end")
	require.NoError(t, os.WriteFile(path, []byte(`{"c":2}`), 0o644))
	assert.Equal(t, `{"c":2}`, string(d.View(sandbox.State)))
	assert.Equal(t, -1, d.state.fd, "nothing opened again once closed")
}
