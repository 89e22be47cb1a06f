package checker_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// idle is an implementation that does nothing at all.
type idle struct{}

func (idle) Step(*sandbox.Env) error { return nil }

// A system that does nothing violates no safety invariant and must fail
// liveness (spec §2 "Liveness"): on every published scenario it fails the
// scenario's top level, whose liveness the scenario exists to test, and
// every violation it gets is a liveness one — except the missing state.json
// that L3 requires as part of the contract.
func TestIdleImplementationFailsPublishedScenarios(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	require.NotEmpty(t, published)
	for _, p := range published {
		t.Run(p.Name, func(t *testing.T) {
			res, err := sim.Run(p.Bundle, func() sandbox.Implementation { return idle{} }, sim.Options{Seed: 1})
			require.NoError(t, err)
			v := checker.Check(checker.Input{Bundle: p.Bundle, Files: res.Files.Files(), Log: res.Log})
			for _, x := range v.Violations {
				inv, ok := checker.Lookup(x.Invariant)
				require.True(t, ok, x.Invariant)
				if x.Invariant != "L3.state-consistency" {
					assert.Equal(t, checker.KindLiveness, inv.Kind, "%s fired on an idle system: %s", x.Invariant, x.Detail)
				}
			}
			assert.Equal(t, checker.Fail, v.Levels[p.Bundle.Meta.TopLevel])
		})
	}
}
