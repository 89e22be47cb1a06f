package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
)

// levelForgetsPosture is the level checker judging as if the bundle never
// changed the posture.
func levelForgetsPosture(in checker.Input) checker.Verdict {
	if in.Bundle != nil {
		b := in.Bundle.Clone()
		b.Faults = b.Faults[:0]
		for _, f := range in.Bundle.Faults {
			if f.Kind != scenarios.FaultPosture {
				b.Faults = append(b.Faults, f)
			}
		}
		in.Bundle = b
	}
	return checker.Check(in)
}

// historyForgetsPosture is the history oracle with the same defect.
func historyForgetsPosture(h *history.History) history.Verdict {
	doctored := *h
	if h.Admission != nil {
		a := *h.Admission
		a.Changes = nil
		for _, c := range h.Admission.Changes {
			if c.Kind != scenarios.FaultPosture {
				a.Changes = append(a.Changes, c)
			}
		}
		doctored.Admission = &a
	}
	return history.Check(&doctored)
}

// Either oracle's admission evaluator, doctored to forget posture changes,
// makes the reference's correct l2-govern run INVALID (exit 3), and a fuzz
// campaign stops at the first generated run it misjudges.
func TestAnEvaluatorThatForgetsPostureMakesRunsInvalid(t *testing.T) {
	dir := t.TempDir()
	b := publishedCopy(t, "l2-govern", dir)
	_, stderr, code := execAMR(t, "run", "--runs", "1", "--impl", "reference", b)
	require.Equal(t, exitOK, code, stderr)

	for side, doctor := range map[string]func() func(){
		"level":   func() func() { return play.WithOracles(levelForgetsPosture, nil) },
		"history": func() func() { return play.WithOracles(nil, historyForgetsPosture) },
	} {
		t.Run(side, func(t *testing.T) {
			restore := doctor()
			defer restore()
			stdout, stderr, code := execAMR(t, "run", "--runs", "1", "--impl", "reference", b)
			assert.Equal(t, exitInvalid, code, stderr)
			assert.Contains(t, stdout, "INVALID l2-govern run 1")
			assert.Contains(t, stdout, "admissions")

			out := filepath.Join(t.TempDir(), "out")
			stdout, stderr, code = execAMR(t, "fuzz", "--impl", "reference", "--seed", "1", "--runs", "300",
				"--profile", "admission", "--no-corpus", "--out", out)
			require.Equal(t, exitInvalid, code, stderr)
			assert.Contains(t, stdout, "INVALID: run ")
			assert.Contains(t, stdout, "admissions")
			assert.FileExists(t, filepath.Join(out, fuzz.InvalidDir, fuzz.BundleJSON))
		})
	}
}
