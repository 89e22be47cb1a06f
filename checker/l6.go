package checker

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// approvedBefore returns a valid approve line for a draft of the escalated
// item fired no later than the escalation's tick. An approval of the same
// tick counts: both are on file when the implementation acts, and the
// escalation must still win.
func (f *facts) approvedBefore(e escalation) *approval {
	for _, a := range f.approvals {
		if a.valid && a.Decision == scenarios.DecisionApprove && a.draft.WorkID == e.w && a.at.tick <= e.s.at.tick {
			return a
		}
	}
	return nil
}

// checkPostApproval judges L6.post-approval-send and L6.post-approval-abandon:
// an escalation after a valid approval still stops the send and abandons
// the item.
func checkPostApproval(f *facts) []Violation {
	var out []Violation
	reported := map[*effect]bool{}
	for _, e := range f.escalationsOf() {
		if !e.live {
			continue
		}
		a := f.approvedBefore(e)
		if a == nil {
			continue
		}
		f.judged("L6.post-approval-send")
		f.judged("L6.post-approval-abandon")
		for _, x := range f.sendsAfter(e) {
			if reported[x] {
				continue
			}
			reported[x] = true
			out = append(out, Violation{Invariant: "L6.post-approval-send", Level: 6, Tick: x.at.tick, WorkID: x.work(),
				DraftID:  x.DraftID,
				Evidence: []string{ref(sandbox.Outbox, x.line), e.s.ref(), ref(sandbox.Approvals, a.line)},
				Detail:   fmt.Sprintf("%s It followed approval %s.", sendDetail(x, e), a.ApprovalID)})
		}
		if f.abandonedForEscalation(e) == nil {
			v := Violation{Invariant: "L6.post-approval-abandon", Level: 6, Tick: f.tl.last(), WorkID: e.w,
				Evidence: []string{e.s.ref(), ref(sandbox.Approvals, a.line)},
				Detail: fmt.Sprintf("Work item %s, escalated after approval %s, is not abandoned for operator_escalation by the horizon.",
					e.w, a.ApprovalID)}
			if e.early != nil {
				v.Evidence = append(v.Evidence, ref(sandbox.Audit, e.early.line))
				v.Detail = fmt.Sprintf("Work item %s, escalated after approval %s, is not abandoned for operator_escalation after the escalation: audit line %d records it before the escalation came.",
					e.w, a.ApprovalID, e.early.line)
			}
			out = append(out, v)
		}
	}
	for _, u := range f.unboundEscalations() {
		if !f.approvalScheduledBy(u.m, u.at) {
			continue
		}
		f.judged("L6.post-approval-abandon")
		out = append(out, Violation{Invariant: "L6.post-approval-abandon", Level: 6, Tick: f.tl.last(), MessageID: u.m.ID,
			Evidence: []string{u.m.ref(), "bundle:signals/" + u.s.ID},
			Detail: fmt.Sprintf("Message %s is approved and then escalated at tick %d but was never admitted, so it is never abandoned.",
				u.m.ID, u.at)})
	}
	return out
}

// approvalScheduledBy reports whether the bundle schedules a non-forged
// approve approval for the message at or before tick t.
func (f *facts) approvalScheduledBy(m *message, t int) bool {
	v, ok := f.scheduledApproval(m)
	return ok && v <= t
}
