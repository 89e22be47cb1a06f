package examples

// weak-escalate-all reads an OPERATOR_ESCALATION as a stop for everything:
// whichever work item the signal names, it abandons every unfinished item
// with reason operator_escalation, one per step. Work the operator never
// took over is dropped, and an item escalated later already carries the
// reason, written before its own escalation came.

// anyUnfinished returns the first work item neither resolved nor sent.
func (w *world) anyUnfinished() (*work, bool) {
	for _, wk := range w.works {
		if !wk.resolved && wk.effects == 0 {
			return wk, true
		}
	}
	return nil, false
}
