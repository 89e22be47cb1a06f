package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/scenarios/scenariotest"
)

// The published suite is light: amr run trades heap for collector time on
// it. One bundle past either bound makes the whole run heavy.
func TestLightRunsAreTheSmallBundles(t *testing.T) {
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	var all []namedBundle
	for _, p := range pubs {
		all = append(all, namedBundle{path: p.Name, bundle: p.Bundle})
	}
	assert.True(t, lightRuns(all))

	long := scenariotest.Small("l0-long", 0, "s", "b")
	long.Meta.Horizon = lightHorizon + 1
	assert.False(t, lightRuns(append(all, namedBundle{bundle: long})))

	many := scenariotest.Small("l0-many", 0, "s", "b")
	for i := len(many.Inbox); i <= lightMessages; i++ {
		m := many.Inbox[0]
		m.ID = fmt.Sprintf("m-%d", i)
		many.Inbox = append(many.Inbox, m)
	}
	assert.False(t, lightRuns(append(all, namedBundle{bundle: many})))

	edge := scenariotest.Small("l0-edge", 0, "s", "b")
	edge.Meta.Horizon = lightHorizon
	assert.True(t, lightRuns([]namedBundle{{bundle: edge}}))
}
