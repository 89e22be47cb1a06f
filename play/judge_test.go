package play_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
)

// underCountDuplicates is a level checker with the classic favourable
// measurement bug: it drops the duplicate-effect findings.
func underCountDuplicates(in checker.Input) checker.Verdict {
	v := checker.Check(in)
	var kept []checker.Violation
	for _, x := range v.Violations {
		if x.Invariant != "L1.duplicate-effect" {
			kept = append(kept, x)
		}
	}
	v.Violations = kept
	return v
}

// forgetDuplicates is the same bug in the history oracle.
func forgetDuplicates(h *history.History) history.Verdict {
	v := history.Check(h)
	var kept []history.Violation
	for _, x := range v.Violations {
		if x.Invariant != history.H1DuplicateEffect {
			kept = append(kept, x)
		}
	}
	v.Violations = kept
	return v
}

// A doctored oracle, in either direction, makes a play INVALID: the guard
// names the question the oracles answered differently.
func TestDoctoredOracleMakesAPlayInvalid(t *testing.T) {
	b := published(t, "l2-approval-redelivery")
	weak := builtin(t, "weak-send-per-approval")
	clean, err := play.Play(b, weak, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	require.False(t, clean.Invalid())
	require.True(t, clean.Violates("L1.duplicate-effect"))
	for name, hook := range map[string]func() func(){
		"level":   func() func() { return play.WithOracles(underCountDuplicates, nil) },
		"history": func() func() { return play.WithOracles(nil, forgetDuplicates) },
	} {
		t.Run(name, func(t *testing.T) {
			restore := hook()
			defer restore()
			r, err := play.Play(b, weak, seeds.Seeds{}, play.Options{})
			require.NoError(t, err)
			assert.True(t, r.Invalid())
			require.Len(t, r.Judgement.Guard.Diffs, 1)
			assert.Equal(t, "duplicate-effects", r.Judgement.Guard.Diffs[0].Question)
		})
	}
	again, err := play.Play(b, weak, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	assert.False(t, again.Invalid(), "restored: the real oracles agree again")
}

// The zoo against generated runs of every fault profile, judged with and
// without the run log: zero INVALID runs.
func TestGuardOverAFaultCampaign(t *testing.T) {
	runs := 3
	if testing.Short() {
		runs = 1
	}
	total, compared := 0, map[string]int{}
	for _, im := range examples.All() {
		for _, preset := range faults.PresetNames() {
			for i := 0; i < runs; i++ {
				r, err := fuzz.PlayGenerated(29, i, preset, play.Impl{Name: im.Name, New: im.New}, 0)
				require.NoError(t, err)
				for _, withLog := range []bool{true, false} {
					in := r.Result.Log
					if !withLog {
						in = nil
					}
					j := play.Judge(r.Bundle, r.Result.Files.Files(), in)
					total++
					require.False(t, j.Invalid(), "%s, preset %s, run %d, log %v: %s", im.Name, preset, i, withLog, j.Guard)
					for _, a := range j.Guard.Compared {
						if a.Level > 0 {
							compared[a.Question]++
						}
					}
				}
			}
		}
	}
	t.Logf("%d judged runs, zero INVALID; runs with a non-zero answer per question: %v", total, compared)
	for _, q := range checker.GuardQuestions() {
		assert.Positive(t, compared[q.Name], "no generated run exercised %s", q.Name)
	}
}
