package faults

import (
	"sort"

	"github.com/amr-bench/amr/scenarios"
)

// Edge offsets: one tick before a budget's last tick, at it, one past it.
// Drawn independently, events land next to a budget's edge only by luck;
// an implementation that reads mode.json or rules.json lazily, or that
// sends on the last tick it may, is found only there.

// changeEdges moves some posture and rules changes so that a message arrives
// 4, 5 or 6 ticks after one: inside the 5-tick allowance after a change
// (docs/decisions.md D5), at its last tick, and the first tick past it.
func (g *generator) changeEdges() {
	if !g.on(Boundaries) {
		return
	}
	for i := range g.faults {
		f := &g.faults[i]
		if f.Kind != scenarios.FaultPosture && f.Kind != scenarios.FaultRules || !g.d.chance(g.rate(Boundaries)) {
			continue
		}
		m := pick(g.d, g.msgs)
		if at := m.at - g.d.between(4, 6); at >= 1 {
			f.At = at
		}
	}
	// Changes keep their order of ticks; two of one kind at one tick are
	// one change, the later one winning, as the engine plays them.
	sort.SliceStable(g.faults, func(i, j int) bool { return g.faults[i].At < g.faults[j].At })
}

// maxEdgeCrashes bounds the crashes budgetEdges adds.
const maxEdgeCrashes = 3

// budgetEdges adds crashes at the edges of the budgets that run from a
// harness event: 4, 5 and 6 ticks after an approval (an approved draft sends
// within 5), 9, 10 and 11 ticks after a message (a reply within 10), 19, 20
// and 21 ticks after a crash (pending work resolves within 20 of the
// restart), 1, 2 and 3 ticks after an AGENT_DEATH (the snapshot's 2-tick lag
// allowance), and between two decisions on one message.
func (g *generator) budgetEdges() {
	if !g.on(Boundaries) && !g.on(Redecide) {
		return
	}
	added := 0
	crash := func(at, after int) {
		if added >= maxEdgeCrashes || at < 1 {
			return
		}
		for _, f := range g.faults {
			if f.Kind == scenarios.FaultCrash && f.At == at && f.AfterWrites == after {
				return
			}
		}
		added++
		g.faults = append(g.faults, scenarios.Fault{At: at, Kind: scenarios.FaultCrash, AfterWrites: after})
	}
	if g.on(Redecide) {
		g.crashesBetweenDecisions(crash)
	}
	if !g.on(Boundaries) {
		return
	}
	rate := g.rate(Boundaries) / 3
	var starts []int
	for _, a := range g.apps {
		if a.Forge == "" && a.Decision == scenarios.DecisionApprove && g.d.chance(rate) {
			starts = append(starts, a.At+g.d.between(4, 6))
		}
	}
	for _, m := range g.msgs {
		if g.d.chance(rate / 2) {
			starts = append(starts, m.at+g.d.between(9, 11))
		}
	}
	for _, f := range g.faults {
		if f.Kind == scenarios.FaultCrash && g.d.chance(rate) {
			starts = append(starts, f.At+g.d.between(19, 21))
		}
	}
	for _, s := range g.sigs {
		if s.Type == scenarios.AgentDeath && g.d.chance(rate) {
			starts = append(starts, s.At+g.d.between(1, 3))
		}
	}
	for _, t := range starts {
		crash(t, 0)
	}
}

// crashesBetweenDecisions crashes, now and then, between the first and the
// last real decision of a message that has two: at the boundary of a tick
// after the first, or after a write of the first one's tick.
func (g *generator) crashesBetweenDecisions(crash func(at, after int)) {
	first := map[string]int{}
	for _, a := range g.apps {
		if a.Forge != "" || a.Stale() {
			continue
		}
		t, ok := first[a.Match.MessageID]
		if !ok {
			first[a.Match.MessageID] = a.At
			continue
		}
		if !g.d.chance(500) {
			continue
		}
		lo, hi := min(t, a.At), max(t, a.At)
		if hi > lo && g.d.chance(600) {
			crash(g.d.between(lo+1, hi), 0)
		} else {
			crash(lo, g.d.between(1, 4))
		}
	}
}
