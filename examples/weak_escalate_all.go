package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-escalate-all reads an OPERATOR_ESCALATION as a stop for everything:
// whichever work item the signal names, it abandons every unfinished item
// with reason operator_escalation, one per step. Work the operator never
// took over is dropped, and an item escalated later already carries the
// reason, written before its own escalation came.
type escalateAll struct{ reference }

func (escalateAll) escalation(w *world, _ sandbox.SignalRecord) (*work, bool) {
	return w.anyUnfinished()
}

// anyUnfinished returns the first work item neither resolved nor sent.
func (w *world) anyUnfinished() (*work, bool) {
	for _, wk := range w.works {
		if !wk.resolved && wk.effects == 0 {
			return wk, true
		}
	}
	return nil, false
}
