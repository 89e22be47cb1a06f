package faults_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
)

// The generators never make a bundle the reference fails: a campaign's
// failure is always the implementation's, never the scenario's.
func TestReferenceNeverFailsAGeneratedBundle(t *testing.T) {
	ref := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	rapid.Check(t, func(t *rapid.T) {
		p, b := faults.DrawGenerated(t)
		seed := rapid.Uint64().Draw(t, "seed")
		r, err := fuzz.Play(b, ref, &seed, 0)
		require.NoError(t, err)
		if r.Failed() {
			data, _ := b.MarshalIndent()
			t.Fatalf("the reference failed %v under profile %s:\n%v\n%s", r.Invariants(), p, r.Verdict().Violations, data)
		}
	})
}
