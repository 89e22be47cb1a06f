package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/internal/doctored"
	"github.com/amr-bench/amr/play"
)

// Either oracle's admission evaluator, doctored to forget posture changes,
// makes the reference's correct l2-govern run INVALID (exit 3), and a fuzz
// campaign stops at the first generated run it misjudges.
func TestAnEvaluatorThatForgetsPostureMakesRunsInvalid(t *testing.T) {
	dir := t.TempDir()
	b := publishedCopy(t, "l2-govern", dir)
	_, stderr, code := execAMR(t, "run", "--runs", "1", "--impl", "reference", b)
	require.Equal(t, exitOK, code, stderr)

	for side, doctor := range map[string]func() func(){
		"level":   func() func() { return play.WithOracles(doctored.LevelForgetsPosture, nil) },
		"history": func() func() { return play.WithOracles(nil, doctored.HistoryForgetsPosture) },
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
