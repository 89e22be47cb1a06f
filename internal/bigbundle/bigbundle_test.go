package bigbundle_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/bigbundle"
	"github.com/amr-bench/amr/scenarios"
)

var shapes = []struct {
	name     string
	generate func(int) *scenarios.Bundle
}{{"spread", bigbundle.Generate}, {"burst", bigbundle.GenerateBurst}}

// Every size the benchmarks measure, in both shapes, is a bundle the
// validator accepts, of exactly that many messages, under the longest
// horizon allowed; and a size gives the same bundle every time.
func TestGeneratedBundlesAreValid(t *testing.T) {
	for _, s := range shapes {
		for _, n := range bigbundle.Sizes {
			b := s.generate(n)
			assert.Empty(t, scenarios.Validate(b, &scenarios.Source{}).Errors(), "%s, size %d", s.name, n)
			assert.Len(t, b.Inbox, n)
			assert.LessOrEqual(t, b.Meta.Horizon, scenarios.MaxHorizon)
		}
		h1, err := s.generate(100).Hash()
		require.NoError(t, err)
		h2, err := s.generate(100).Hash()
		require.NoError(t, err)
		assert.Equal(t, h1, h2, s.name)
	}
}

// The burst shape's ticks do not grow with its size, where the spread
// shape's do: that is what bounds the number of snapshot versions.
func TestBurstTicksAreBounded(t *testing.T) {
	small, large := bigbundle.GenerateBurst(10), bigbundle.GenerateBurst(100_000)
	assert.Equal(t, small.Meta.Horizon, large.Meta.Horizon)
	last := 0
	for _, d := range large.Inbox {
		last = max(last, d.At)
	}
	assert.Equal(t, bigbundle.BurstTicks, last)
	assert.Greater(t, bigbundle.Generate(100_000).Meta.Horizon, 10*large.Meta.Horizon)
}

// Both shapes carry the same mix for a size: the same declined, escalated
// and approved counts, and crashes.
func TestBothShapesCarryTheSameMix(t *testing.T) {
	spread, burst := bigbundle.Generate(10_000), bigbundle.GenerateBurst(10_000)
	assert.Len(t, burst.Approvals, len(spread.Approvals))
	assert.Len(t, burst.Signals, len(spread.Signals))
	assert.NotEmpty(t, burst.Faults)
	assert.NotEmpty(t, spread.Faults)
}
