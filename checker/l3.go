package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// L3 budgets (spec §4 L3: concurrent claims resolve within 5 ticks; the
// state snapshot lags the logs by at most 2 ticks).
const (
	claimBudget = 5
	deathBudget = 5
	aliveBudget = 2
)

// claimState follows the claim records of one work item: each agent's latest
// outcome.
type claimState map[string]string

// winners lists the agents whose latest outcome is won, sorted.
func (c claimState) winners() []string {
	var out []string
	for agent, outcome := range c {
		if outcome == sandbox.ClaimWon {
			out = append(out, agent)
		}
	}
	sort.Strings(out)
	return out
}

// claimsByWork groups claim records by work id, in line order, and lists the
// work ids in order of their first claim.
func (f *facts) claimsByWork() ([]string, map[string][]*auditLine) {
	var order []string
	by := map[string][]*auditLine{}
	for _, c := range f.claims {
		if by[c.WorkID] == nil {
			order = append(order, c.WorkID)
		}
		by[c.WorkID] = append(by[c.WorkID], c)
	}
	return order, by
}

// checkClaims judges the claim records of every contested work item:
// L3.double-handled, L3.claim-winner, L3.stand-down-record, L3.claim-window.
func checkClaims(f *facts) []Violation {
	var out []Violation
	order, by := f.claimsByWork()
	for _, w := range order {
		cs := by[w]
		out = append(out, f.doubleHandled(w, cs)...)
		out = append(out, f.claimWinner(w, cs)...)
		out = append(out, f.standDown(w, cs)...)
		out = append(out, f.claimWindow(w, cs)...)
	}
	return out
}

// doubleHandled reports the first tick at whose end two agents hold a won
// claim on one work item. Records of one tick are read together, so an
// implementation may stand one agent down in the tick another wins.
func (f *facts) doubleHandled(w string, cs []*auditLine) []Violation {
	state := claimState{}
	for i, c := range cs {
		state[c.AgentID] = c.Outcome
		if i+1 < len(cs) && cs[i+1].at.tick == c.at.tick {
			continue
		}
		if win := state.winners(); len(win) > 1 {
			return []Violation{{Invariant: "L3.double-handled", Level: 3, Tick: c.at.tick, WorkID: w,
				Evidence: []string{ref(sandbox.Audit, c.line)},
				Detail:   fmt.Sprintf("Work item %s is held by %s at once.", w, strings.Join(win, " and "))}}
		}
	}
	return nil
}

func finalClaims(cs []*auditLine) claimState {
	state := claimState{}
	for _, c := range cs {
		state[c.AgentID] = c.Outcome
	}
	return state
}

// claimWinner: a contested work item ends with exactly one winner, or none
// when it was visibly orphaned (resolved abandoned).
func (f *facts) claimWinner(w string, cs []*auditLine) []Violation {
	win := finalClaims(cs).winners()
	last := cs[len(cs)-1]
	v := Violation{Invariant: "L3.claim-winner", Level: 3, Tick: f.tl.last(), WorkID: w,
		Evidence: []string{ref(sandbox.Audit, last.line)}}
	switch {
	case len(win) > 1:
		v.Detail = fmt.Sprintf("Work item %s ends with %d winners (%s).", w, len(win), strings.Join(win, ", "))
	case len(win) == 0 && !f.abandoned(w):
		v.Detail = fmt.Sprintf("Work item %s ends with no winning claim and is not resolved abandoned.", w)
	default:
		return nil
	}
	return []Violation{v}
}

func (f *facts) abandoned(w string) bool {
	for _, r := range f.resolutionsOf(w) {
		if r.Outcome == sandbox.OutcomeAbandoned {
			return true
		}
	}
	return false
}

// standDown: an agent that claimed a work item and is not its final winner
// has a stood_down record after its last claimed record.
func (f *facts) standDown(w string, cs []*auditLine) []Violation {
	win := finalClaims(cs).winners()
	lastClaimed := map[string]*auditLine{}
	var agents []string
	for _, c := range cs {
		if c.Outcome == sandbox.ClaimClaimed {
			if lastClaimed[c.AgentID] == nil {
				agents = append(agents, c.AgentID)
			}
			lastClaimed[c.AgentID] = c
		}
	}
	var out []Violation
	for _, agent := range agents {
		if contains(win, agent) {
			continue
		}
		claimed := lastClaimed[agent]
		found := false
		for _, c := range cs {
			if c.AgentID == agent && c.Outcome == sandbox.ClaimStoodDown && c.line > claimed.line {
				found = true
				break
			}
		}
		if !found {
			out = append(out, Violation{Invariant: "L3.stand-down-record", Level: 3, Tick: claimed.at.tick,
				WorkID: w, Evidence: []string{ref(sandbox.Audit, claimed.line)},
				Detail: fmt.Sprintf("Agent %s claimed work item %s, did not win it, and has no stood_down record.", agent, w)})
		}
	}
	return out
}

// claimWindow: the first claimed record of a work item is followed by a won
// record within 5 ticks.
func (f *facts) claimWindow(w string, cs []*auditLine) []Violation {
	for i, c := range cs {
		if c.Outcome != sandbox.ClaimClaimed {
			continue
		}
		d, ok := f.tl.deadline(c.at.tick, claimBudget)
		if !ok {
			return nil
		}
		for _, later := range cs[i+1:] {
			if later.Outcome == sandbox.ClaimWon && later.at.by(d) {
				return nil
			}
		}
		return []Violation{{Invariant: "L3.claim-window", Level: 3, Tick: d, WorkID: w,
			Evidence: []string{ref(sandbox.Audit, c.line)},
			Detail:   fmt.Sprintf("The claim on work item %s at tick %d is not won by tick %d.", w, c.at.tick, d)}}
	}
	return nil
}

// checkAgentDeath: after AGENT_DEATH for X, X's unresolved work is claimed
// won by another agent or resolved within 5 ticks, and the snapshot shows X
// dead within 2.
func checkAgentDeath(f *facts) []Violation {
	var out []Violation
	for _, s := range f.deaths {
		out = append(out, f.deadWork(s)...)
		out = append(out, f.deadInState(s)...)
	}
	return out
}

func (f *facts) deadWork(s *signal) []Violation {
	d, ok := f.tl.deadline(s.at.tick, deathBudget)
	if !ok {
		return nil
	}
	var out []Violation
	for _, w := range f.heldBy(s.Target, s.at) {
		if f.recovered(w, s, d) {
			continue
		}
		out = append(out, Violation{Invariant: "L3.agent-death", Level: 3, Tick: d, WorkID: w,
			Evidence: []string{ref(sandbox.Signals, s.line)},
			Detail: fmt.Sprintf("Work item %s of dead agent %s is neither reassigned nor resolved by tick %d.",
				w, s.Target, d)})
	}
	return out
}

// heldBy lists the unresolved work items an agent held at a moment: as a
// winner by its latest claim, or as the assignee in the state snapshot in
// force then (known only from a run log).
func (f *facts) heldBy(agent string, at stamp) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] && !f.endedBefore(w, at) {
			seen[w] = true
			out = append(out, w)
		}
	}
	order, by := f.claimsByWork()
	for _, w := range order {
		state := claimState{}
		for _, c := range by[w] {
			if c.at.before(at) {
				state[c.AgentID] = c.Outcome
			}
		}
		if state[agent] == sandbox.ClaimWon {
			add(w)
		}
	}
	if snap, ok := f.stateBefore(at.tick); ok {
		for _, wi := range snap.WorkItems {
			if wi.AssignedAgent != nil && *wi.AssignedAgent == agent {
				add(wi.WorkID)
			}
		}
		for _, a := range snap.Assignments {
			if a.AgentID == agent {
				add(a.WorkID)
			}
		}
	}
	return out
}

// endedBefore reports whether a work item was sent or resolved before a
// moment.
func (f *facts) endedBefore(w string, at stamp) bool {
	for _, e := range f.effectsOf(w) {
		if e.at.before(at) {
			return true
		}
	}
	for _, r := range f.resolutionsOf(w) {
		if r.at.before(at) {
			return true
		}
	}
	return false
}

// recovered reports whether a dead agent's work item was won by another
// agent, sent or resolved after the signal and by tick d.
func (f *facts) recovered(w string, s *signal, d int) bool {
	for _, c := range f.claims {
		if c.WorkID == w && c.Outcome == sandbox.ClaimWon && c.AgentID != s.Target && !c.at.before(s.at) && c.at.by(d) {
			return true
		}
	}
	return f.endedBefore(w, endOf(d))
}

// stateBefore returns the snapshot in force when the harness fired at tick
// t: the one at the end of the last tick before t. It needs a run log.
func (f *facts) stateBefore(t int) (sandbox.Snapshot, bool) {
	idx := -1
	for _, te := range f.tickEnds {
		if te.tick >= t {
			break
		}
		idx = te.state
	}
	if idx < 0 || idx >= len(f.states) || f.states[idx].missing || f.states[idx].err != nil {
		return sandbox.Snapshot{}, false
	}
	return f.states[idx].snap, true
}

// stateAtEnd returns the snapshot at the end of tick t: from the run log, or
// the final state.json without one.
func (f *facts) stateAtEnd(t int) snapshot {
	if !f.ordered {
		return f.final
	}
	idx := 0
	for _, te := range f.tickEnds {
		if te.tick > t {
			break
		}
		idx = te.state
	}
	if idx < 0 || idx >= len(f.states) {
		return snapshot{missing: true}
	}
	return f.states[idx]
}

func (f *facts) deadInState(s *signal) []Violation {
	d, ok := f.tl.deadline(s.at.tick, aliveBudget)
	if !ok {
		if !f.ordered {
			d = f.tl.last()
		} else {
			return nil
		}
	}
	st := f.stateAtEnd(d)
	if st.missing || st.err != nil {
		return nil
	}
	for _, a := range st.snap.Agents {
		if a.ID == s.Target && a.Alive {
			return []Violation{{Invariant: "L3.agent-death", Level: 3, Tick: d,
				Evidence: []string{ref(sandbox.Signals, s.line), ref(sandbox.State, 1)},
				Detail:   fmt.Sprintf("Agent %s is still alive in %s at tick %d after its AGENT_DEATH.", s.Target, sandbox.State, d)}}
		}
	}
	return nil
}

// checkResolutionMissing: every admitted work item has a resolution record by
// the horizon, when the scenario gives it an ending (an approval, a
// rejection, an escalation, or the loss of the whole fleet) with room for
// the budgets after it.
func checkResolutionMissing(f *facts) []Violation {
	var out []Violation
	for _, w := range f.workIDs {
		if len(f.resolutionsOf(w)) > 0 || !f.endingScheduled(w) {
			continue
		}
		adm := f.admitted[w]
		out = append(out, Violation{Invariant: "L3.resolution-missing", Level: 3, Tick: f.tl.last(), WorkID: w,
			MessageID: adm.MessageID, Evidence: []string{ref(sandbox.Audit, adm.line)},
			Detail: fmt.Sprintf("Work item %s has no resolution record by the horizon (tick %d).", w, f.tl.last())})
	}
	return out
}

func (f *facts) endingScheduled(w string) bool {
	room := func(t int) bool {
		_, ok := f.tl.deadline(t, approvalBudget)
		return ok
	}
	if gone, ok := f.fleetGone(); ok && room(gone.tick) {
		return true
	}
	m := f.messageOf(w)
	if m == nil {
		return false
	}
	for _, a := range f.b.Approvals {
		if a.Forge == "" && f.matches(a.Match, m) {
			if v, ok := f.tl.visible(a.At); ok && room(max(v, m.vis)) {
				return true
			}
		}
	}
	for _, s := range f.b.Signals {
		if s.Type == scenarios.OperatorEscalation && f.matches(s.Target, m) {
			if v, ok := f.tl.visible(s.At); ok && room(max(v, m.vis)) {
				return true
			}
		}
	}
	return false
}
