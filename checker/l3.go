package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// claimBudget is the spec's one L3 window: concurrent claims resolve within
// 5 ticks (§4 L3).
const claimBudget = 5

// endingRoom is how many visited ticks the horizon must leave after an
// ending (an approval, a rejection, an escalation, an agent death, the loss
// of the fleet) for the work to owe its outcome by the horizon; an ending
// the horizon cuts off is not judged (D1, D14), nor one a downtime leaves
// no room after (D71).
const endingRoom = 5

func (f *facts) roomAfter(t int) bool {
	// A downtime in the room moves its end past the restart (D71).
	_, ok := f.deadline(t, endingRoom)
	return ok
}

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

// soleWinner returns the winner when there is exactly one, as winners
// would list it, without listing them.
func (c claimState) soleWinner() (string, bool) {
	win, n := "", 0
	for agent, outcome := range c {
		if outcome == sandbox.ClaimWon {
			win, n = agent, n+1
		}
	}
	return win, n == 1
}

// claimsByWork groups claim records by work id, in line order, and lists the
// work ids in order of their first claim.
// Both are the facts' own, made on first use: callers only read them.
func (f *facts) claimsByWork() ([]string, map[string][]*auditLine) {
	if f.claimGroups == nil {
		by := groupBy(f.claims, func(c *auditLine) string { return c.WorkID }, nil)
		order := make([]string, 0, len(by))
		for _, c := range f.claims {
			if l := by[c.WorkID]; l[0] == c {
				order = append(order, c.WorkID)
			}
		}
		f.claimGroups = &claimGroups{order, by}
	}
	return f.claimGroups.order, f.claimGroups.by
}

type claimGroups struct {
	order []string
	by    map[string][]*auditLine
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
	f.judged("L3.double-handled")
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
	f.judged("L3.claim-winner")
	win := finalClaims(cs).winners()
	var detail string
	switch {
	case len(win) > 1:
		detail = fmt.Sprintf("Work item %s ends with %d winners (%s).", w, len(win), strings.Join(win, ", "))
	case len(win) == 0 && !f.abandoned(w):
		detail = fmt.Sprintf("Work item %s ends with no winning claim and is not resolved abandoned.", w)
	default:
		return nil
	}
	last := cs[len(cs)-1]
	return []Violation{{Invariant: "L3.claim-winner", Level: 3, Tick: f.tl.last(), WorkID: w,
		Evidence: []string{ref(sandbox.Audit, last.line)}, Detail: detail}}
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
		f.judged("L3.stand-down-record")
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

// claimWindow: every contest for a work item resolves within 5 ticks. A
// contest starts with a claimed record after the last won record (the
// first contest with the item's first claim; a later one when the item is
// claimed again, after an agent death for instance) and resolves with the
// next won record, or when every agent that claimed in it has stood down.
// One violation per contest (D45).
func (f *facts) claimWindow(w string, cs []*auditLine) []Violation {
	var out []Violation
	for i := 0; i < len(cs); i++ {
		c := cs[i]
		if c.Outcome != sandbox.ClaimClaimed {
			continue
		}
		d, ok := f.deadline(c.at.tick, claimBudget)
		if !ok {
			return out
		}
		f.judged("L3.claim-window")
		end, resolved := contestEnd(cs, i, d)
		if !resolved {
			out = append(out, Violation{Invariant: "L3.claim-window", Level: 3, Tick: d, WorkID: w,
				Evidence: []string{ref(sandbox.Audit, c.line)},
				Detail:   fmt.Sprintf("The claim on work item %s at tick %d is not won by tick %d.", w, c.at.tick, d)})
		}
		i = end
	}
	return out
}

// contestEnd follows the contest that starts at cs[start] and returns the
// index of its last record: the won record that ends it, else the last
// record of the item. resolved says whether it ended by tick d: won, or
// every agent that claimed in it stood down.
func contestEnd(cs []*auditLine, start, d int) (int, bool) {
	open := map[string]bool{}
	for k := start; k < len(cs); k++ {
		c := cs[k]
		switch c.Outcome {
		case sandbox.ClaimWon:
			return k, c.at.by(d)
		case sandbox.ClaimClaimed:
			open[c.AgentID] = true
		case sandbox.ClaimStoodDown:
			if open[c.AgentID] {
				delete(open, c.AgentID)
				if len(open) == 0 && c.at.by(d) && !claimedLater(cs, k, d) {
					return k, true
				}
			}
		}
	}
	return len(cs) - 1, false
}

// claimedLater reports whether another claimed record follows cs[k] by tick
// d: the contest is still on.
func claimedLater(cs []*auditLine, k, d int) bool {
	for _, c := range cs[k+1:] {
		if !c.at.by(d) {
			return false
		}
		if c.Outcome == sandbox.ClaimClaimed {
			return true
		}
	}
	return false
}

// checkAgentDeath: the unfinished work a dead agent held is reassigned to a
// live agent, sent, or resolved by the horizon (D19). The spec gives no
// deadline short of the horizon.
func checkAgentDeath(f *facts) []Violation {
	var out []Violation
	for _, s := range f.deaths {
		out = append(out, f.deadWork(s)...)
	}
	return out
}

func (f *facts) deadWork(s *signal) []Violation {
	if !f.roomAfter(s.at.tick) {
		return nil
	}
	last := f.tl.last()
	var out []Violation
	for _, w := range f.heldBy(s) {
		f.judgedAsN("L3.agent-death", s.line)
		if f.recovered(w, s) {
			continue
		}
		out = append(out, Violation{Invariant: "L3.agent-death", Level: 3, Tick: last, WorkID: w,
			Evidence: []string{ref(sandbox.Signals, s.line)},
			Detail: fmt.Sprintf("Work item %s of dead agent %s is neither reassigned to a live agent, sent nor resolved by the horizon (tick %d).",
				w, s.Target, last)})
	}
	return out
}

// heldBy lists the unfinished work items the signal's agent held when it
// fired: the work item the harness bound the signal through, items whose
// latest claim by the agent is won, and, with a run log, items the snapshot
// in force then gave to it.
func (f *facts) heldBy(s *signal) []string {
	agent, at := s.Target, s.at
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && !seen[w] && !f.endedBefore(w, at) {
			seen[w] = true
			out = append(out, w)
		}
	}
	add(f.boundWork(s))
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
	for _, hd := range f.holdings[at.tick] {
		if hd.agent == agent {
			add(hd.work)
		}
	}
	return out
}

// boundWork returns the work item an AGENT_DEATH line was bound through:
// the bundle's signal of that id names a message, and the harness kills the
// agent holding that message's work item (its first admission).
func (f *facts) boundWork(s *signal) string {
	for _, sg := range f.b.Signals {
		if sg.ID != s.SignalID || sg.Type != scenarios.AgentDeath || sg.Target.MessageID == "" {
			continue
		}
		if ws := f.worksOf(sg.Target.MessageID); len(ws) > 0 {
			return ws[0]
		}
	}
	return ""
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

// recovered reports whether a dead agent's work item was, after the signal
// and by the horizon, sent, resolved (abandoned is the visible orphan), or
// moved to another live agent and left there: won by it, or given to it by a
// state snapshot (an uncontested move owes no claim record, D18). A move
// that the implementation's final account undoes — the item back with the
// dead agent, or with no agent — is no reassignment (D41).
func (f *facts) recovered(w string, s *signal) bool {
	if f.endedBefore(w, endOf(f.tl.last())) {
		return true
	}
	return f.movedAway(w, s) && f.keptAway(w, s)
}

// movedAway reports whether some record after the signal gave the work item
// to a live agent other than the dead one.
func (f *facts) movedAway(w string, s *signal) bool {
	for _, c := range f.claims {
		if c.WorkID == w && c.Outcome == sandbox.ClaimWon && c.AgentID != s.Target && !c.at.before(s.at) &&
			!f.deadBefore(c.AgentID, c.at) {
			return true
		}
	}
	if !f.ordered {
		// Without a run log only the final snapshot is known, and not when
		// it was written: its holder must have been alive at the signal.
		return f.liveHolder(f.final, w, s, endOf(s.at.tick))
	}
	for _, te := range f.tickEnds {
		if te.tick >= s.at.tick && f.liveHolderAt(te.state, w, s, endOf(te.tick)) {
			return true
		}
	}
	return false
}

// keptAway reports whether the state snapshot in force at the end of the run
// still gives the work item to an agent other than the dead one, live when
// it took the item over. A holder named dead by a later AGENT_DEATH is that
// signal's to judge. Without a readable final snapshot nothing undoes the
// move.
func (f *facts) keptAway(w string, s *signal) bool {
	var a string
	var agents []sandbox.AgentState
	if f.ordered && len(f.tickEnds) > 0 {
		v := f.tickEnds[len(f.tickEnds)-1].state
		if !f.states.readable(v) {
			return true
		}
		a, agents = f.states.holder(v, w), f.states.versions[v].agents
	} else {
		if f.final.missing || f.final.err != nil {
			return true
		}
		a, agents = f.final.snap.Holder(w), f.final.snap.Agents
	}
	if a == "" || a == s.Target || f.deadBefore(a, s.at) {
		return false
	}
	return f.deadBefore(a, endOf(f.tl.last())) || f.listedAlive(agents, a)
}

// liveHolder reports whether a snapshot gives a work item to an agent other
// than the signal's, not named dead by at, and listed alive by the snapshot
// itself: work handed to an agent the implementation does not run is not
// reassigned (D41).
func (f *facts) liveHolder(st snapshot, w string, s *signal, at stamp) bool {
	if st.missing || st.err != nil {
		return false
	}
	return f.liveAgent(st.snap.Holder(w), st.snap.Agents, s, at)
}

// liveHolderAt is liveHolder of version v of the run log's state.json.
func (f *facts) liveHolderAt(v int, w string, s *signal, at stamp) bool {
	if !f.states.readable(v) {
		return false
	}
	return f.liveAgent(f.states.holder(v, w), f.states.versions[v].agents, s, at)
}

func (f *facts) liveAgent(a string, agents []sandbox.AgentState, s *signal, at stamp) bool {
	if a == "" || a == s.Target || f.deadBefore(a, at) {
		return false
	}
	return f.listedAlive(agents, a)
}

// listedAlive reports whether a snapshot lists an agent as alive. A snapshot
// that lists no agent at all is read against the bundle's fleet, as the
// fleet is (D28).
func (f *facts) listedAlive(agents []sandbox.AgentState, agent string) bool {
	if len(agents) == 0 {
		return contains(f.b.Fleet, agent)
	}
	for _, x := range agents {
		if x.ID == agent {
			return x.Alive
		}
	}
	return false
}

// deadBefore reports whether an AGENT_DEATH named the agent before a moment.
func (f *facts) deadBefore(agent string, at stamp) bool {
	for _, d := range f.deaths {
		if d.Target == agent && d.at.before(at) {
			return true
		}
	}
	return false
}

// checkAgentDeathUnbound: a scheduled AGENT_DEATH for a message that never
// reached signals.jsonl because the implementation never said which agent
// held the message's work (D29). Without that, agent death was never tested,
// and L3 cannot pass on it. A signal whose message was rightly never
// admitted, whose work ended before the signal could be bound, or that came
// when no agent was left, had nothing to kill and is not judged.
func checkAgentDeathUnbound(f *facts) []Violation {
	fired := map[string]bool{}
	for _, s := range f.deaths {
		fired[s.SignalID] = true
	}
	var out []Violation
	for _, sg := range f.b.Signals {
		if sg.Type != scenarios.AgentDeath || sg.Target.MessageID == "" {
			continue
		}
		if fired[sg.ID] {
			f.judged("L3.agent-death-unbound")
			continue
		}
		if v, ok := f.unboundDeath(sg); ok {
			f.judged("L3.agent-death-unbound")
			out = append(out, v)
		}
	}
	return out
}

func (f *facts) unboundDeath(sg scenarios.Signal) (Violation, bool) {
	due, ok := f.tl.visible(sg.At)
	m := f.msgByID[sg.Target.MessageID]
	if !ok || m == nil {
		return Violation{}, false
	}
	if f.fleetGoneAt(stamp{due, seqHarness}) {
		return Violation{}, false
	}
	last := f.tl.last()
	v := Violation{Invariant: "L3.agent-death-unbound", Level: 3, Tick: last, MessageID: m.ID,
		Evidence: []string{"bundle:signals/" + sg.ID}}
	if i, ok := f.unfired[sg.ID]; ok {
		v.Evidence = append(v.Evidence, runLogRef(i))
	}
	adm := f.firstAdmission(m.ID)
	if adm == nil {
		d, ok := f.deadline(m.vis, admissionBudget)
		if _, must := f.judge(m); !must || !ok || !f.roomAfter(max(due, d)) {
			return Violation{}, false
		}
		v.Evidence = append(v.Evidence, m.ref())
		v.Detail = fmt.Sprintf("AGENT_DEATH %s for message %s was never delivered: the message matches a rule in force but was never admitted, so no agent held its work.",
			sg.ID, m.ID)
		return v, true
	}
	w := adm.WorkID
	t0, ok := f.tl.visible(max(due, adm.at.tick+1))
	for ok {
		// Nobody could name a holder while down, and the harness fires at
		// the restart's tick before the fresh instance works: the first
		// chance to bind is the tick after the restart (D71).
		span, down := f.downOrRestartingAt(t0)
		if !down {
			break
		}
		if !span.restarted {
			return Violation{}, false
		}
		t0, ok = f.tl.deadline(span.until, 1)
	}
	if !ok || !f.roomAfter(max(due, adm.at.tick)) || f.endedBefore(w, stamp{t0, seqHarness}) || f.holderNamedFrom(w, t0) {
		return Violation{}, false
	}
	v.WorkID = w
	v.Evidence = append(v.Evidence, ref(sandbox.Audit, adm.line))
	v.Detail = fmt.Sprintf("AGENT_DEATH %s for message %s was never delivered: no won claim, state.json assigned_agent or assignment named an agent holding work item %s from tick %d to the horizon (tick %d).",
		sg.ID, m.ID, w, t0, last)
	return v, true
}

// firstAdmission returns the first admission record of a message, the one
// the harness binds signals through.
func (f *facts) firstAdmission(msg string) *auditLine {
	for _, a := range f.admissions {
		if a.MessageID == msg {
			return a
		}
	}
	return nil
}

// holderNamedFrom reports whether any source named an agent holding a work
// item when the harness fired at some tick from t0 to the horizon: an agent
// whose latest claim on it is won, or the holder in the snapshot in force.
// Without a run log the moments are unknown, and any won claim or a holder
// in the final state.json counts.
func (f *facts) holderNamedFrom(w string, t0 int) bool {
	var cs []*auditLine
	for _, c := range f.claims {
		if c.WorkID == w {
			cs = append(cs, c)
		}
	}
	if !f.ordered {
		for _, c := range cs {
			if c.Outcome == sandbox.ClaimWon {
				return true
			}
		}
		return !f.final.missing && f.final.err == nil && f.final.snap.Holder(w) != ""
	}
	latest := claimState{}
	k, e, cur := 0, 0, -1
	for _, t := range f.tl[f.tl.index(t0):] {
		moment := stamp{t, seqHarness}
		for ; k < len(cs) && cs[k].at.before(moment); k++ {
			latest[cs[k].AgentID] = cs[k].Outcome
		}
		if len(latest.winners()) > 0 {
			return true
		}
		for ; e < len(f.tickEnds) && f.tickEnds[e].tick < t; e++ {
			cur = f.tickEnds[e].state
		}
		if cur >= 0 && f.states.readable(cur) && f.states.holder(cur, w) != "" {
			return true
		}
	}
	return false
}

// checkResolutionMissing: every admitted work item has a resolution record by
// the horizon, when the scenario gives it an ending (an approval, a
// rejection, an escalation, or the loss of the whole fleet) with room for
// the budgets after it.
func checkResolutionMissing(f *facts) []Violation {
	var out []Violation
	for _, w := range f.workIDs {
		if !f.endingScheduled(w) {
			continue
		}
		f.judged("L3.resolution-missing")
		if len(f.resolutionsOf(w)) > 0 {
			continue
		}
		adm := f.admitted[w]
		out = append(out, Violation{Invariant: "L3.resolution-missing", Level: 3, Tick: f.tl.last(), WorkID: w,
			MessageID: adm.MessageID, Evidence: []string{ref(sandbox.Audit, adm.line)},
			Detail: fmt.Sprintf("Work item %s has no resolution record by the horizon (tick %d).", w, f.tl.last())})
	}
	return out
}

// fleetLostDuring reports whether the whole fleet was dead at some moment
// after the work item was admitted, with room for an ending after it.
func (f *facts) fleetLostDuring(w string) bool {
	adm := f.admitted[w]
	if adm == nil {
		return false
	}
	for _, g := range f.goneSpans() {
		if g.open || adm.at.before(g.to) {
			if from := max(g.from.tick, adm.at.tick); f.roomAfter(from) {
				return true
			}
		}
	}
	return false
}

func (f *facts) endingScheduled(w string) bool {
	room := f.roomAfter
	if f.fleetLostDuring(w) {
		return true
	}
	m := f.messageOf(w)
	if m == nil {
		return false
	}
	for _, a := range f.approvalsNaming(m) {
		if a.Forge == "" && !a.Stale() {
			if v, ok := f.tl.visible(a.At); ok && room(max(f.firedAt(a, m, v), m.vis)) {
				return true
			}
		}
	}
	for _, s := range f.signalsNaming(m) {
		if s.Type == scenarios.OperatorEscalation {
			if v, ok := f.tl.visible(s.At); ok && room(max(v, m.vis)) {
				return true
			}
		}
	}
	return false
}
