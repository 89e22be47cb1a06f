package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
)

// fuzzOnce runs the campaign the README shows, in the working directory,
// and returns its stdout.
func fuzzOnce(t *testing.T, seed string) string {
	t.Helper()
	stdout, stderr, code := execAMR(t, "fuzz", "--impl", "weak-send-before-record", "--seed", seed, "--runs", "2000", "--workers", "1")
	require.Equal(t, exitFail, code, stderr)
	return stdout
}

// Every command that takes a BUNDLE reads a fuzz folder (raw/, shrunk/) as
// the bundle it holds, and replay shows the run the folder recorded.
func TestCommandsReadAFuzzFolder(t *testing.T) {
	t.Chdir(t.TempDir())
	fuzzOnce(t, "7")
	for _, sub := range []string{fuzz.RawDir, fuzz.ShrunkDir} {
		folder := filepath.Join(fuzz.Root, fuzz.LatestName, sub)
		stdout, stderr, code := execAMR(t, "validate", folder)
		assert.Equal(t, exitOK, code, stdout+stderr)
		assert.NotContains(t, stdout+stderr, "unknown field")

		stdout, stderr, code = execAMR(t, "replay", folder)
		assert.Equal(t, exitFail, code, stderr)
		assert.Contains(t, stdout, "violation  L1.duplicate-effect", "the replay is the recorded failing run")
		assert.Regexp(t, `^seed: campaign=7 run=\d+ engine=\d+\n`, stdout, "the seeds the folder recorded, every level")
		assert.Contains(t, stdout, "impl weak-send-before-record", "the implementation comes from meta.origin")
	}

	// An edited bundle is no longer the recorded run: the seed derives
	// from the bundle, and replay says so.
	folder := filepath.Join(fuzz.Root, fuzz.LatestName, fuzz.ShrunkDir)
	meta := filepath.Join(folder, "bundle", "bundle.json")
	data, err := os.ReadFile(meta)
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"description": "`, `"description": "edited: `, 1)
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(meta, []byte(edited), 0o644))
	_, stderr, _ := execAMR(t, "replay", folder)
	assert.Contains(t, stderr, "changed since")
	assert.Contains(t, stderr, "the run seed derives from the bundle")
}

// A second campaign never writes over the first one's counterexample, and
// .amr/fuzz/latest points at the newest.
func TestFuzzKeepsEveryCounterexample(t *testing.T) {
	t.Chdir(t.TempDir())
	first := fuzzOnce(t, "7")
	latest := filepath.Join(fuzz.Root, fuzz.LatestName)
	dir1, err := filepath.EvalSymlinks(latest)
	require.NoError(t, err)
	assert.Contains(t, first, "latest:   "+latest+" -> ")
	assert.Regexp(t, `weak-send-before-record/7/run-\d+$`, filepath.ToSlash(dir1))
	raw1, err := os.ReadFile(filepath.Join(dir1, fuzz.RawDir, "bundle.json"))
	require.NoError(t, err)

	// The same campaign again stops at the kept corpus bundle, which gets
	// a folder of its own.
	second := fuzzOnce(t, "7")
	assert.Contains(t, second, "still fails")
	dir2, err := filepath.EvalSymlinks(latest)
	require.NoError(t, err)
	assert.Regexp(t, `weak-send-before-record/corpus-[0-9a-f]{12}$`, filepath.ToSlash(dir2))
	again, err := os.ReadFile(filepath.Join(dir1, fuzz.RawDir, "bundle.json"))
	require.NoError(t, err)
	assert.Equal(t, raw1, again, "the first counterexample's raw/ is untouched")

	// Another campaign seed, without the corpus, gets its own folder too.
	_, stderr, code := execAMR(t, "fuzz", "--impl", "weak-send-before-record", "--seed", "8", "--runs", "2000", "--workers", "1", "--no-corpus")
	require.Equal(t, exitFail, code, stderr)
	dir3, err := filepath.EvalSymlinks(latest)
	require.NoError(t, err)
	assert.Regexp(t, `weak-send-before-record/8/run-\d+$`, filepath.ToSlash(dir3))
	assert.DirExists(t, filepath.Join(dir1, fuzz.ShrunkDir))
	assert.DirExists(t, filepath.Join(dir2, fuzz.ShrunkDir))

	// --out is the folder itself, a place of the user's: latest stays.
	out := filepath.Join(t.TempDir(), "mine")
	stdout, stderr, code := execAMR(t, "fuzz", "--impl", "weak-send-before-record", "--seed", "7", "--runs", "2000", "--no-corpus", "--out", out)
	require.Equal(t, exitFail, code, stderr)
	assert.DirExists(t, filepath.Join(out, fuzz.ShrunkDir))
	assert.NotContains(t, stdout, "latest:")
	dir4, err := filepath.EvalSymlinks(latest)
	require.NoError(t, err)
	assert.Equal(t, dir3, dir4)
}
