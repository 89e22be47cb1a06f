package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-send-per-approval sends once per approve line: a redelivered
// approval sends the reply again.
type sendPerApproval struct{ reference }

func (p sendPerApproval) resend(w *world, wk *work, d sandbox.Draft, dec decision) *write {
	if wk.outcome == sandbox.OutcomeAbandoned || dec.decision != "approve" ||
		wk.effects == 0 || wk.effects >= w.approveLines(p, d) {
		return nil
	}
	return p.send(w, wk, d)
}

// approveLines counts the approve lines that bind a draft, redeliveries
// included.
func (w *world) approveLines(p policy, d sandbox.Draft) int {
	n := 0
	for _, a := range w.v.approvals {
		if b, ok := p.bind(w, a); ok && b.DraftID == d.DraftID && a.Decision == "approve" && !w.ignored[a.ApprovalID] {
			n++
		}
	}
	return n
}
