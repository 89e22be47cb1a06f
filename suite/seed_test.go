package suite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/suite"
)

// The seed a report carries plays its runs again: the same run seeds and
// the same verdicts, whether it was given or derived from the name.
func TestReportSeedReplaysTheRuns(t *testing.T) {
	var b = published(t)[0].Bundle
	impl := suite.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	derived, err := suite.Run(b, impl, suite.Config{Runs: 3})
	require.NoError(t, err)
	require.NotNil(t, derived.Seed)
	again, err := suite.Run(b, impl, suite.Config{Runs: 3, Seed: derived.Seed})
	require.NoError(t, err)
	assert.Equal(t, derived.Runs, again.Runs)

	seven := uint64(7)
	given, err := suite.Run(b, impl, suite.Config{Runs: 3, Seed: &seven})
	require.NoError(t, err)
	assert.Equal(t, seven, *given.Seed)
	assert.NotEqual(t, derived.Runs[0].Seed, given.Runs[0].Seed, "another campaign seed, other run seeds")
	for i, r := range given.Runs {
		assert.Equal(t, suite.RunSeed(b, &seven, i+1), r.Seed)
	}
}
