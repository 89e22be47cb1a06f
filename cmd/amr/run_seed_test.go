package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/suite"
)

// amr run prints each row's campaign seed, and --seed with it plays the
// same runs: the printed seed is the one that reproduces them.
func TestRunPrintsTheSeedThatReproducesIt(t *testing.T) {
	bundle := "../../scenarios/l0-respond"
	stdout, stderr, code := execAMR(t, "run", "--runs", "2", bundle)
	require.Equal(t, exitOK, code, stderr)
	m := regexp.MustCompile(`(?m)^l0-respond\s.*\s(\d+)$`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	assert.Regexp(t, `(?m)^SCENARIO\s.*\sRUNS\s+SEED$`, stdout)
	seed, err := strconv.ParseUint(m[1], 10, 64)
	require.NoError(t, err)
	assert.Equal(t, suite.CampaignSeed(publishedBundle(t, "l0-respond"), nil), seed)

	runs := func(args ...string) (uint64, []suite.RunReport) {
		stdout, stderr, code := execAMR(t, append([]string{"run", "--runs", "2", "--json", bundle}, args...)...)
		require.Equal(t, exitOK, code, stderr)
		var doc struct {
			Results []suite.Report `json:"results"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		require.Len(t, doc.Results, 1)
		require.NotNil(t, doc.Results[0].Seed)
		return *doc.Results[0].Seed, doc.Results[0].Runs
	}
	s1, derived := runs()
	s2, given := runs("--seed", m[1])
	assert.Equal(t, seed, s1)
	assert.Equal(t, seed, s2)
	assert.Equal(t, derived, given)
}
