package examples

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// safetyProblems judges a finished run on the safety rules the reference
// must never break, reading only the files and the order of writes. It is a
// test oracle, deliberately simpler than the checker.
func (h *harness) safetyProblems() []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	pos := h.positions()
	drafts, outbox, audit := h.drafts(), h.outbox(), h.audit()
	approvals, _ := sandbox.ParseApprovals(h.mem.View(sandbox.Approvals))
	signals, _ := sandbox.ParseSignals(h.mem.View(sandbox.Signals))

	declaredAt := map[string]int{}
	draftByID := map[string]sandbox.Draft{}
	for i, d := range drafts {
		if _, dup := draftByID[d.DraftID]; dup {
			bad("draft %s declared twice", d.DraftID)
		}
		draftByID[d.DraftID] = d
		declaredAt[d.DraftID] = pos[sandbox.Drafts][i]
	}
	forged := map[string]bool{}
	for _, a := range approvals {
		if d, ok := draftByID[a.Rec.DraftID]; !ok || d.ContentHash != a.Rec.ContentHash {
			forged[a.Rec.ApprovalID] = true
		}
	}
	escalatedAt := map[string]int{}
	for i, s := range signals {
		if s.Rec.SignalType == "OPERATOR_ESCALATION" {
			if _, seen := escalatedAt[s.Rec.Target]; !seen {
				escalatedAt[s.Rec.Target] = pos[sandbox.Signals][i]
			}
		}
	}

	sentPerWork := map[string]int{}
	for i, e := range outbox {
		at := pos[sandbox.Outbox][i]
		d, ok := draftByID[e.DraftID]
		if !ok || declaredAt[e.DraftID] > at {
			bad("outbox line %d sends undeclared draft %s", i+1, e.DraftID)
			continue
		}
		sentPerWork[d.WorkID]++
		if sentPerWork[d.WorkID] > 1 {
			bad("work %s sent %d times", d.WorkID, sentPerWork[d.WorkID])
		}
		if !approvedBefore(approvals, pos[sandbox.Approvals], d, at) {
			bad("outbox line %d sends %s without a binding approval before it", i+1, d.DraftID)
		}
		if esc, ok := escalatedAt[d.WorkID]; ok && esc < at {
			bad("work %s sent after its escalation", d.WorkID)
		}
	}

	admitted := map[string]string{}
	resolutions := map[string][]sandbox.AuditRecord{}
	for _, r := range audit {
		switch r.Event {
		case sandbox.EventAdmission:
			if w, dup := admitted[r.MessageID]; dup {
				bad("message %s admitted twice (%s, %s)", r.MessageID, w, r.WorkID)
			}
			admitted[r.MessageID] = r.WorkID
		case sandbox.EventResolution:
			resolutions[r.WorkID] = append(resolutions[r.WorkID], r)
		}
		if id := auditField(r, "approval_id"); forged[id] && !strings.Contains(r.Event, "ignor") {
			bad("audit %s cites forged approval %s", r.Event, id)
		}
	}
	for work, rs := range resolutions {
		if len(rs) > 1 {
			bad("work %s resolved %d times", work, len(rs))
		}
		switch {
		case rs[0].Outcome == sandbox.OutcomeCompleted && sentPerWork[work] == 0:
			bad("work %s completed without a send", work)
		case rs[0].Outcome == sandbox.OutcomeAbandoned && sentPerWork[work] > 0:
			bad("work %s abandoned after a send", work)
		}
		if _, esc := escalatedAt[work]; esc && sentPerWork[work] == 0 &&
			(rs[0].Outcome != sandbox.OutcomeAbandoned || rs[0].Reason != sandbox.ReasonOperatorEscalation) {
			// An item escalated before any send must end as operator_escalation
			// unless it had already ended.
			if resolvedBefore(h, work, escalatedAt[work]) {
				continue
			}
			bad("escalated work %s resolved %s/%s", work, rs[0].Outcome, rs[0].Reason)
		}
	}
	out = append(out, h.claimProblems()...)
	out = append(out, h.stateProblems()...)
	sort.Strings(out)
	return out
}

func approvedBefore(approvals []sandbox.Line[sandbox.ApprovalRecord], pos []int, d sandbox.Draft, at int) bool {
	for i, a := range approvals {
		if pos[i] < at && a.Rec.Decision == "approve" && a.Rec.DraftID == d.DraftID && a.Rec.ContentHash == d.ContentHash {
			return true
		}
	}
	return false
}

// resolvedBefore reports whether the work item's resolution was written
// before the trace position.
func resolvedBefore(h *harness, work string, position int) bool {
	pos := h.positions()[sandbox.Audit]
	for i, r := range h.audit() {
		if r.Event == sandbox.EventResolution && r.WorkID == work {
			return pos[i] < position
		}
	}
	return false
}

// positions maps each line of each log to its place in the write trace.
func (h *harness) positions() map[string][]int {
	out := map[string][]int{}
	lines := map[string]int{}
	for i, w := range h.trace {
		_, file, _ := strings.Cut(w, ":")
		lines[file]++
		if _, torn := h.torn[file][lines[file]]; torn {
			continue // the torn line is no record: records are counted without it
		}
		out[file] = append(out[file], i)
	}
	return out
}

// claimProblems: at the end each work item has at most one current winner,
// and every claimed agent that is not the winner has stood down.
func (h *harness) claimProblems() []string {
	var out []string
	last := map[string]map[string]string{}
	var works []string
	for _, r := range h.audit() {
		if r.Event != sandbox.EventClaim {
			continue
		}
		if last[r.WorkID] == nil {
			last[r.WorkID] = map[string]string{}
			works = append(works, r.WorkID)
		}
		last[r.WorkID][r.AgentID] = r.Outcome
	}
	for _, w := range works {
		winners, open := 0, 0
		for _, o := range last[w] {
			switch o {
			case sandbox.ClaimWon:
				winners++
			case sandbox.ClaimClaimed:
				open++
			}
		}
		if winners > 1 {
			out = append(out, fmt.Sprintf("work %s has %d winners", w, winners))
		}
		if open > 0 {
			out = append(out, fmt.Sprintf("work %s has %d claims never stood down", w, open))
		}
	}
	return out
}

// stateProblems compares the final state.json with the logs.
func (h *harness) stateProblems() []string {
	var out []string
	st := h.state()
	admitted := map[string]bool{}
	outcome := map[string]string{}
	lastWon := map[string]string{}
	for _, r := range h.audit() {
		switch r.Event {
		case sandbox.EventAdmission:
			admitted[r.WorkID] = true
		case sandbox.EventResolution:
			outcome[r.WorkID] = r.Outcome
		case sandbox.EventClaim:
			if r.Outcome == sandbox.ClaimWon {
				lastWon[r.WorkID] = r.AgentID
			}
		}
	}
	if len(st.WorkItems) != len(admitted) {
		out = append(out, fmt.Sprintf("state has %d work items, logs %d", len(st.WorkItems), len(admitted)))
	}
	for _, w := range st.WorkItems {
		if !admitted[w.WorkID] {
			out = append(out, "state names unadmitted "+w.WorkID)
		}
		if o, ok := outcome[w.WorkID]; ok && w.Status != o {
			out = append(out, fmt.Sprintf("state says %s is %s, logs %s", w.WorkID, w.Status, o))
		}
		got := ""
		if w.AssignedAgent != nil {
			got = *w.AssignedAgent
		}
		if got != lastWon[w.WorkID] {
			out = append(out, fmt.Sprintf("state assigns %s to %q, logs %q", w.WorkID, got, lastWon[w.WorkID]))
		}
	}
	dead := map[string]bool{}
	signals, _ := sandbox.ParseSignals(h.mem.View(sandbox.Signals))
	for _, s := range signals {
		if s.Rec.SignalType == "AGENT_DEATH" {
			dead[s.Rec.Target] = true
		}
	}
	for _, a := range st.Agents {
		if a.Alive == dead[a.ID] {
			out = append(out, fmt.Sprintf("state says agent %s alive=%v", a.ID, a.Alive))
		}
	}
	return out
}
