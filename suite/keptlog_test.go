package suite_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
)

// A kept run, whose log is written as it plays and judged from the file
// (D280), reports what the same run reports unkept, and its run.jsonl is
// the log the unkept play holds; a ledger's receipt stores those bytes.
func TestAKeptRunIsJudgedAsAnUnkeptOne(t *testing.T) {
	dir := t.TempDir()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	require.NoError(t, err)
	for _, name := range []string{"reference", "weak-unsend", "weak-stale-state"} {
		im := impl(t, name)
		for _, p := range published(t) {
			label := name + " on " + p.Name
			unkept, err := suite.Run(p.Bundle, im, suite.Config{Runs: 1})
			require.NoError(t, err, label)
			out := filepath.Join(dir, "out-"+name)
			kept, err := suite.Run(p.Bundle, im, suite.Config{Runs: 1, Out: out, Ledger: l, HarnessVersion: "test", Force: true})
			require.NoError(t, err, label)
			require.NotEmpty(t, kept.Runs[0].Receipt, label)
			kept.Runs[0].Receipt = ""
			a, err := json.Marshal(unkept)
			require.NoError(t, err)
			b, err := json.Marshal(kept)
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b), label)

			held, err := play.Play(p.Bundle, im, seeds.OfScored(seeds.Named(p.Name), 1), play.Options{})
			require.NoError(t, err, label)
			onDisk, err := os.ReadFile(filepath.Join(out, p.Name, "run-1", sandbox.RunLogFile))
			require.NoError(t, err, label)
			assert.Equal(t, string(held.Result.LogBytes()), string(onDisk), label)
			receipts := l.Receipts()
			var stored string
			for _, a := range receipts[len(receipts)-1].Artifacts {
				if a.Name == sandbox.RunLogFile {
					stored = a.Hash
				}
			}
			assert.Equal(t, ledger.Digest(onDisk), stored, label)
		}
	}
	rep, err := ledger.Verify(filepath.Join(dir, "ledger.jsonl"), "")
	require.NoError(t, err)
	assert.True(t, rep.OK(), "every receipt's stored artifacts hash as recorded: %v", rep.Problems)
}

// A run that cannot be played keeps nothing under --out: no half log, no
// empty run folder.
func TestAnUnplayedRunKeepsNoFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	b := published(t)[0].Bundle
	gone := play.Impl{Name: "gone", Process: &sim.ProcessSpec{Command: []string{filepath.Join(out, "no-such-responder")}}}
	_, err := suite.Run(b, gone, suite.Config{Runs: 1, Out: out})
	require.Error(t, err)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
