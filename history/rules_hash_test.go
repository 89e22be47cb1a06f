package history_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
)

// A rules change in the history carries the hash of the bytes the
// implementation was given: the run log's, or without one the bundle's own
// text, never the hash of amr's re-encoding.
func TestRulesChangeCarriesTheHashOfTheBytesGiven(t *testing.T) {
	b := published(t)["l2-govern"].Clone()
	i := rulesFault(t, b)
	text := `[{"admit":true,"id":"vip","when":{"from_in":["vip@example.com"]}},{"id":"short-order-thread","admit":true,"when":{"subject_contains":"order","thread_length_max":3}},{"id":"vip-only-gate","admit":false,"when":{"posture":"vip-only"},"overrides":["short-order-thread"]}]`
	b.Faults[i].RulesJSON = text
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	res := play(t, b, "reference", 1)
	for _, withLog := range []bool{true, false} {
		var hashes []string
		for _, op := range compile(res, b, withLog).Ops {
			if op.Type == history.OpRules {
				hashes = append(hashes, op.R().RulesHash)
			}
		}
		assert.Equal(t, []string{scenarios.RulesHash([]byte(text))}, hashes, "with log: %v", withLog)
	}
}

func rulesFault(t *testing.T, b *scenarios.Bundle) int {
	t.Helper()
	for i, f := range b.Faults {
		if f.Kind == scenarios.FaultRules {
			return i
		}
	}
	require.FailNow(t, "no rules fault")
	return -1
}
