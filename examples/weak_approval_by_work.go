package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-approval-by-work files a decision under the work item, not under the
// draft it names: a genuine approval of the item's previous draft, arriving
// after a new owner re-drafted, is taken as approving the latest draft,
// which is then sent with no approval of its own (spec §2: "a draft that
// changes by one word is a new draft and needs a new approval"). A system
// that keys its approval state on the ticket, not on the text approved,
// does this.
type approvalByWork struct{ reference }

// bind takes a valid line as authorizing its work item's latest draft.
func (p approvalByWork) bind(w *world, a sandbox.ApprovalRecord) (sandbox.Draft, bool) {
	d, ok := p.reference.bind(w, a)
	if !ok {
		return d, false
	}
	if wk, found := w.draftWork[d.DraftID]; found {
		if latest, has := wk.latestDraft(); has {
			return latest, true
		}
	}
	return d, true
}
