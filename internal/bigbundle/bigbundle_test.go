package bigbundle_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/bigbundle"
	"github.com/amr-bench/amr/scenarios"
)

// Every size the benchmarks measure is a bundle the validator accepts, of
// exactly that many messages, under the longest horizon allowed; and a size
// gives the same bundle every time.
func TestGeneratedBundlesAreValid(t *testing.T) {
	for _, n := range bigbundle.Sizes {
		b := bigbundle.Generate(n)
		assert.Empty(t, scenarios.Validate(b, &scenarios.Source{}).Errors(), "size %d", n)
		assert.Len(t, b.Inbox, n)
		assert.LessOrEqual(t, b.Meta.Horizon, scenarios.MaxHorizon)
	}
	h1, err := bigbundle.Generate(100).Hash()
	require.NoError(t, err)
	h2, err := bigbundle.Generate(100).Hash()
	require.NoError(t, err)
	assert.Equal(t, h1, h2)
}
