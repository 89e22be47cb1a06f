package faults

import (
	"sort"

	"github.com/amr-bench/amr/scenarios"
)

// Kinds of fault real deployments have beyond the spec's own schedule
// (issue 20): a process down for a while, stamps older than what they name.
const (
	Downtime   = "downtime"
	StaleStamp = "stale_stamp"
)

// maxDown is the longest generated downtime: long enough to outlast every
// budget (5, 10, 20 ticks), short enough that the tail still judges the
// budgets that restart from it.
const maxDown = 40

// downtimes adds one or two crashes that keep the implementation down,
// most often a few ticks before something is due, so that deliveries,
// approvals and signals pile up unread until the restart (D70).
func (g *generator) downtimes() {
	if !g.on(Downtime) {
		return
	}
	spots := g.eventTicks()
	n := 1
	if g.d.chance(g.rate(Downtime) / 2) {
		n = 2
	}
	for range n {
		at := g.d.between(1, g.lastMessageTick()+5)
		if len(spots) > 0 && g.d.chance(700) {
			at = max(1, pick(g.d, spots)-g.d.between(0, 3))
		}
		f := scenarios.Fault{At: at, Kind: scenarios.FaultCrash, Down: g.d.between(3, maxDown)}
		if g.d.chance(300) {
			f.AfterWrites = g.d.between(1, 6)
		}
		g.faults = append(g.faults, f)
	}
}

// eventTicks are the ticks something of the schedule is due at.
func (g *generator) eventTicks() []int {
	var out []int
	for _, m := range g.msgs {
		out = append(out, m.at)
	}
	for _, a := range g.apps {
		out = append(out, a.At)
	}
	for _, s := range g.sigs {
		out = append(out, s.At)
	}
	return out
}

// staleStamps makes the harness stamp late approvals and signals with the
// tick they were due (D72).
func (g *generator) staleStamps(b *scenarios.Bundle) {
	if g.on(StaleStamp) && g.d.chance(max(g.rate(StaleStamp), 500)) {
		b.Meta.StampScheduled = true
	}
}

// horizon leaves the quiet tail after everything scheduled and after every
// restart, where a tick jump moves a crash's tick, and with it its restart.
func (g *generator) horizon() int {
	h := g.lastScheduled() + Tail
	for range 3 {
		tl := scenarios.TimelineOf(&scenarios.Bundle{Meta: scenarios.Meta{Horizon: h}, Faults: g.faults})
		grown := h
		for _, f := range g.faults {
			if f.Down == 0 {
				continue
			}
			i := sort.SearchInts(tl, f.At)
			if i < len(tl) {
				grown = max(grown, tl[i]+f.Down+Tail)
			}
		}
		if grown == h {
			break
		}
		h = grown
	}
	return h
}
