package examples

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/scenarios"
)

// An implementation that ignores agents does everything else right, so
// every published L3 scenario with an AGENT_DEATH must fail it on L3 for the
// death it never let the harness deliver, and on nothing below L3.
func TestPublishedL3ScenariosCatchAnAgentlessImplementation(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	weak, ok := Lookup("weak-no-agents")
	require.True(t, ok)
	tried := 0
	for _, p := range published {
		if !strings.HasPrefix(p.Name, "l3-") || !schedulesDeath(p.Bundle) {
			continue
		}
		tried++
		t.Run(p.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				v := verdict(t, p.Bundle, weak.New, seed)
				assert.Equal(t, checker.Fail, v.Levels[3], "seed %d", seed)
				var ids []string
				for _, x := range v.Violations {
					ids = append(ids, x.Invariant)
					assert.Equal(t, 3, x.Level, "%s: %s", x.Invariant, x.Detail)
				}
				assert.Contains(t, ids, "L3.agent-death-unbound", "seed %d", seed)
				for level := 0; level < 3; level++ {
					assert.Equal(t, checker.Pass, v.Levels[level], "seed %d level %d", seed, level)
				}
			}
		})
	}
	assert.Equal(t, 2, tried, "the published L3 scenarios with an AGENT_DEATH")
}

func schedulesDeath(b *scenarios.Bundle) bool {
	for _, s := range b.Signals {
		if s.Type == scenarios.AgentDeath {
			return true
		}
	}
	return false
}
