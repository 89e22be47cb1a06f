package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-ignore-reject hears only the go-ahead: a reject line is no decision
// it knows, so it writes no abandonment and the draft stays undecided, and
// a later approve of the same draft sends it. An approval adapter that
// forwards only approvals to the system does this.
type ignoreReject struct{ reference }

func (ignoreReject) bind(w *world, a sandbox.ApprovalRecord) (sandbox.Draft, bool) {
	if a.Decision != "approve" {
		return sandbox.Draft{}, false
	}
	return reference{}.bind(w, a)
}
