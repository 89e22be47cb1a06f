package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-escalate-before-approval-only honours an escalation only while no
// approval has arrived for the work item's latest draft, so an approved
// draft is still sent after the operator took over.
type escalateBeforeApprovalOnly struct{ reference }

func (p escalateBeforeApprovalOnly) escalation(w *world, s sandbox.SignalRecord) (*work, bool) {
	wk, ok := p.reference.escalation(w, s)
	return wk, ok && !w.latestApproved(wk)
}
