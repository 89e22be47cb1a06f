package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A timeout's hold is part of the bundle (D183): a copy, a bundle saved and
// loaded again (as a counterexample and its shrunk form are) keep it, so a
// replay holds the call as the run did; a timeout without one keeps the
// bundle's bytes as they were before hold_ms existed.
func TestATimeoutsHoldTravelsWithTheBundle(t *testing.T) {
	b := baseBundle()
	b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelTimeout, HoldMS: 7}, {Call: 2, Kind: ModelTimeout}}
	assert.Equal(t, b.Model.Failures, b.Clone().Model.Failures)
	dir := t.TempDir()
	require.NoError(t, SaveDir(b, dir))
	loaded, _, err := LoadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, []int{7, DefaultHoldMS}, []int{loaded.Model.Failures[0].Hold(), loaded.Model.Failures[1].Hold()})

	without := baseBundle()
	without.Model.Failures = []ModelFailure{{Call: 2, Kind: ModelTimeout}}
	data, err := without.MarshalIndent()
	require.NoError(t, err)
	assert.NotContains(t, string(data), "hold_ms")
}
