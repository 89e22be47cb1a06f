package faults

import "github.com/amr-bench/amr/scenarios"

// TornWrite is the kind of a crash that lands in the middle of a write:
// half a line in a log, or half of state.json's new content (D75).
const TornWrite = "torn_write"

// tornWrites tears some of the crashes that land after a write.
func (g *generator) tornWrites() {
	if !g.on(TornWrite) {
		return
	}
	for i := range g.faults {
		if f := &g.faults[i]; f.Kind == scenarios.FaultCrash && f.AfterWrites > 0 && g.d.chance(g.rate(TornWrite)) {
			f.Torn = true
		}
	}
}
