package suite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/internal/doctored"
	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/suite"
)

func bundleNamed(t testing.TB, name string) *scenarios.Bundle {
	t.Helper()
	for _, p := range published(t) {
		if p.Name == name {
			return p.Bundle
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

// A doctored oracle, in either direction, makes the runs INVALID: neither a
// pass nor a fail of the implementation.
func TestDoctoredOraclesMakeRunsInvalid(t *testing.T) {
	b := bundleNamed(t, "l2-approval-redelivery")
	weak := impl(t, "weak-send-per-approval")
	clean, err := suite.Run(b, weak, suite.Config{Runs: 2})
	require.NoError(t, err)
	require.False(t, clean.Invalid)
	require.False(t, clean.Passed())

	for name, hook := range map[string]func() func(){
		"level":   func() func() { return play.WithOracles(doctored.LevelForgetsDuplicates, nil) },
		"history": func() func() { return play.WithOracles(nil, doctored.HistoryForgetsDuplicates) },
	} {
		t.Run(name, func(t *testing.T) {
			restore := hook()
			defer restore()
			rep, err := suite.Run(b, weak, suite.Config{Runs: 2})
			require.NoError(t, err)
			assert.True(t, rep.Invalid)
			assert.False(t, rep.Passed(), "an invalid report never passes")
			for _, run := range rep.Runs {
				assert.True(t, run.Invalid)
				require.Len(t, run.Guard.Diffs, 1)
				assert.Equal(t, "duplicate-effects", run.Guard.Diffs[0].Question)
			}
		})
	}
	// Restored: the real oracles agree again.
	again, err := suite.Run(b, weak, suite.Config{Runs: 1})
	require.NoError(t, err)
	assert.False(t, again.Invalid)
}

// A kept run holds history.jsonl, with its self-digest, and the report
// carries the history verdict, the guard and the surprise diagnostic.
func TestKeptRunHoldsItsHistory(t *testing.T) {
	out := t.TempDir()
	b := bundleNamed(t, "l3-fleet-concurrent")
	rep, err := suite.Run(b, impl(t, "reference"), suite.Config{Runs: 1, Out: out})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(out, b.Meta.Name, "run-1", history.FileName))
	require.NoError(t, err)
	h, err := history.Parse(data)
	require.NoError(t, err)
	assert.Equal(t, b.Meta.Name, h.Scenario)
	assert.Equal(t, history.OrderRunLog, h.Ordering)
	run := rep.Runs[0]
	assert.Equal(t, suite.StatusRan, run.Status)
	assert.True(t, run.Guard.Agree)
	assert.Empty(t, run.History.Violations)
	assert.Equal(t, 3, run.Surprise.Calls)
	assert.Zero(t, run.Surprise.Unattributed)
	assert.Equal(t, suite.SurpriseTotals{Calls: 3}, rep.Surprise)
}

// With a ledger, a second run of the same suite plays nothing: every run
// gets a skipped receipt copying the verdict forward. --force plays again;
// a changed bundle plays again.
func TestLedgerMemoizesRuns(t *testing.T) {
	dir := t.TempDir()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	require.NoError(t, err)
	cfg := suite.Config{Runs: 2, Out: filepath.Join(dir, "out"), Ledger: l, HarnessVersion: "test"}
	b := bundleNamed(t, "l2-approval-redelivery")
	weak := impl(t, "weak-send-per-approval")

	first, err := suite.Run(b, weak, cfg)
	require.NoError(t, err)
	assert.Zero(t, first.Skipped)
	second, err := suite.Run(b, weak, cfg)
	require.NoError(t, err)
	assert.Equal(t, 2, second.Skipped)
	assert.Equal(t, first.Levels, second.Levels)
	assert.Equal(t, first.Violations, second.Violations, "the verdict is copied forward")
	for i, run := range second.Runs {
		assert.Equal(t, suite.StatusSkipped, run.Status)
		assert.Equal(t, first.Runs[i].Seeds, run.Seeds)
		assert.NotEqual(t, first.Runs[i].Receipt, run.Receipt)
	}

	cfg.Force = true
	forced, err := suite.Run(b, weak, cfg)
	require.NoError(t, err)
	assert.Zero(t, forced.Skipped)

	// The changed bundle's runs are kept over the earlier ones' directories;
	// the receipts point at the ledger's own content-addressed copies, so
	// the earlier receipts still verify.
	cfg.Force = false
	changed := b.Clone()
	changed.Meta.Horizon++
	moved, err := suite.Run(changed, weak, cfg)
	require.NoError(t, err)
	assert.Zero(t, moved.Skipped, "a changed bundle has a new hash: nothing to copy")

	other := impl(t, "reference")
	ref, err := suite.Run(b, other, cfg)
	require.NoError(t, err)
	assert.Zero(t, ref.Skipped, "another implementation has another fingerprint")

	receipts := l.Receipts()
	require.Len(t, receipts, 10)
	statuses := map[string]int{}
	for _, r := range receipts {
		statuses[r.Status]++
	}
	assert.Equal(t, map[string]int{ledger.StatusRan: 8, ledger.StatusSkipped: 2}, statuses)
	rep, err := ledger.Verify(l.Path(), "")
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Problems)
	assert.Positive(t, rep.ArtifactsChecked)
	assert.Zero(t, rep.ArtifactsMissing)
}

func processSpec(cmd string) *sim.ProcessSpec { return &sim.ProcessSpec{Command: []string{cmd}} }

func TestFingerprints(t *testing.T) {
	assert.Equal(t, "in-process:reference@1.2.3", suite.Fingerprint(impl(t, "reference"), "1.2.3"))
	self, err := os.Executable()
	require.NoError(t, err)
	fp := suite.Fingerprint(play.Impl{Name: "x", Process: processSpec(self)}, "1.2.3")
	assert.Regexp(t, `^process:.+@sha256:[0-9a-f]{64}$`, fp)
	assert.Contains(t, suite.Fingerprint(play.Impl{Name: "x", Process: processSpec("/no/such/binary")}, "1"), ledger.UnknownSuffix)
}
