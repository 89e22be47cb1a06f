package fuzz_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A counterexample's folder is read back as the run it recorded: its
// bundle directory, the engine seed it played with, the campaign and run
// seeds its profile names, and the implementation. A path that is no run
// folder, a folder without its run log and a bundle other than the one
// recorded each read as no recorded run, the last two with a note.
func TestReadFolderRun(t *testing.T) {
	im, ok := examples.Lookup("weak-no-send")
	require.True(t, ok)
	impl := play.Impl{Name: im.Name, New: im.New}
	var cx *fuzz.Counterexample
	for i := 0; cx == nil; i++ {
		require.Less(t, i, 50, "no failing run of weak-no-send")
		r, err := fuzz.PlayGenerated(7, i, "default", impl, 0)
		require.NoError(t, err)
		if r.Failed() {
			cx = &fuzz.Counterexample{Run: r, Source: "generated"}
		}
	}
	raw, err := fuzz.WriteRaw(t.TempDir(), cx)
	require.NoError(t, err)

	dir, ok := fuzz.FolderBundle(raw)
	require.True(t, ok)
	assert.Equal(t, filepath.Join(raw, fuzz.BundleDir), dir)
	run, ok, note := fuzz.ReadFolderRun(raw, cx.Bundle)
	require.True(t, ok, note)
	assert.Equal(t, im.Name, run.Impl)
	require.NotNil(t, run.Seeds.Engine)
	assert.Equal(t, *cx.Seeds.Engine, *run.Seeds.Engine)
	require.NotNil(t, run.Seeds.Campaign)
	assert.Equal(t, uint64(7), uint64(*run.Seeds.Campaign))

	_, ok = fuzz.FolderBundle(dir)
	assert.False(t, ok, "a bundle directory is no run folder")
	_, ok, note = fuzz.ReadFolderRun(dir, cx.Bundle)
	assert.False(t, ok)
	assert.Empty(t, note)

	other := *cx.Bundle
	other.Meta.Description = "edited"
	_, ok, note = fuzz.ReadFolderRun(raw, &other)
	assert.False(t, ok)
	assert.Contains(t, note, "changed since")

	require.NoError(t, os.Remove(filepath.Join(raw, sandbox.RunLogFile)))
	_, ok, note = fuzz.ReadFolderRun(raw, cx.Bundle)
	assert.False(t, ok)
	assert.Contains(t, note, "has no "+sandbox.RunLogFile)
}
