package suite_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

// The run seed a report carries plays its runs again: the same engine
// seeds and the same verdicts, whether it was given or derived from the
// name.
func TestReportRunSeedReplaysTheRuns(t *testing.T) {
	var b = published(t)[0].Bundle
	impl := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	derived, err := suite.Run(b, impl, suite.Config{Runs: 3})
	require.NoError(t, err)
	require.NotNil(t, derived.Run)
	assert.Equal(t, seeds.Seed(seeds.Named(b.Meta.Name)), *derived.Run)
	assert.Nil(t, derived.Engine, "a report's runs each have their own engine seed")
	given := uint64(*derived.Run)
	again, err := suite.Run(b, impl, suite.Config{Runs: 3, RunSeed: &given})
	require.NoError(t, err)
	assert.Equal(t, derived.Runs, again.Runs)

	seven := uint64(7)
	other, err := suite.Run(b, impl, suite.Config{Runs: 3, RunSeed: &seven})
	require.NoError(t, err)
	assert.Equal(t, seeds.Seed(7), *other.Run)
	assert.NotEqual(t, derived.Runs[0].Engine, other.Runs[0].Engine, "another run seed, other engine seeds")
	for i, r := range other.Runs {
		assert.Equal(t, seeds.OfScored(7, i+1), r.Seeds)
	}
}
