package checker_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// judged is one run judged by both oracles.
type judged struct {
	level checker.Verdict
	hist  history.Verdict
}

var (
	pubOnce sync.Once
	pubs    map[string]*scenarios.Bundle
	pubErr  error
)

func bundle(t *testing.T, name string) *scenarios.Bundle {
	t.Helper()
	pubOnce.Do(func() {
		var all []scenarios.PublishedBundle
		all, pubErr = scenarios.Published()
		pubs = map[string]*scenarios.Bundle{}
		for _, p := range all {
			pubs[p.Name] = p.Bundle
		}
	})
	require.NoError(t, pubErr)
	b := pubs[name]
	require.NotNil(t, b, name)
	return b
}

// judgeRun plays impl on a published scenario and judges it with both
// oracles, with and without the run log.
func judgeRun(t *testing.T, scenario, impl string) [2]judged {
	t.Helper()
	b := bundle(t, scenario)
	im, ok := examples.Lookup(impl)
	require.True(t, ok, impl)
	res, err := sim.Run(b, im.New, sim.Options{Seed: 1})
	require.NoError(t, err)
	var out [2]judged
	for i, log := range [][]sandbox.LogRecord{res.Log, nil} {
		in := checker.Input{Bundle: b, Files: res.Files.Files(), Log: log}
		out[i] = judged{
			level: checker.Check(in),
			hist:  history.Check(history.Compile(history.Input{Bundle: b, Files: in.Files, Log: log})),
		}
	}
	return out
}

func answer(g checker.GuardResult, question string) (checker.Answer, bool) {
	for _, a := range g.Compared {
		if a.Question == question {
			return a, true
		}
	}
	return checker.Answer{}, false
}

// Every guard question is exercised by some weak implementation with a
// count above zero, and the two oracles give the same count.
func TestGuardQuestionsAreExercisedAndAgree(t *testing.T) {
	cases := []struct {
		question, scenario, impl string
		count                    int
	}{
		{"undeclared-effects", "l0-respond", "weak-undeclared-send", 1},
		{"duplicate-effects", "l2-approval-redelivery", "weak-send-per-approval", 2},
		{"duplicate-effects", "l1-crash-after-send", "weak-send-before-record", 1},
		{"contradictions", "l1-anchor-collision", "weak-undeclared-send", 3},
		{"unauthorized-effects", "l2-govern", "weak-send-without-approval", 5},
		{"unauthorized-effects", "l2-govern", "weak-trust-any-approval", 1},
		{"admissions", "l2-govern", "weak-ignore-posture", 1},
		{"admissions", "l2-govern", "weak-rules-once", 1},
		{"admissions", "l2-tick-jump-intake", "weak-jump-blind", 2},
		{"sends-after-rejection", "l3-reject-then-approve", "weak-last-decision-wins", 1},
		{"sends-after-rejection", "l3-reject-then-approve", "weak-ignore-reject", 1},
		{"sends-after-escalation", "l4-operator-escalation", "weak-ignore-escalation", 1},
		{"sends-after-escalation", "l6-post-approval-escalation", "weak-escalate-before-approval-only", 1},
	}
	for _, c := range cases {
		for k, j := range judgeRun(t, c.scenario, c.impl) {
			withLog := k == 0
			g := checker.Guard(j.level, j.hist)
			assert.True(t, g.Agree, "%s on %s (log %v): %s", c.impl, c.scenario, withLog, g)
			a, ok := answer(g, c.question)
			require.True(t, ok, "%s not compared on %s", c.question, c.scenario)
			assert.Equal(t, c.count, a.Level, "%s %s on %s", c.question, c.impl, c.scenario)
			assert.Equal(t, c.count, a.History)
			assert.NotEmpty(t, a.LevelEvidence)
			assert.NotEmpty(t, a.HistoryEvidence)
		}
	}
}

// The whole zoo on every published scenario, with and without the run log:
// the oracles never disagree.
func TestGuardAgreesOnTheZoo(t *testing.T) {
	all, err := scenarios.Published()
	require.NoError(t, err)
	for _, im := range examples.All() {
		for _, p := range all {
			for k, j := range judgeRun(t, p.Name, im.Name) {
				g := checker.Guard(j.level, j.hist)
				assert.True(t, g.Agree, "%s on %s (log %v): %s", im.Name, p.Name, k == 0, g)
			}
		}
	}
}

// A level checker doctored to under-count duplicate effects is caught.
func TestGuardCatchesADoctoredLevelChecker(t *testing.T) {
	j := judgeRun(t, "l2-approval-redelivery", "weak-send-per-approval")[0]
	require.True(t, checker.Guard(j.level, j.hist).Agree)
	doctored := j.level
	doctored.Violations = nil
	dropped := false
	for _, v := range j.level.Violations {
		if v.Invariant == "L1.duplicate-effect" && !dropped {
			dropped = true // the favourable-measurement bug: one duplicate not counted
			continue
		}
		doctored.Violations = append(doctored.Violations, v)
	}
	require.True(t, dropped)
	g := checker.Guard(doctored, j.hist)
	assert.False(t, g.Agree)
	require.Len(t, g.Diffs, 1)
	assert.Equal(t, "duplicate-effects", g.Diffs[0].Question)
	assert.Equal(t, 1, g.Diffs[0].Level)
	assert.Equal(t, 2, g.Diffs[0].History)
	assert.Contains(t, g.String(), "duplicate-effects: level 1, history 2")
}

// A history checker doctored likewise is caught.
func TestGuardCatchesADoctoredHistoryChecker(t *testing.T) {
	j := judgeRun(t, "l2-approval-redelivery", "weak-send-per-approval")[0]
	doctored := j.hist
	doctored.Violations = nil
	for _, v := range j.hist.Violations {
		if v.Invariant != history.H1DuplicateEffect {
			doctored.Violations = append(doctored.Violations, v)
		}
	}
	g := checker.Guard(j.level, doctored)
	assert.False(t, g.Agree)
	require.Len(t, g.Diffs, 1)
	assert.Equal(t, "duplicate-effects", g.Diffs[0].Question)
	assert.Equal(t, 2, g.Diffs[0].Level)
	assert.Equal(t, 0, g.Diffs[0].History)
}

// Each question is compared only when its level was judged.
func TestGuardSkipsUntestedLevels(t *testing.T) {
	j := judgeRun(t, "l0-respond", "weak-undeclared-send")[0]
	g := checker.Guard(j.level, j.hist)
	assert.True(t, g.Agree)
	assert.Equal(t, []string{"duplicate-effects", "contradictions", "unauthorized-effects", "admissions", "sends-after-rejection", "sends-after-escalation", "drafts-after-escalation"}, g.Skipped)
	require.Len(t, g.Compared, 1)
	assert.Equal(t, "undeclared-effects", g.Compared[0].Question)
	// The history oracle still found the unauthorized send; L2 was simply
	// not judged on an L0 scenario.
	assert.Equal(t, 1, j.hist.Counts[history.H5UnauthorizedEffect])
}

func TestGuardQuestionsNameRealInvariants(t *testing.T) {
	ids := map[string]bool{}
	for _, inv := range history.Invariants() {
		ids[inv.ID] = true
	}
	for _, q := range checker.GuardQuestions() {
		assert.True(t, ids[q.HistoryID], q.Name)
		for _, id := range q.LevelIDs {
			inv, ok := checker.Lookup(id)
			require.True(t, ok, id)
			assert.Equal(t, q.Level, inv.Level, "%s: %s", q.Name, id)
		}
	}
}
