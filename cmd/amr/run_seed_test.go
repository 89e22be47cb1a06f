package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

// Over several bundles, each with the run seed its name gives, amr run
// shows each row's run seed, and --seed with it plays the same runs; where
// the seed line names the one run seed, no column repeats it.
func TestRunPrintsTheRunSeedThatReproducesIt(t *testing.T) {
	a, b := "../../scenarios/l0-respond", "../../scenarios/l1-crash-after-send"
	stdout, stderr, code := execAMR(t, "run", "--runs", "2", a, b)
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, namedSeedsLine+"\n"), stdout)
	assert.Regexp(t, `(?m)^SCENARIO\s.*\sRUNS\s+RUN SEED$`, stdout)
	m := regexp.MustCompile(`(?m)^l0-respond\s.*\s(\d+)$`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	want := seeds.Named("l0-respond")
	assert.Equal(t, seeds.Seed(want).String(), m[1])

	runs := func(args ...string) (*suite.Report, string) {
		stdout, stderr, code := execAMR(t, append([]string{"run", "--runs", "2", "--json", a}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		var doc struct {
			Results []*suite.Report `json:"results"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		require.Len(t, doc.Results, 1)
		require.NotNil(t, doc.Results[0].Run)
		return doc.Results[0], stdout
	}
	derived, text := runs()
	assert.Contains(t, text, `"run_seed": "`+m[1]+`"`, "a seed is a decimal string in JSON")
	given, _ := runs("--seed", m[1])
	assert.Equal(t, seeds.Seed(want), *derived.Run)
	assert.Equal(t, seeds.Seed(want), *given.Run)
	assert.Equal(t, derived.Runs, given.Runs)

	// One bundle, or one --seed for all: the seed line says it once.
	for _, args := range [][]string{{a}, {"--seed", "7", a, b}} {
		stdout, stderr, code := execAMR(t, append([]string{"run", "--runs", "1"}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		assert.Regexp(t, `^seed: run=\d+\n`, stdout)
		assert.NotContains(t, stdout, "RUN SEED")
	}
}
