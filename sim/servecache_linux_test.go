//go:build linux

package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

func cachedStore(t testing.TB, root string) *processStore {
	s := &processStore{dir: &sandbox.Dir{Root: root}, cache: newReadCache(root)}
	if s.cache.ino < 0 {
		t.Skip("the kernel will not watch the sandbox (inotify)")
	}
	t.Cleanup(s.cache.off)
	return s
}

func mustRead(t testing.TB, s *processStore, name string) []byte {
	t.Helper()
	data, err := s.Read(name)
	require.NoError(t, err)
	return data
}

// A file that did not change is read from disk once; a step that reads
// every file every time costs the process its system calls.
func TestAnUnchangedFileIsReadOnce(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, sandbox.Inbox), []byte("a\n"), 0o644))
	s := cachedStore(t, root)
	for range 5 {
		assert.Equal(t, "a\n", string(mustRead(t, s, sandbox.Inbox)))
	}
	assert.Equal(t, 1, s.cache.loads)
	assert.Nil(t, mustRead(t, s, sandbox.Outbox), "absent")
	assert.Nil(t, mustRead(t, s, sandbox.Outbox), "absent, from the cache")
	assert.Equal(t, 2, s.cache.loads)
}

// Every way another process changes a file is seen at the next read.
func TestAFileChangedOnDiskIsReadAgain(t *testing.T) {
	root := t.TempDir()
	path := func(n string) string { return filepath.Join(root, n) }
	s := cachedStore(t, root)
	steps := []struct {
		what   string
		change func()
		want   string
	}{
		{"created", func() { require.NoError(t, os.WriteFile(path(sandbox.Inbox), []byte("a\n"), 0o644)) }, "a\n"},
		{"appended to", func() {
			f, err := os.OpenFile(path(sandbox.Inbox), os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, _ = f.WriteString("b\n")
			require.NoError(t, f.Close())
		}, "a\nb\n"},
		{"rewritten in place, same size", func() {
			f, err := os.OpenFile(path(sandbox.Inbox), os.O_WRONLY, 0)
			require.NoError(t, err)
			_, _ = f.WriteAt([]byte("c"), 0)
			require.NoError(t, f.Close())
		}, "c\nb\n"},
		{"replaced by a rename", func() {
			require.NoError(t, os.WriteFile(path(".amr-inbox.tmp"), []byte("d\n"), 0o644))
			require.NoError(t, os.Rename(path(".amr-inbox.tmp"), path(sandbox.Inbox)))
		}, "d\n"},
		{"truncated", func() { require.NoError(t, os.Truncate(path(sandbox.Inbox), 0)) }, ""},
		{"removed", func() { require.NoError(t, os.Remove(path(sandbox.Inbox))) }, ""},
	}
	for _, st := range steps {
		mustRead(t, s, sandbox.Inbox) // cached before the change
		st.change()
		got := mustRead(t, s, sandbox.Inbox)
		assert.Equal(t, st.want, string(got), "after it was %s", st.what)
		if st.what == "removed" {
			assert.Nil(t, got, "a removed file reads as absent")
		} else {
			assert.NotNil(t, got, "a file present, even empty, is not absent (%s)", st.what)
		}
	}
}

// What the cache cannot watch is read every time: files in subdirectories
// and links, whose targets change where no watch sees.
func TestWhatIsNotWatchedIsReadEveryTime(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "private"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "private", "db"), []byte("1"), 0o644))
	target := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.WriteFile(target, []byte("x\n"), 0o644))
	require.NoError(t, os.Symlink(target, filepath.Join(root, sandbox.Outbox)))
	s := cachedStore(t, root)
	mustRead(t, s, "private/db")
	mustRead(t, s, sandbox.Outbox)
	require.NoError(t, os.WriteFile(filepath.Join(root, "private", "db"), []byte("2"), 0o644))
	require.NoError(t, os.WriteFile(target, []byte("y\n"), 0o644))
	assert.Equal(t, "2", string(mustRead(t, s, "private/db")))
	assert.Equal(t, "y\n", string(mustRead(t, s, sandbox.Outbox)))
	assert.Equal(t, 4, s.cache.loads)
}

// A sandbox directory moved away turns the cache off; reads go on, from
// disk.
func TestAMovedSandboxTurnsTheCacheOff(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sandbox")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, sandbox.Inbox), []byte("a\n"), 0o644))
	s := cachedStore(t, root)
	mustRead(t, s, sandbox.Inbox)
	require.NoError(t, os.Rename(root, root+"-old"))
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, sandbox.Inbox), []byte("b\n"), 0o644))
	assert.Equal(t, "b\n", string(mustRead(t, s, sandbox.Inbox)))
	assert.Less(t, s.cache.ino, 0, "off")
}

// Whatever happens to the files, by this process or another, a read
// returns what is on disk.
func TestACachedReadIsWhatIsOnDisk(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "amr-cache-*")
		require.NoError(rt, err)
		defer os.RemoveAll(root)
		s := &processStore{dir: &sandbox.Dir{Root: root}, cache: newReadCache(root)}
		defer s.cache.off()
		names := []string{sandbox.Inbox, sandbox.Drafts, sandbox.State, "private/notes"}
		for i, n := 0, rapid.IntRange(1, 30).Draw(rt, "ops"); i < n; i++ {
			name := rapid.SampledFrom(names).Draw(rt, "name")
			p := filepath.Join(root, filepath.FromSlash(name))
			text := rapid.StringMatching(`[a-c]{0,3}`).Draw(rt, "text")
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0: // another process replaces it
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = os.WriteFile(p, []byte(text), 0o644)
			case 1: // another process removes it
				_ = os.Remove(p)
			case 2: // this process appends through the store
				if name != sandbox.Inbox {
					require.NoError(rt, s.Append(name, []byte(text)))
				}
			case 3: // this process writes through the store
				if name != sandbox.Inbox {
					require.NoError(rt, s.Write(name, []byte(text)))
				}
			}
			got, err := s.Read(name)
			require.NoError(rt, err)
			want, err := os.ReadFile(p)
			if os.IsNotExist(err) {
				want = nil
			}
			require.Equal(rt, want, got, "%s", name)
		}
	})
}

// In a settled round the reports are taken in once, at its start: what
// changed before it is read again, this process's own writes are read
// back, and nothing else is looked for until the next round (D225).
func TestASettledRoundDrainsOnce(t *testing.T) {
	root := t.TempDir()
	inbox, state := filepath.Join(root, sandbox.Inbox), sandbox.State
	require.NoError(t, os.WriteFile(inbox, []byte("a\n"), 0o644))
	s := cachedStore(t, root)
	mustRead(t, s, sandbox.Inbox)
	require.NoError(t, os.WriteFile(inbox, []byte("b\n"), 0o644))
	s.cache.settle()
	assert.Equal(t, "b\n", string(mustRead(t, s, sandbox.Inbox)), "changed before the round")
	require.NoError(t, s.Write(state, []byte("1")))
	assert.Equal(t, "1", string(mustRead(t, s, state)), "its own write")
	require.NoError(t, os.WriteFile(inbox, []byte("c\n"), 0o644))
	assert.Equal(t, "b\n", string(mustRead(t, s, sandbox.Inbox)), "not looked for inside the round")
	s.cache.unsettle()
	assert.Equal(t, "c\n", string(mustRead(t, s, sandbox.Inbox)), "unsettled, every read looks")
}

// The quiescence regime never settles: the harness writes the tick's
// inputs while a round may be under way (the process held, then let go).
func TestOnlyTheStepAndOneShotRegimesSettle(t *testing.T) {
	root := t.TempDir()
	t.Setenv(EnvSandbox, root)
	for regime, want := range map[string]bool{RegimeStep: true, RegimeOnce: true, RegimeQuiescence: false} {
		s, err := newServer(nil, ServeConfig{Regime: regime}.withDefaults())
		require.NoError(t, err)
		assert.Equal(t, want, s.settle, regime)
		s.store.cache.off()
	}
}

// In a settled round this process's own writes are read back from what it
// wrote, with no load (D286), and every read is still what is on disk: the
// other side changes the sandbox only between rounds, as the harness does
// in the step and one-shot regimes. A write or an append the store refuses
// or fails leaves nothing kept.
func TestASettledRoundReadsItsOwnWritesAsOnDisk(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "amr-cache-*")
		require.NoError(rt, err)
		defer os.RemoveAll(root)
		s := &processStore{dir: &sandbox.Dir{Root: root, MaxFileBytes: 8}, cache: newReadCache(root)}
		defer s.cache.off()
		names := []string{sandbox.Inbox, sandbox.Drafts, sandbox.Audit, sandbox.State, "private/notes"}
		for r, rounds := 0, rapid.IntRange(1, 5).Draw(rt, "rounds"); r < rounds; r++ {
			// Between rounds, the other side's changes.
			for i, n := 0, rapid.IntRange(0, 3).Draw(rt, "outside"); i < n; i++ {
				p := filepath.Join(root, filepath.FromSlash(rapid.SampledFrom(names).Draw(rt, "name")))
				if rapid.Bool().Draw(rt, "remove") {
					_ = os.Remove(p)
				} else {
					_ = os.MkdirAll(filepath.Dir(p), 0o755)
					_ = os.WriteFile(p, []byte(rapid.StringMatching(`[a-c\n]{0,4}`).Draw(rt, "text")), 0o644)
				}
			}
			s.cache.settle()
			for i, n := 0, rapid.IntRange(1, 20).Draw(rt, "ops"); i < n; i++ {
				name := rapid.SampledFrom(names).Draw(rt, "name")
				text := []byte(rapid.StringMatching(`[a-c]{0,5}`).Draw(rt, "text"))
				switch rapid.IntRange(0, 2).Draw(rt, "op") {
				case 0:
					_ = s.Append(name, text) // refused for the harness's inbox
				case 1:
					_ = s.Write(name, text)
				}
				got, gotErr := s.Read(name)
				want, wantErr := (&sandbox.Dir{Root: root, MaxFileBytes: 8}).Read(name)
				require.Equal(rt, wantErr == nil, gotErr == nil, "%s: %v against %v", name, gotErr, wantErr)
				require.Equal(rt, want, got, "%s", name)
				require.Equal(rt, want == nil, got == nil, "%s: absent against empty", name)
			}
			s.cache.unsettle()
		}
	})
}

// The step after a write reads it back without a load; outside a settled
// round it is loaded, since another process may have changed it since.
func TestAnOwnWriteIsKeptOnlyInASettledRound(t *testing.T) {
	root := t.TempDir()
	s := cachedStore(t, root)
	s.cache.settle()
	require.NoError(t, s.Write(sandbox.State, []byte(`{"a":1}`)))
	require.NoError(t, s.Append(sandbox.Audit, []byte(`{"k":1}`)))
	assert.Equal(t, `{"a":1}`, string(mustRead(t, s, sandbox.State)))
	assert.Equal(t, "{\"k\":1}\n", string(mustRead(t, s, sandbox.Audit)))
	loads := s.cache.loads
	require.NoError(t, s.Append(sandbox.Audit, []byte(`{"k":2}`)))
	require.NoError(t, s.Write(sandbox.Drafts, nil))
	assert.Equal(t, "{\"k\":1}\n{\"k\":2}\n", string(mustRead(t, s, sandbox.Audit)))
	assert.Equal(t, `{"a":1}`, string(mustRead(t, s, sandbox.State)))
	empty := mustRead(t, s, sandbox.Drafts)
	assert.NotNil(t, empty, "written empty, not absent")
	assert.Empty(t, empty)
	assert.Equal(t, loads, s.cache.loads, "the state written, the audit line appended to a kept audit: no load")
	s.cache.unsettle()
	require.NoError(t, s.Write(sandbox.State, []byte(`{"a":2}`)))
	assert.Equal(t, `{"a":2}`, string(mustRead(t, s, sandbox.State)))
	assert.Equal(t, loads+1, s.cache.loads, "unsettled, an own write is loaded")
}

// The cache's own read of a regular file returns what the store's Read
// does, byte for byte (empty is not absent); anything else is left to the
// store, so its answers and errors are the store's. A link is never kept:
// its target's change is seen at the next read.
func TestTheCachesReadIsTheStores(t *testing.T) {
	root := t.TempDir()
	const limit = 8
	p := filepath.Join(root, sandbox.State)
	target := filepath.Join(root, "target")
	cases := []struct {
		name    string
		setup   func()
		regular bool // read by the cache itself
	}{
		{"missing", func() {}, false},
		{"empty", func() { require.NoError(t, os.WriteFile(p, nil, 0o644)) }, true},
		{"small", func() { require.NoError(t, os.WriteFile(p, []byte(`{"a":1}`), 0o644)) }, true},
		{"at the bound", func() { require.NoError(t, os.WriteFile(p, []byte("12345678"), 0o644)) }, true},
		{"past the bound", func() { require.NoError(t, os.WriteFile(p, []byte("123456789"), 0o644)) }, false},
		{"a link to a file", func() {
			require.NoError(t, os.WriteFile(target, []byte("linked"), 0o644))
			require.NoError(t, os.Symlink(target, p))
		}, false},
		{"a dangling link", func() { require.NoError(t, os.Symlink(filepath.Join(root, "none"), p)) }, false},
		{"a FIFO", func() { require.NoError(t, syscall.Mkfifo(p, 0o644)) }, false},
		{"a directory", func() { require.NoError(t, os.Mkdir(p, 0o755)) }, false},
	}
	for _, c := range cases {
		require.NoError(t, os.RemoveAll(p))
		require.NoError(t, os.RemoveAll(target))
		c.setup()
		data, ok := loadRegular(p, limit)
		assert.Equal(t, c.regular, ok, c.name)
		want, wantErr := (&sandbox.Dir{Root: root, MaxFileBytes: limit}).Read(sandbox.State)
		if ok {
			require.NoError(t, wantErr, c.name)
			assert.Equal(t, want, data, c.name)
			assert.Equal(t, want == nil, data == nil, "%s: absent against empty", c.name)
		}
		s := cachedStore(t, root)
		s.dir.MaxFileBytes = limit
		got, gotErr := s.Read(sandbox.State)
		assert.Equal(t, want, got, c.name)
		assert.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), c.name)
		if c.name == "a link to a file" {
			require.NoError(t, os.WriteFile(target, []byte("changed"), 0o644))
			assert.Equal(t, "changed", string(mustRead(t, s, sandbox.State)), "a link is read again")
		}
		s.cache.off()
	}
}
