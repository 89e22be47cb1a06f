package suite_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/suite"
)

// A published scenario exists to test its top level: the reference must
// have something to be judged on there in every run.
func TestPublishedScenariosExerciseTheirTopLevel(t *testing.T) {
	ref := impl(t, "reference")
	for _, p := range published(t) {
		rep, err := suite.Run(p.Bundle, ref, suite.Config{Runs: 5})
		require.NoError(t, err)
		top := suite.LevelNames[rep.TopLevel]
		assert.Equal(t, suite.Pass, rep.Status(top), p.Name)
		assert.Zero(t, rep.VacuousRuns[top], "%s: its top level %s judged nothing in some run", p.Name, top)
		assert.Positive(t, rep.Obligations[top], p.Name)
	}
}

// On every published scenario, for every built-in implementation, every
// violation of a counted invariant was judged by its check: the counts
// follow what the checks really found on real artifacts.
func TestEveryViolationOnThePublishedSuiteWasJudged(t *testing.T) {
	for _, im := range examples.All() {
		for _, p := range published(t) {
			rep, err := suite.Run(p.Bundle, play.Impl{Name: im.Name, New: im.New}, suite.Config{Runs: 1})
			require.NoError(t, err)
			run := rep.Runs[0]
			for _, x := range run.Violations {
				inv, ok := checker.Lookup(x.Invariant)
				require.True(t, ok)
				if inv.Kind != checker.KindContract {
					assert.Positive(t, run.Judged[x.Invariant], "%s on %s: %s fired, judged nothing", im.Name, p.Name, x.Invariant)
				}
			}
			for _, name := range run.Vacuous {
				assert.Equal(t, suite.Pass, run.Levels[name], "%s on %s", im.Name, p.Name)
				assert.Zero(t, run.Obligations[name], "%s on %s", im.Name, p.Name)
			}
		}
	}
}

// run is a judged run with the given levels, obligation counts and vacuous
// levels, as the checker would report them.
func run(levels map[string]string, obligations map[string]int, vacuous ...string) suite.RunReport {
	if vacuous == nil {
		vacuous = []string{}
	}
	return suite.RunReport{Levels: levels, Obligations: obligations, Vacuous: vacuous,
		Judged: map[string]int{"L0.reply": obligations["L0"]}, Violations: []checker.Violation{}}
}

func TestVacuityOverRuns(t *testing.T) {
	pass2 := map[string]string{"L0": "pass", "L1": "pass", "L2": "untested"}
	fail1 := map[string]string{"L0": "pass", "L1": "fail", "L2": "untested"}
	exercised := run(pass2, map[string]int{"L0": 1, "L1": 3})
	l1Idle := run(pass2, map[string]int{"L0": 1, "L1": 0}, "L1")
	for _, tc := range []struct {
		name        string
		runs        []suite.RunReport
		vacuous     []string
		vacuousRuns map[string]int
		l1          string // Status of L1
		partly      bool   // L1 partly vacuous
	}{
		{"exercised in every run", []suite.RunReport{exercised, exercised, exercised},
			[]string{}, map[string]int{"L0": 0, "L1": 0}, "pass", false},
		{"vacuous in every run", []suite.RunReport{l1Idle, l1Idle, l1Idle},
			[]string{"L1"}, map[string]int{"L0": 0, "L1": 3}, "vacuous", false},
		{"vacuous in some runs", []suite.RunReport{exercised, l1Idle, l1Idle},
			[]string{}, map[string]int{"L0": 0, "L1": 2}, "pass", true},
		{"failed in one run, vacuous in the others", []suite.RunReport{run(fail1, map[string]int{"L0": 1, "L1": 0}), l1Idle},
			[]string{}, map[string]int{"L0": 0, "L1": 1}, "fail", false},
		// A run memoized from a receipt sealed before counts existed
		// carries none: it is never taken for vacuous.
		{"runs without counts", []suite.RunReport{run(pass2, nil), l1Idle},
			[]string{}, map[string]int{"L0": 0, "L1": 1}, "pass", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := suite.NewReport("s", "i", 1, tc.runs)
			assert.Equal(t, tc.vacuous, rep.Vacuous)
			assert.Equal(t, tc.vacuousRuns, rep.VacuousRuns)
			assert.Equal(t, tc.l1, rep.Status("L1"))
			assert.Equal(t, tc.partly, rep.PartlyVacuous("L1"))
			assert.Equal(t, "pass", rep.Status("L0"))
			assert.Equal(t, suite.Untested, rep.Status("L2"))
			assert.NotEqual(t, suite.Vacuous, rep.Levels["L1"], "levels keep pass / fail / untested")
			sum := 0
			for _, r := range tc.runs {
				sum += r.Obligations["L1"]
			}
			assert.Equal(t, sum, rep.Obligations["L1"])
			assert.NotContains(t, rep.Obligations, "L2", "untested levels have no count")
		})
	}
}

func TestReportJSONCarriesTheCounts(t *testing.T) {
	rep := suite.NewReport("s", "i", 1, []suite.RunReport{
		run(map[string]string{"L0": "pass", "L1": "pass"}, map[string]int{"L0": 0, "L1": 2}, "L0"),
		run(map[string]string{"L0": "pass", "L1": "pass"}, map[string]int{"L0": 0, "L1": 1}, "L0"),
	})
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	var doc struct {
		Levels      map[string]string `json:"levels"`
		Obligations map[string]int    `json:"obligations"`
		Judged      map[string]int    `json:"judged"`
		VacuousRuns map[string]int    `json:"vacuous_runs"`
		Vacuous     []string          `json:"vacuous"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "pass", doc.Levels["L0"])
	assert.Equal(t, map[string]int{"L0": 0, "L1": 3}, doc.Obligations)
	assert.Equal(t, map[string]int{"L0.reply": 0}, doc.Judged)
	assert.Equal(t, map[string]int{"L0": 2, "L1": 0}, doc.VacuousRuns)
	assert.Equal(t, []string{"L0"}, doc.Vacuous)
	again, err := json.Marshal(suite.NewReport("s", "i", 1, rep.Runs))
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}

// A run's report carries the checker's counts as they are.
func TestRunReportCarriesTheVerdictsCounts(t *testing.T) {
	b := published(t)[0].Bundle
	for _, p := range published(t) {
		if p.Name == "l4-operator-escalation" {
			b = p.Bundle
		}
	}
	rep, err := suite.Run(b, impl(t, "reference"), suite.Config{Runs: 1})
	require.NoError(t, err)
	r := rep.Runs[0]
	assert.Equal(t, []string{"L0"}, r.Vacuous, "its one message is escalated before a reply is due")
	assert.Equal(t, "pass", r.Levels["L0"])
	assert.Len(t, r.Obligations, 5, "levels L0 to L4")
	assert.Zero(t, r.Judged["L0.reply"])
	assert.Positive(t, r.Judged["L4.escalation-resolution"])
	assert.Equal(t, []string{"L0"}, rep.Vacuous)
}

// Receipts keep the counts, and a run memoized from one shows the same
// vacuous levels as the run that was played.
func TestReceiptsCarryTheCounts(t *testing.T) {
	dir := t.TempDir()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	require.NoError(t, err)
	cfg := suite.Config{Runs: 1, Ledger: l, HarnessVersion: "test"}
	b := bundleNamed(t, "l4-operator-escalation")
	played, err := suite.Run(b, impl(t, "reference"), cfg)
	require.NoError(t, err)
	copied, err := suite.Run(b, impl(t, "reference"), cfg)
	require.NoError(t, err)
	require.Equal(t, 1, copied.Skipped)

	receipts := l.Receipts()
	require.Len(t, receipts, 2)
	v := receipts[0].Verdict
	assert.Equal(t, []string{"L0"}, v.Vacuous)
	assert.Equal(t, played.Runs[0].Obligations, v.Obligations)
	assert.Equal(t, played.Runs[0].Judged, v.Judged)
	assert.Equal(t, v, receipts[1].Verdict)
	assert.Equal(t, played.Vacuous, copied.Vacuous)
	assert.Equal(t, played.Obligations, copied.Obligations)
	assert.Equal(t, played.Runs[0].Judged, copied.Runs[0].Judged)

	rep, err := ledger.Verify(l.Path(), "")
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Problems)
}
