package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/seeds"
)

func decimal(n uint64) string { return strconv.FormatUint(n, 10) }

// Every command that plays says first which seeds it plays with, in the one
// form docs/fuzz.md describes.
func TestEveryCommandPrintsItsSeedsFirst(t *testing.T) {
	l0, l2 := scenario("l0-respond"), scenario("l2-govern")
	named := seeds.Named("l0-respond")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"run, given a run seed", []string{"run", "--runs", "1", "--seed", "7", l0, l2}, "seed: run=7"},
		{"run, one bundle", []string{"run", "--runs", "1", l0}, "seed: run=" + decimal(named)},
		{"run, several bundles", []string{"run", "--runs", "1", l0, l2}, namedSeedsLine},
		{"replay", []string{"replay", l0}, "seed: run=" + decimal(named) + " engine=" + decimal(seeds.Engine(named, 1))},
		{"replay, given a run seed", []string{"replay", l0, "--seed", "7"}, "seed: run=7 engine=" + decimal(seeds.Engine(7, 1))},
		{"fuzz", []string{"fuzz", "--seed", "5", "--runs", "3", "--no-corpus"}, "seed: campaign=5"},
		{"shrink", []string{"shrink", l0, "--impl", "weak-no-send", "--seed", "7"}, "seed: run=7 engine=" + decimal(seeds.Engine(7, 1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, _ := execAMR(t, c.args...)
			first, _, _ := strings.Cut(stdout, "\n")
			assert.Equal(t, c.want, first, stderr)
		})
	}
}

// Seeds are decimal strings in JSON, exact for every 64-bit value.
func TestSeedsAreStringsInJSON(t *testing.T) {
	const top = "18446744073709551615"
	out := t.TempDir()
	stdout, stderr, code := execAMR(t, "run", "--runs", "2", "--seed", top, "--json", "--out", out, scenario("l0-respond"))
	require.Equal(t, exitOK, code, stderr)
	var run struct {
		RunSeed any `json:"run_seed"`
		Results []struct {
			Runs []map[string]any `json:"runs"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	assert.Equal(t, top, run.RunSeed)
	for i, rr := range run.Results[0].Runs {
		assert.Equal(t, top, rr["run_seed"])
		assert.Equal(t, decimal(seeds.Engine(1<<64-1, i+1)), rr["engine_seed"])
		assert.NotContains(t, rr, "seed")
	}
	log, err := os.ReadFile(filepath.Join(out, "l0-respond", "run-2", "run.jsonl"))
	require.NoError(t, err)
	startLine, _, _ := strings.Cut(string(log), "\n")
	var start map[string]any
	require.NoError(t, json.Unmarshal([]byte(startLine), &start))
	assert.Equal(t, decimal(seeds.Engine(1<<64-1, 2)), start["engine_seed"], "the run log's start record")

	stdout, stderr, code = execAMR(t, "fuzz", "--impl", "weak-no-send", "--seed", "3", "--runs", "200", "--no-corpus",
		"--no-shrink", "--json", "--out", t.TempDir())
	require.Equal(t, exitFail, code, stderr)
	var fuzz struct {
		Campaign       any            `json:"campaign_seed"`
		Counterexample map[string]any `json:"counterexample"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &fuzz))
	assert.Equal(t, "3", fuzz.Campaign)
	cx := fuzz.Counterexample
	index := int(cx["run"].(float64))
	runSeed := seeds.Run(3, index)
	assert.Equal(t, "3", cx["campaign_seed"])
	assert.Equal(t, decimal(runSeed), cx["run_seed"])
	assert.Equal(t, decimal(seeds.Engine(runSeed, 1)), cx["engine_seed"])
	assert.Contains(t, cx["replay"], "--seed "+decimal(runSeed)+" ", "the replay command takes the run seed")

	stdout, stderr, _ = execAMR(t, "replay", "--json", "--seed", top, scenario("l0-respond"))
	var tl map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &tl), stderr)
	assert.Equal(t, top, tl["run_seed"])
	assert.Equal(t, decimal(seeds.Engine(1<<64-1, 1)), tl["engine_seed"])
}
