package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-last-decision-wins takes the latest decision on a draft as the
// operator's word, even over a rejection it already acted on: an approval
// after a rejection reopens the abandoned work item and sends it, so the
// item ends both abandoned and sent.

// reopens reports whether a work item abandoned by a rejection is taken up
// again; an item the operator escalated stays closed.
func (r *responder) reopens(w *world, wk *work, dec decision) bool {
	if r.defect != lastDecisionWins || dec.decision != "approve" ||
		wk.outcome != sandbox.OutcomeAbandoned || wk.effects > 0 {
		return false
	}
	for _, s := range w.v.signals {
		if s.SignalType == sandbox.SignalOperatorEscalation && s.Target == wk.id {
			return false
		}
	}
	return true
}
