package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-last-decision-wins takes the latest decision on a draft as the
// operator's word, even over a rejection it already acted on: an approval
// after a rejection reopens the abandoned work item and sends it, so the
// item ends both abandoned and sent. A system that stores "the decision" as
// one mutable field does this.
type lastDecisionWins struct{ reference }

func (lastDecisionWins) redecides() bool { return true }

// reopens takes up again a work item a rejection abandoned; an item the
// operator escalated stays closed.
func (lastDecisionWins) reopens(w *world, wk *work, dec decision) bool {
	if dec.decision != "approve" || wk.outcome != sandbox.OutcomeAbandoned || wk.effects > 0 {
		return false
	}
	for _, s := range w.v.signals {
		if s.SignalType == sandbox.SignalOperatorEscalation && s.Target == wk.id {
			return false
		}
	}
	return true
}
