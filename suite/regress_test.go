package suite_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

func result(scenario, impl, hash string, levels ...string) suite.BaselineResult {
	r := suite.BaselineResult{Scenario: scenario, Impl: impl, BundleHash: hash, Levels: map[string]string{}}
	for i, v := range levels {
		r.Levels[suite.LevelNames[i]] = v
	}
	return r
}

// Every kind of move between a baseline and a new measurement lands in its
// own list; only a regression or a lost detection fails the comparison.
func TestCompareSortsEveryMove(t *testing.T) {
	pass, fail := suite.Pass, suite.Fail
	base := []suite.BaselineResult{
		result("l0-a", "reference", "h1", pass),
		result("l0-a", "weak", "h1", fail),
		result("l1-b", "reference", "h2", fail, fail),
		result("l1-b", "weak", "h2", pass, fail),
	}
	tests := []struct {
		name   string
		now    []suite.BaselineResult
		passed bool
		check  func(t *testing.T, c suite.Comparison)
	}{
		{"no change", base, true, func(t *testing.T, c suite.Comparison) {
			assert.Empty(t, c.Regressions)
			assert.Empty(t, c.Lost)
			assert.Empty(t, c.Improvements)
			assert.Empty(t, c.Other)
			assert.Empty(t, c.Edited)
		}},
		{"a passing level fails", []suite.BaselineResult{base[1], base[2], base[3], result("l0-a", "reference", "h1", fail)}, false,
			func(t *testing.T, c suite.Comparison) {
				assert.Equal(t, []suite.Change{{Scenario: "l0-a", Impl: "reference", Level: "L0", Before: pass, After: fail}}, c.Regressions)
			}},
		{"a weak implementation is no longer caught", []suite.BaselineResult{base[0], result("l0-a", "weak", "h1", pass), base[2], base[3]}, false,
			func(t *testing.T, c suite.Comparison) {
				assert.Equal(t, []suite.Change{{Scenario: "l0-a", Impl: "weak", Level: "L0", Before: fail, After: pass}}, c.Lost)
				assert.Empty(t, c.Regressions)
			}},
		{"the reference improves", []suite.BaselineResult{base[0], base[1], result("l1-b", "reference", "h2", pass, pass), base[3]}, true,
			func(t *testing.T, c suite.Comparison) {
				assert.Len(t, c.Improvements, 2)
				assert.Empty(t, c.Lost)
			}},
		{"a scenario edited and a result gone", []suite.BaselineResult{result("l0-a", "reference", "h9", pass), base[1], base[2]}, true,
			func(t *testing.T, c suite.Comparison) {
				assert.Equal(t, []string{"l0-a"}, c.Edited)
				assert.Equal(t, []suite.Change{
					{Scenario: "l1-b", Impl: "weak", Level: "L0", Before: pass, After: suite.Untested},
					{Scenario: "l1-b", Impl: "weak", Level: "L1", Before: fail, After: suite.Untested},
				}, c.Other)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := suite.Compare(base, tc.now, "reference")
			assert.Equal(t, tc.passed, c.Passed)
			tc.check(t, c)
		})
	}
}

// A level that passed judging nothing (vacuous) still passes: hollowing a
// level fails the comparison, and so does a vacuous level that now fails or
// a weak implementation's failure that now passes vacuously.
func TestCompareClassifiesVacuousMoves(t *testing.T) {
	res := func(impl, level string, vacuous bool) suite.BaselineResult {
		r := suite.BaselineResult{Scenario: "s", Impl: impl, Levels: map[string]string{"L0": level}}
		if vacuous {
			r.Vacuous = []string{"L0"}
		}
		return r
	}
	for _, tc := range []struct {
		name          string
		before, after suite.BaselineResult
		kind          string
	}{
		{"pass to vacuous", res("reference", "pass", false), res("reference", "pass", true), "hollowed"},
		{"vacuous to fail", res("reference", "pass", true), res("reference", "fail", false), "regression"},
		{"weak fail to vacuous", res("weak-no-send", "fail", false), res("weak-no-send", "pass", true), "lost"},
		{"reference fail to vacuous", res("reference", "fail", false), res("reference", "pass", true), "improvement"},
		{"vacuous to pass", res("reference", "pass", true), res("reference", "pass", false), "other"},
		{"unchanged vacuous", res("reference", "pass", true), res("reference", "pass", true), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := suite.Compare([]suite.BaselineResult{tc.before}, []suite.BaselineResult{tc.after}, examples.ReferenceName)
			got := map[string][]suite.Change{"regression": r.Regressions, "lost": r.Lost, "hollowed": r.Hollowed,
				"improvement": r.Improvements, "other": r.Other}
			for kind, cs := range got {
				if kind == tc.kind {
					require.Len(t, cs, 1, kind)
					assert.Equal(t, tc.before.Verdict("L0"), cs[0].Before)
					assert.Equal(t, tc.after.Verdict("L0"), cs[0].After)
				} else {
					assert.Empty(t, cs, kind)
				}
			}
			failing := tc.kind == "regression" || tc.kind == "lost" || tc.kind == "hollowed"
			assert.Equal(t, !failing, r.Passed)
		})
	}
}

// A baseline written is read back as it was, one result per line.
func TestBaselineRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "baseline.json")
	results := []suite.BaselineResult{result("l0-a", "reference", "h1", suite.Pass), result("l0-a", "weak", "h1", suite.Fail)}
	require.NoError(t, suite.WriteBaseline(path, 3, results))
	b, err := suite.ReadBaseline(path)
	require.NoError(t, err)
	assert.Equal(t, suite.Baseline{Format: suite.BaselineFormat, Runs: 3, Results: results}, *b)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	again, err := b.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
	assert.Contains(t, string(data), "\n    {\"scenario\":\"l0-a\",\"impl\":\"weak\",")
}

func TestReadBaselineRefusesWhatIsNotOne(t *testing.T) {
	dir := t.TempDir()
	_, err := suite.ReadBaseline(filepath.Join(dir, "missing.json"))
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	for name, body := range map[string]string{
		"other format":  `{"format":"other","runs":1,"results":[]}`,
		"unknown field": `{"format":"amr.baseline/v1","runs":1,"results":[],"extra":1}`,
		"not json":      `{`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "b.json")
			require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			_, err := suite.ReadBaseline(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
		})
	}
}

// A measurement in which the oracles disagree is refused as a whole, and
// says so in a way a caller can tell from bad input.
func TestMeasureRefusesAnInvalidRun(t *testing.T) {
	restore := play.WithOracles(func(in checker.Input) checker.Verdict {
		v := checker.Check(in)
		v.Violations = nil
		return v
	}, func(h *history.History) history.Verdict { return history.Check(h) })
	defer restore()
	_, err := suite.Measure([]*scenarios.Bundle{bundleNamed(t, "l2-approval-redelivery")},
		[]play.Impl{impl(t, "weak-send-per-approval")}, 1)
	require.Error(t, err)
	assert.ErrorIs(t, err, suite.ErrInvalid)
	assert.Contains(t, err.Error(), "l2-approval-redelivery with weak-send-per-approval: the two oracles disagree")
}

// The committed baseline covers every published scenario and every built-in
// implementation; 'amr regress' (run by CI) checks its verdicts.
func TestCommittedBaselineCoversEverything(t *testing.T) {
	base, err := suite.ReadBaseline(filepath.Join("..", suite.DefaultBaseline))
	require.NoError(t, err)
	assert.Equal(t, 5, base.Runs)
	have := map[string]bool{}
	for _, r := range base.Results {
		have[r.Scenario+" "+r.Impl] = true
	}
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		for _, im := range examples.All() {
			assert.True(t, have[p.Name+" "+im.Name], "baseline lacks %s with %s: run 'amr regress --update'", p.Name, im.Name)
		}
	}
	sorted := append([]suite.BaselineResult(nil), base.Results...)
	suite.SortResults(sorted)
	assert.Equal(t, sorted, base.Results, "sorted by scenario, then implementation")
}

func TestMeasureIsDeterministic(t *testing.T) {
	bundles := []*scenarios.Bundle{bundleNamed(t, "l3-fleet-concurrent"), bundleNamed(t, "l1-crash-after-send")}
	var impls []play.Impl
	for _, im := range examples.All() {
		impls = append(impls, play.Impl{Name: im.Name, New: im.New})
	}
	a, err := suite.Measure(bundles, impls, 1)
	require.NoError(t, err)
	b, err := suite.Measure(bundles, impls, 1)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Len(t, a, 2*len(examples.All()))
}
