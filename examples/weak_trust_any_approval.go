package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-trust-any-approval accepts an approval line that matches a declared
// draft by id or by content hash, where the spec asks for both.
type trustAnyApproval struct{ reference }

func (trustAnyApproval) bind(w *world, a sandbox.ApprovalRecord) (sandbox.Draft, bool) {
	if !knownDecision(a) {
		return sandbox.Draft{}, false
	}
	if d, ok := w.drafts[a.DraftID]; ok {
		return d, true
	}
	for _, d := range w.v.drafts {
		if d.ContentHash == a.ContentHash {
			return d, true
		}
	}
	return sandbox.Draft{}, false
}
