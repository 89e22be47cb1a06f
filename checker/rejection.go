package checker

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// rejection is a valid reject line that was the first valid decision on its
// draft: the operator's word on that draft, which a later approve does not
// take back (D154).
type rejection struct {
	a *approval
	// endsWork is set when the rejected draft was its work item's latest
	// draft when the rejection came: the rejection then ends the work item,
	// not the draft alone (D155).
	endsWork bool
}

// rejections returns the final rejections in approvals order. A line whose
// decision is neither approve nor reject decides nothing.
func (f *facts) rejections() []rejection {
	decided := map[string]bool{}
	var out []rejection
	for _, a := range f.approvals {
		if !a.valid || decided[a.DraftID] {
			continue
		}
		if a.Decision != scenarios.DecisionApprove && a.Decision != scenarios.DecisionReject {
			continue
		}
		decided[a.DraftID] = true
		if a.Decision == scenarios.DecisionReject {
			out = append(out, rejection{a: a, endsWork: f.latestWhen(a)})
		}
	}
	return out
}

// latestWhen reports whether no draft of the approval's work item declared
// after its draft existed when the approval came, by the reading of "existed"
// that makes the approval valid (D3: without a run log, a draft of the
// approval's own tick may have been first).
func (f *facts) latestWhen(a *approval) bool {
	later := false
	for _, d := range f.draftsByWrk[a.draft.WorkID] {
		if later && f.declaredBefore(d, a.at) {
			return false
		}
		later = later || d == a.draft
	}
	return true
}

// bars reports whether the rejection forbids the effect: a send of the
// rejected draft, or of any draft of the work item the rejection ended,
// not known to precede it. The harness comes first in a tick (D3), so a
// send of the rejection's tick is after it, with or without a run log.
func (r rejection) bars(e *effect) bool {
	if e.draft == nil || e.at.before(r.a.at) {
		return false
	}
	return e.DraftID == r.a.DraftID || r.endsWork && e.draft.WorkID == r.a.draft.WorkID
}

// checkSendAfterRejection: no send of a draft after a valid rejection that
// was the first decision on it, nor of any draft of a work item such a
// rejection ended; one violation per outbox line, against the first
// rejection it follows.
func checkSendAfterRejection(f *facts) []Violation {
	rs := f.rejections()
	for range rs {
		f.judged("L2.send-after-rejection")
	}
	var out []Violation
	for _, e := range f.effects {
		for _, r := range rs {
			if !r.bars(e) {
				continue
			}
			out = append(out, Violation{Invariant: "L2.send-after-rejection", Level: 2, Tick: e.at.tick,
				WorkID: e.work(), DraftID: e.DraftID,
				Evidence: []string{ref(sandbox.Outbox, e.line), ref(sandbox.Approvals, r.a.line)},
				Detail:   rejectionDetail(e, r)})
			break
		}
	}
	return out
}

func rejectionDetail(e *effect, r rejection) string {
	if e.DraftID == r.a.DraftID {
		return fmt.Sprintf("Effect %s sends draft %s, rejected by %s at tick %d before any approval of it.",
			e.EffectID, e.DraftID, r.a.ApprovalID, r.a.at.tick)
	}
	return fmt.Sprintf("Effect %s sends draft %s of work item %s, which the rejection %s of draft %s ended at tick %d.",
		e.EffectID, e.DraftID, e.work(), r.a.ApprovalID, r.a.DraftID, r.a.at.tick)
}
