package sandbox

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{Inbox, true}, {Drafts, true}, {Outbox, true}, {Signals, true}, {Approvals, true}, {Audit, true},
		{State, true}, {Mode, true}, {Clock, true}, {Rules, true}, {ModelCalls, true}, {Fleet, true},
		{"private/notes", true},
		{"private/a/b.json", true},
		{"private/.hidden", true},
		{"", false},
		{"notes.txt", false},
		{"INBOX.JSONL", false},
		{"private/", false},
		{"private", false},
		{"private//x", false},
		{"private/a/", false},
		{"private/../inbox.jsonl", false},
		{"private/a/../../x", false},
		{"private/./x", false},
		{"private/..", false},
		{"../inbox.jsonl", false},
		{"./inbox.jsonl", false},
		{"/etc/passwd", false},
		{"/private/x", false},
		{"private//etc/passwd", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.ok, ValidName(tc.name), "%q", tc.name)
	}
}

func TestFileKinds(t *testing.T) {
	for _, f := range HarnessFiles {
		assert.True(t, IsHarnessFile(f), f)
		assert.False(t, IsImplLog(f), f)
	}
	for _, f := range ImplLogs {
		assert.True(t, IsImplLog(f), f)
		assert.False(t, IsHarnessFile(f), f)
	}
	assert.False(t, IsHarnessFile(State))
	assert.False(t, IsImplLog(State))
	assert.False(t, IsHarnessFile("private/x"))
}

// stores runs a test against both Store implementations.
func stores(t *testing.T, fn func(t *testing.T, s Store)) {
	t.Run("memory", func(t *testing.T) { fn(t, NewMemory()) })
	t.Run("dir", func(t *testing.T) {
		d, err := OpenDir(filepath.Join(t.TempDir(), "sandbox"))
		require.NoError(t, err)
		fn(t, d)
	})
}

func TestStoreReadMissing(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		data, err := s.Read(Outbox)
		require.NoError(t, err)
		assert.Nil(t, data)
		assert.Empty(t, s.Names())
	})
}

func TestStoreAppend(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		require.NoError(t, s.Append(Audit, []byte(`{"event":"a","at":1}`)))
		require.NoError(t, s.Append(Audit, []byte(`{"event":"b","at":2}`)))
		data, err := s.Read(Audit)
		require.NoError(t, err)
		assert.Equal(t, "{\"event\":\"a\",\"at\":1}\n{\"event\":\"b\",\"at\":2}\n", string(data))
	})
}

func TestStoreWriteReplaces(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		require.NoError(t, s.Write(State, []byte("first, longer content")))
		require.NoError(t, s.Write(State, []byte("second")))
		data, err := s.Read(State)
		require.NoError(t, err)
		assert.Equal(t, "second", string(data))
		require.NoError(t, s.Write(State, nil))
		data, err = s.Read(State)
		require.NoError(t, err)
		assert.Empty(t, data)
	})
}

func TestStoreReadReturnsACopy(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		require.NoError(t, s.Write(Clock, []byte(`{"tick":1}`)))
		data, err := s.Read(Clock)
		require.NoError(t, err)
		data[0] = 'X'
		again, err := s.Read(Clock)
		require.NoError(t, err)
		assert.Equal(t, `{"tick":1}`, string(again))
	})
}

func TestStoreNames(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		require.NoError(t, s.Write(State, []byte("{}")))
		require.NoError(t, s.Append(Outbox, []byte("{}")))
		require.NoError(t, s.Write("private/b/deep.json", []byte("1")))
		require.NoError(t, s.Append("private/a", []byte("1")))
		require.NoError(t, s.Write(Clock, []byte("{}")))
		assert.Equal(t, []string{Clock, Outbox, "private/a", "private/b/deep.json", State}, s.Names())
	})
}

// Every file a Memory keeps is viewed as its map holds it, a spec file (kept
// in its own slot too) or a private one, through writes and appends alike.
func TestMemoryViewMatchesFiles(t *testing.T) {
	for i, name := range specNames {
		assert.Equal(t, i, specSlot(name), name)
		assert.True(t, ValidName(name), name)
	}
	assert.Equal(t, -1, specSlot("private/notes"))
	assert.Equal(t, -1, specSlot("state.json "))
	m := NewMemory()
	names := append(specNames[:], "private/a", "private/b/c")
	for round := 0; round < 3; round++ {
		for i, name := range names {
			if (i+round)%2 == 0 {
				require.NoError(t, m.Append(name, []byte{byte('a' + i)}))
			} else {
				require.NoError(t, m.Write(name, []byte{byte('A' + round)}))
			}
		}
	}
	require.Len(t, m.Files(), len(names))
	for name, data := range m.Files() {
		assert.Equal(t, data, m.View(name), name)
		got, err := m.Read(name)
		require.NoError(t, err)
		assert.Equal(t, data, got, name)
	}
	// Appended, replaced in the second round, appended to again; and
	// replaced last.
	assert.Equal(t, "Ba\n", string(m.View(Inbox)))
	assert.Equal(t, "C", string(m.View(Drafts)))
	assert.Nil(t, m.View("private/absent"))
}

func TestStoreRejectsBadNames(t *testing.T) {
	stores(t, func(t *testing.T, s Store) {
		for _, name := range []string{"../escape", "/tmp/abs", "private/../inbox.jsonl", "notes.txt", ""} {
			_, err := s.Read(name)
			assert.ErrorIs(t, err, ErrBadName, name)
			assert.ErrorIs(t, s.Append(name, []byte("x")), ErrBadName, name)
			assert.ErrorIs(t, s.Write(name, []byte("x")), ErrBadName, name)
		}
		assert.Empty(t, s.Names())
	})
}

func TestDirFilesAreOnDisk(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sb")
	d, err := OpenDir(root)
	require.NoError(t, err)
	require.NoError(t, d.Append(Drafts, []byte(`{"x":1}`)))
	require.NoError(t, d.Write("private/a/b", []byte("deep")))
	data, err := os.ReadFile(filepath.Join(root, Drafts))
	require.NoError(t, err)
	assert.Equal(t, "{\"x\":1}\n", string(data))
	data, err = os.ReadFile(filepath.Join(root, "private", "a", "b"))
	require.NoError(t, err)
	assert.Equal(t, "deep", string(data))
}

func TestDirNamesSkipsForeignFiles(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(root)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, State+".tmp"), []byte("x"), 0o644))
	require.NoError(t, d.Write(State, []byte("{}")))
	assert.Equal(t, []string{State}, d.Names())
}

// TestDirWriteIsAtomic: Write replaces the file by renaming a complete new
// one over it, so a reader holding the old file sees the old bytes whole,
// and no temporary file is left behind.
func TestDirWriteIsAtomic(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(root)
	require.NoError(t, err)
	require.NoError(t, d.Write(State, []byte(`{"old":true}`)))
	f, err := os.Open(filepath.Join(root, State))
	require.NoError(t, err)
	defer f.Close()
	before, err := os.Stat(filepath.Join(root, State))
	require.NoError(t, err)

	require.NoError(t, d.Write(State, []byte(`{"new":true,"longer":"than before"}`)))

	old, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, `{"old":true}`, string(old), "the open file was modified in place")
	after, err := os.Stat(filepath.Join(root, State))
	require.NoError(t, err)
	assert.False(t, os.SameFile(before, after), "Write must replace the file, not rewrite it")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, State, entries[0].Name())
}

func TestCopyTo(t *testing.T) {
	m := NewMemory()
	require.NoError(t, m.Append(Inbox, []byte(`{"id":"m1"}`)))
	require.NoError(t, m.Write("private/x", []byte("secret")))
	dst := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, CopyTo(m, dst))
	d, err := OpenDir(dst)
	require.NoError(t, err)
	assert.Equal(t, m.Names(), d.Names())
	for _, name := range m.Names() {
		want, _ := m.Read(name)
		got, err := d.Read(name)
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
}

func TestMemoryViewAndFiles(t *testing.T) {
	m := NewMemory()
	assert.Nil(t, m.View(Inbox))
	require.NoError(t, m.Append(Inbox, []byte("a")))
	assert.Equal(t, "a\n", string(m.View(Inbox)))
	assert.Equal(t, map[string][]byte{Inbox: []byte("a\n")}, m.Files())
}

func TestReadClockAndMode(t *testing.T) {
	m := NewMemory()
	_, err := ReadClock(m)
	assert.Error(t, err, "a missing clock is an error")
	require.NoError(t, m.Write(Clock, []byte(`{"tick":42}`)))
	tick, err := ReadClock(m)
	require.NoError(t, err)
	assert.Equal(t, 42, tick)
	require.NoError(t, m.Write(Clock, []byte(`{"tick":"x"}`)))
	_, err = ReadClock(m)
	assert.Error(t, err)

	require.NoError(t, m.Write(Mode, []byte(`{"posture":"vip-only","changed_at":7}`)))
	mode, err := ReadMode(m)
	require.NoError(t, err)
	assert.Equal(t, ModeFile{Posture: "vip-only", ChangedAt: 7}, mode)
	require.NoError(t, m.Write(Mode, []byte(`[`)))
	_, err = ReadMode(m)
	assert.Error(t, err)
}

func TestAppendJSON(t *testing.T) {
	m := NewMemory()
	require.NoError(t, AppendJSON(m, Outbox, Effect{EffectID: "e<1>", DraftID: "d&1", SentAt: 3}))
	assert.Equal(t, "{\"effect_id\":\"e<1>\",\"draft_id\":\"d&1\",\"sent_at\":3}\n", string(m.View(Outbox)))
	err := AppendJSON(m, "../x", Effect{})
	assert.True(t, errors.Is(err, ErrBadName))
	_, err = MarshalLine(func() {})
	assert.Error(t, err)
}

// A private file whose name ends like a temporary file is an ordinary file:
// writing a sibling must neither clobber nor hide it.
func TestDirWriteKeepsPrivateTmpNames(t *testing.T) {
	d, err := OpenDir(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, d.Write("private/notes.tmp", []byte("mine")))
	require.NoError(t, d.Write("private/notes", []byte("other")))
	got, err := d.Read("private/notes.tmp")
	require.NoError(t, err)
	require.Equal(t, "mine", string(got))
	require.Contains(t, d.Names(), "private/notes.tmp")
}

// TestStoresCopyWhatTheyAreGiven holds every Store of this package to the
// interface's promise that a caller may reuse its buffer after Append or
// Write returns.
func TestStoresCopyWhatTheyAreGiven(t *testing.T) {
	stores := map[string]Store{"memory": NewMemory(), "dir": &Dir{Root: t.TempDir()}}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			buf := []byte(`{"id":"m1"}`)
			require.NoError(t, s.Append(Inbox, buf))
			copy(buf, `{"id":"m2"}`)
			require.NoError(t, s.Append(Inbox, buf))
			copy(buf, `{"id":"xx"}`)
			got, err := s.Read(Inbox)
			require.NoError(t, err)
			assert.Equal(t, "{\"id\":\"m1\"}\n{\"id\":\"m2\"}\n", string(got))

			state := []byte(`{"a":1}`)
			require.NoError(t, s.Write(State, state))
			copy(state, `{"b":2}`)
			got, err = s.Read(State)
			require.NoError(t, err)
			assert.Equal(t, `{"a":1}`, string(got))
		})
	}
}
