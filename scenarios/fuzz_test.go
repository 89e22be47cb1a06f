package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/hostile"
)

// FuzzParseBundle: any bytes either fail to load with located problems or
// load into a bundle that Validate judges without panicking; a bundle
// without errors re-marshals into a fixed point that is still valid.
func FuzzParseBundle(f *testing.F) {
	data, err := baseBundle().MarshalIndent()
	require.NoError(f, err)
	f.Add(data)
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, src, err := Parse("bundle.json", data)
		if err != nil {
			var ps Problems
			require.True(t, errors.As(err, &ps), "load error is not Problems: %v", err)
			require.NotEmpty(t, ps)
			checkLines(t, ps, map[string][]byte{"bundle.json": data}, 1)
			return
		}
		ps := Validate(b, src)
		checkLines(t, ps, map[string][]byte{"bundle.json": data}, 0)
		if len(ps.Errors()) > 0 {
			return
		}
		once := marshal(t, b)
		b2, src2, err := Parse("again.json", once)
		require.NoError(t, err)
		require.Empty(t, Validate(b2, src2).Errors())
		require.Equal(t, string(once), string(marshal(t, b2)))
		b3, _, err := Parse("third.json", marshal(t, b2))
		require.NoError(t, err)
		require.Equal(t, b2, b3)
	})
}

// dirFiles are the files FuzzLoadDir fills, in argument order.
var dirFiles = []string{FileBundle, FileMode, FileRules, FileModel, FileInbox, FileApprovals, FileSignals, FileFaults}

// FuzzLoadDir: random bytes as each file of the directory form; a bundle
// without errors saves and loads back to the same bundle.
func FuzzLoadDir(f *testing.F) {
	dir := f.TempDir()
	require.NoError(f, SaveDir(baseBundle(), dir))
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(f, err)
		return data
	}
	f.Add(read(FileBundle), read(FileMode), read(FileRules), read(FileModel),
		read(FileInbox), read(FileApprovals), read(FileSignals), read(FileFaults))
	for _, h := range hostile.Seeds() {
		f.Add(h, read(FileMode), read(FileRules), read(FileModel),
			h, read(FileApprovals), read(FileSignals), read(FileFaults))
	}
	f.Fuzz(func(t *testing.T, bundle, mode, rules, model, inbox, approvals, signals, faults []byte) {
		// LoadFS shares LoadDir's decoding; a file system in memory keeps
		// the disk out of the hot loop.
		fsys := fstest.MapFS{}
		contents := map[string][]byte{}
		for i, data := range [][]byte{bundle, mode, rules, model, inbox, approvals, signals, faults} {
			path := "b/" + dirFiles[i]
			fsys[path] = &fstest.MapFile{Data: data}
			contents[path] = data
		}
		b, src, err := LoadFS(fsys, "b")
		if err != nil {
			var ps Problems
			require.True(t, errors.As(err, &ps), "load error is not Problems: %v", err)
			require.NotEmpty(t, ps)
			checkLines(t, ps, contents, 1)
			return
		}
		ps := Validate(b, src)
		checkLines(t, ps, contents, 0)
		if len(ps.Errors()) > 0 {
			return
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		require.NoError(t, SaveDir(b, out))
		b2, src2, err := LoadDir(out)
		require.NoError(t, err)
		require.Empty(t, Validate(b2, src2).Errors())
		require.Equal(t, string(marshal(t, b)), string(marshal(t, b2)))
		again := filepath.Join(dir, "again")
		require.NoError(t, SaveDir(b2, again))
		b3, _, err := LoadDir(again)
		require.NoError(t, err)
		require.Equal(t, b2, b3)
	})
}

func marshal(t *testing.T, b *Bundle) []byte {
	t.Helper()
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	return data
}

// checkLines asserts every problem names one of the files and a line that
// exists in it: at least minLine (load problems always have a line;
// meaning problems about an absent field may name only the file).
func checkLines(t *testing.T, ps Problems, files map[string][]byte, minLine int) {
	t.Helper()
	for _, p := range ps {
		data, ok := files[p.Pos.File]
		require.True(t, ok, "problem in an unknown file: %s", p)
		lines := bytes.Count(data, []byte("\n")) + 1
		require.GreaterOrEqual(t, p.Pos.Line, minLine, p.String())
		require.LessOrEqual(t, p.Pos.Line, lines, p.String())
		require.NotEmpty(t, p.Msg)
	}
}

// addHostile seeds a target with the hostile corpus's shapes.
func addHostile(f *testing.F) {
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
}
