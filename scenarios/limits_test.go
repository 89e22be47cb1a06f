package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

// The validator's horizon limit is scenarios.MaxHorizon: a bundle may run
// to it and not one tick further.
func TestValidateHorizonLimit(t *testing.T) {
	for _, tc := range []struct {
		horizon int
		ok      bool
	}{
		{scenarios.MaxHorizon, true},
		{scenarios.MaxHorizon + 1, false},
		{0, false},
	} {
		b, _, err := scenarios.Load("l0-respond")
		require.NoError(t, err)
		b.Meta.Horizon = tc.horizon
		var horizonErrs []scenarios.Problem
		for _, p := range scenarios.Validate(b, nil).Errors() {
			if p.Field == "meta.horizon" {
				horizonErrs = append(horizonErrs, p)
			}
		}
		assert.Equal(t, tc.ok, len(horizonErrs) == 0, "horizon %d: %v", tc.horizon, horizonErrs)
	}
}

func TestLevelsCountsTheLadder(t *testing.T) {
	assert.Equal(t, 7, scenarios.Levels)
	assert.Equal(t, 0, scenarios.MinLevel)
	assert.Equal(t, 6, scenarios.MaxLevel)
	assert.Equal(t, 5, scenarios.ScoredRuns)
}
