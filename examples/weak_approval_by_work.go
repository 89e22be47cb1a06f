package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-approval-by-work files a decision under the work item, not under the
// draft it names: a genuine approval of the item's previous draft, arriving
// after a new owner re-drafted, is taken as approving the latest draft,
// which is then sent with no approval of its own (spec §2: "a draft that
// changes by one word is a new draft and needs a new approval").

// latestOfWork returns the latest draft of the work item a draft belongs to.
func (w *world) latestOfWork(d sandbox.Draft) sandbox.Draft {
	if wk, ok := w.draftWork[d.DraftID]; ok {
		if latest, ok := wk.latestDraft(); ok {
			return latest
		}
	}
	return d
}
