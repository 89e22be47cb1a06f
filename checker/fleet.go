package checker

import (
	"math"
)

// The implementation's fleet and the spans of time in which all of it was
// dead (D28, D42). Fleet-wide facts excuse replies, approvals and unbound
// deaths and give work an ending, so they are read from everything the
// implementation says about its agents, not from the part it chose to list.

// goneSpan is a span in which every agent of the fleet had been named by an
// AGENT_DEATH: from the death that completed it until an agent not named
// dead joined the implementation's account (open when none did).
type goneSpan struct {
	from stamp
	to   stamp
	open bool
}

// fleetGoneWithin reports whether the whole fleet was dead at some moment
// from a to b.
func (f *facts) fleetGoneWithin(a, b stamp) bool {
	for _, g := range f.goneSpans() {
		if !b.before(g.from) && (g.open || a.before(g.to)) {
			return true
		}
	}
	return false
}

// fleetGoneAt reports whether the whole fleet was dead at a moment.
func (f *facts) fleetGoneAt(m stamp) bool { return f.fleetGoneWithin(m, m) }

func (f *facts) goneSpans() []goneSpan {
	if f.fleetLoss == nil {
		spans := f.findGoneSpans()
		f.fleetLoss = &spans
	}
	return *f.fleetLoss
}

// fleetEvent is one change to the fleet account or to the dead: agents
// joining the account, or an agent named by an AGENT_DEATH.
type fleetEvent struct {
	at     stamp
	listed []string // agents a snapshot lists
	named  []string // agents the implementation gives work to (claims, holders)
	dead   string
}

// findGoneSpans follows the fleet over the run. The fleet at a moment is
// every agent the implementation had listed in its state snapshots by then,
// or the bundle's fleet while it had listed none (an empty list would make
// "every agent is dead" vacuously true), together with every agent it had
// given work to: the agent of a claim record, a snapshot's holder. With a
// run log a snapshot joins after the tick whose end it was, a claim right
// after its line; without one the final snapshot and every claim count from
// the start. Only an AGENT_DEATH makes an agent dead, never the
// implementation marking its own agents alive:false.
func (f *facts) findGoneSpans() []goneSpan {
	if len(f.deaths) == 0 {
		return nil // nobody dead, no fleet gone: most runs need not follow the fleet at all
	}
	events := f.fleetEvents()
	listed, named, dead := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var listedOrder []string
	var spans []goneSpan
	gone := false
	for i := 0; i < len(events); {
		at := events[i].at
		for ; i < len(events) && events[i].at == at; i++ {
			e := events[i]
			for _, a := range e.listed {
				if !listed[a] {
					listed[a] = true
					listedOrder = append(listedOrder, a)
				}
			}
			for _, a := range e.named {
				named[a] = true
			}
			if e.dead != "" {
				dead[e.dead] = true
			}
		}
		now := len(dead) > 0 && f.fleetDead(listedOrder, named, dead)
		switch {
		case now && !gone:
			spans = append(spans, goneSpan{from: at, open: true})
		case !now && gone:
			spans[len(spans)-1].to, spans[len(spans)-1].open = at, false
		}
		gone = now
	}
	return spans
}

// fleetDead reports whether the fleet at a moment is all dead: the agents
// listed, else the bundle's, and the agents given work. The fleet's order
// does not matter to the answer, so it is never built.
func (f *facts) fleetDead(listed []string, named, dead map[string]bool) bool {
	base := listed
	if len(base) == 0 {
		base = f.b.Fleet
	}
	if len(base) == 0 && len(named) == 0 || len(dead) == 0 {
		return false
	}
	for _, a := range base {
		if !dead[a] {
			return false
		}
	}
	for a := range named {
		if !dead[a] {
			return false
		}
	}
	return true
}

// fleetEvents lists the changes in time order; at one moment joins and
// deaths are applied together before the fleet is judged.
func (f *facts) fleetEvents() []fleetEvent {
	var out []fleetEvent
	start := stamp{math.MinInt32, math.MinInt32}
	if f.ordered {
		// A fleet only grows by agents listed or named, so each version
		// brings the agents it is the first to list or name.
		for _, te := range f.tickEnds {
			v := f.states.versions[te.state]
			out = append(out, fleetEvent{at: stamp{te.tick + 1, math.MinInt32}, listed: v.newListed, named: v.newNamed})
		}
	} else {
		listed, named := snapshotAgents(f.final)
		out = append(out, fleetEvent{at: start, listed: listed, named: named})
	}
	for _, c := range f.claims {
		at := start
		if f.ordered {
			at = stamp{c.at.tick, c.at.seq + 1}
		}
		out = append(out, fleetEvent{at: at, named: []string{c.AgentID}})
	}
	for _, s := range f.deaths {
		out = append(out, fleetEvent{at: s.at, dead: s.Target})
	}
	sortStable(out, func(a, b fleetEvent) bool { return a.at.before(b.at) })
	return out
}

// snapshotAgents returns the agents a snapshot lists and those it gives
// work to.
func snapshotAgents(st snapshot) (listed, named []string) {
	if st.missing || st.err != nil {
		return nil, nil
	}
	for _, a := range st.snap.Agents {
		listed = append(listed, a.ID)
	}
	for _, wi := range st.snap.WorkItems {
		if wi.AssignedAgent != nil && *wi.AssignedAgent != "" {
			named = append(named, *wi.AssignedAgent)
		}
	}
	for _, a := range st.snap.Assignments {
		if a.AgentID != "" {
			named = append(named, a.AgentID)
		}
	}
	return listed, named
}
