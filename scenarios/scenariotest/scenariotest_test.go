package scenariotest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/scenarios/scenariotest"
)

// The fixture is a bundle the validator accepts, and two fixtures differ in
// every string their names are part of.
func TestSmallIsValid(t *testing.T) {
	b := scenariotest.Small("echo", 3, "Refund echo", "Echo wants a refund.")
	assert.Empty(t, scenarios.Validate(b, nil).Errors())
	other := scenariotest.Small("kilo", 3, "Refund echo", "Echo wants a refund.")
	ha, err := b.Hash()
	assert.NoError(t, err)
	hb, err := other.Hash()
	assert.NoError(t, err)
	assert.NotEqual(t, ha, hb)
}
