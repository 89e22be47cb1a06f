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
	"github.com/amr-bench/amr/internal/doctored"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
)

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
		"level":   func() func() { return play.WithOracles(doctored.LevelForgetsDuplicates, nil) },
		"history": func() func() { return play.WithOracles(nil, doctored.HistoryForgetsDuplicates) },
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

// Judge parses each file once for both oracles; each oracle judging alone,
// parsing for itself, finds the same: on failing runs of weak
// implementations as on the reference's clean ones.
func TestJudgeSharedParseJudgesAsEachOracleAlone(t *testing.T) {
	cases := []struct{ bundle, impl string }{
		{"l2-approval-redelivery", "weak-send-per-approval"},
		{"l1-multiturn-crash", examples.ReferenceName},
		{"l1-torn-write", "weak-torn-glue"},
		{"l3-fleet-concurrent-redelivery", "weak-fork-on-duplicate"},
	}
	failed := 0
	for _, c := range cases {
		b := published(t, c.bundle)
		r, err := play.Play(b, builtin(t, c.impl), seeds.Seeds{}, play.Options{})
		require.NoError(t, err)
		files, log := r.Result.Files.Files(), r.Result.Log
		alone := checker.Check(checker.Input{Bundle: b, Files: files, Log: log})
		assert.Equal(t, alone, r.Judgement.Level, c.impl)
		compiled := history.Compile(history.Input{Bundle: b, Files: files, Log: log})
		assert.Equal(t, compiled.Bytes(), r.Judgement.Compiled.Bytes(), c.impl)
		assert.Equal(t, history.Check(compiled), r.Judgement.History, c.impl)
		if r.Failed() {
			failed++
		}
	}
	assert.Positive(t, failed, "some case must fail, or the failing paths go untested")
}
