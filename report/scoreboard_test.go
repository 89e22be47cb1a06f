package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/suite"
)

// rep is a scenario report with the given level statuses ("vacuous" for a
// pass with nothing judged), origin and runs.
func rep(impl, scenario, origin string, runs, forced int, levels ...string) *suite.Report {
	r := &suite.Report{Impl: impl, Scenario: scenario, Origin: origin, Levels: map[string]string{}, VacuousRuns: map[string]int{}}
	for i, name := range suite.LevelNames {
		r.Levels[name] = suite.Untested
		if i < len(levels) {
			r.Levels[name] = levels[i]
			r.TopLevel = i
			if levels[i] == suite.Vacuous {
				r.Levels[name] = suite.Pass
				r.Vacuous = append(r.Vacuous, name)
			}
			if levels[i] == suite.Fail {
				r.Violations = append(r.Violations, checker.Violation{Invariant: name + ".broken", Level: i})
			}
		}
	}
	for k := 0; k < runs; k++ {
		rr := suite.RunReport{Run: k + 1}
		if k == 0 {
			rr.Forced = forced
		}
		r.Runs = append(r.Runs, rr)
	}
	return r
}

func cellOf(t *testing.T, sb Scoreboard, impl, level string) Cell {
	t.Helper()
	for _, row := range sb.Rows {
		if row.Impl != impl {
			continue
		}
		for _, c := range row.Cells {
			if c.Level == level {
				return c
			}
		}
	}
	t.Fatalf("no cell %s %s", impl, level)
	return Cell{}
}

func TestScoreboardCells(t *testing.T) {
	const mb, mf = checker.OriginModelBased, checker.OriginModelFree
	all := []result{
		{report: rep("a", "s1", mb, 5, 2, "pass", "pass")},
		{report: rep("a", "s2", mf, 5, 0, "vacuous", "fail", "pass")},
		{report: rep("a", "s3", mb, 5, 1, "vacuous")},
		{report: rep("b", "s1", mb, 5, 0, "fail")},
		// b's later report of s1 supersedes the first; both count as runs.
		{report: rep("b", "s1", mb, 5, 0, "pass")},
		{report: rep("b", "s2", mb, 5, 0, "vacuous")},
	}
	sb := buildScoreboard(all, nil, nil)
	require.Len(t, sb.Rows, 2)

	l0 := cellOf(t, sb, "a", "L0")
	assert.Equal(t, suite.Pass, l0.Status, "a pass with evidence beside vacuous ones is a pass")
	assert.Equal(t, checker.OriginMixed, l0.Origin, "model-based and model-free runs make a mixed cell")
	assert.Equal(t, 3, l0.Scenarios)
	assert.Equal(t, 15, l0.Runs)
	assert.Equal(t, 3, l0.Forced)

	l1 := cellOf(t, sb, "a", "L1")
	assert.Equal(t, suite.Fail, l1.Status)
	assert.Equal(t, []string{"s2"}, l1.Failed)
	assert.Equal(t, suite.Pass, cellOf(t, sb, "a", "L2").Status)
	assert.Equal(t, mf, cellOf(t, sb, "a", "L2").Origin)
	assert.Equal(t, suite.Untested, cellOf(t, sb, "a", "L3").Status)
	assert.Equal(t, 0, cellOf(t, sb, "a", "L3").Runs)

	b0 := cellOf(t, sb, "b", "L0")
	assert.Equal(t, suite.Pass, b0.Status, "the latest report of a scenario is the one scored")
	assert.Equal(t, 10, b0.Runs, "the superseded report's runs are not behind the cell")
	assert.Equal(t, 15, sb.Rows[1].Observed.Runs, "every run read counts toward the runs needed")
	assert.Equal(t, 2, sb.Rows[1].Scenarios)

	vac := buildScoreboard([]result{{report: rep("c", "s", mb, 5, 0, "vacuous")}}, nil, nil)
	assert.Equal(t, suite.Vacuous, cellOf(t, vac, "c", "L0").Status, "only vacuous passes: vacuous, no evidence")

	none := buildScoreboard([]result{{report: rep("d", "s", checker.OriginNone, 1, 0, "fail")}}, nil, nil)
	assert.Equal(t, checker.OriginNone, cellOf(t, none, "d", "L0").Origin)

	inv := rep("e", "s", mb, 1, 0, "pass")
	inv.Invalid = true
	assert.Equal(t, Invalid, cellOf(t, buildScoreboard([]result{{report: inv}}, nil, nil), "e", "L0").Status,
		"an invalid run is neither a pass nor a fail")
}

func TestClassifyAndAnnul(t *testing.T) {
	all := []result{
		{report: rep("a", "s1", "model-based", 5, 0, "pass", "fail")},
		{report: rep("a", "s2", "model-based", 5, 0, "pass", "fail", "fail")},
		{report: rep("a", "s3", "model-based", 5, 0, "fail")},
	}
	disclosed := sourcedAll([]Classification{
		{Impl: "a", Scenario: "s1", Level: "L1", Class: ClassAdapter},
		{Impl: "a", Scenario: "s2", Level: "L2", Class: ClassMechanism},
		{Impl: "a", Scenario: "s9", Level: "L0", Class: ClassMechanism},
	}, "disclosure", "sub/classes.json")
	overrides := sourcedAll([]Classification{
		{Impl: "a", Scenario: "s2", Level: "L2", Class: ClassFixtureDefect, Justification: "the approval schedule named a draft the scenario never asks for"},
		{Impl: "a", Scenario: "s3", Level: "L0", Class: ClassFixtureDefect, Justification: "the inbox line was malformed"},
	}, "override", "over.json")
	failures, unmatched := classify(all, disclosed, overrides)
	require.Len(t, failures, 4)
	byKey := map[string]Failure{}
	for _, f := range failures {
		byKey[f.Scenario+" "+f.Level] = f
	}
	assert.Equal(t, ClassAdapter, byKey["s1 L1"].Class)
	assert.Equal(t, "disclosure sub/classes.json", byKey["s1 L1"].Source)
	assert.False(t, byKey["s1 L1"].Annulled)
	assert.Equal(t, []string{"L1.broken"}, byKey["s1 L1"].Invariants)

	assert.Equal(t, ClassMechanism, byKey["s2 L1"].Class, "no file classifies it: mechanism")
	assert.Equal(t, Unclassified, byKey["s2 L1"].Source)

	assert.Equal(t, ClassFixtureDefect, byKey["s2 L2"].Class, "an override wins over the disclosure")
	assert.True(t, byKey["s2 L2"].Annulled)
	assert.Equal(t, "override over.json", byKey["s2 L2"].Source)
	assert.NotEmpty(t, byKey["s2 L2"].Justification)

	require.Len(t, unmatched, 1)
	assert.Equal(t, "s9", unmatched[0].Scenario, "a classification of no FAIL is shown, not dropped")

	sb := buildScoreboard(all, failures, nil)
	l2 := cellOf(t, sb, "a", "L2")
	assert.Equal(t, Annulled, l2.Status, "a level failed only by a fixture-defect is annulled, not FAIL")
	assert.Equal(t, []string{"s2"}, l2.Annulled)
	assert.Equal(t, 0, l2.Runs, "annulled results are not counted")

	l0 := cellOf(t, sb, "a", "L0")
	assert.Equal(t, suite.Pass, l0.Status, "the annulled s3 does not count; s1 and s2 passed")
	assert.Equal(t, []string{"s3"}, l0.Annulled)

	l1 := cellOf(t, sb, "a", "L1")
	assert.Equal(t, suite.Fail, l1.Status, "adapter and mechanism failures count")
	assert.Equal(t, []string{"s1", "s2"}, l1.Failed)
}
