package faults

import "github.com/amr-bench/amr/scenarios"

// TornWrite is the kind of a crash that lands in the middle of a write:
// half a line in a log, or half of state.json's new content (D75).
const TornWrite = "torn_write"

// tornWrites tears some of the crashes that land after a write, and with
// the kind's rate adds one torn crash aimed at state.json (D158).
func (g *generator) tornWrites() {
	if !g.on(TornWrite) {
		return
	}
	for i := range g.faults {
		if f := &g.faults[i]; f.Kind == scenarios.FaultCrash && f.AfterWrites > 0 && g.d.chance(g.rate(TornWrite)) {
			f.Torn = true
		}
	}
	g.tornState()
}

// tornState adds a crash that tears the first new state.json of a
// delivery's tick. A crash after k writes tears state.json only when its
// k falls on one, which few do; a delivery makes new work, so a new
// state.json at that tick is likely, not certain (with none, the crash
// lands at the tick's end, untorn).
func (g *generator) tornState() {
	if len(g.msgs) == 0 || !g.d.chance(g.rate(TornWrite)) {
		return
	}
	at := pick(g.d, g.msgs).at
	g.faults = append(g.faults, scenarios.Fault{At: at, Kind: scenarios.FaultCrash,
		AfterWrites: 1, WritesTo: scenarios.StateFile, Torn: true})
}
