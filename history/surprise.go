package history

import (
	"sort"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Surprises that justify a model call.
const (
	SurpriseAdmission    = "admission"    // a newly admitted message that opens its conversation
	SurpriseFollowUp     = "follow_up"    // a newly admitted later message of a conversation
	SurpriseReassignment = "reassignment" // the work item won by another agent after its owner's death
	SurpriseRestart      = "restart"      // a crash and restart while the work item was pending
	SurpriseRejection    = "rejection"    // a valid reject of the work item's latest draft
	SurpriseNone         = "none"
)

// Reasons a call is left without a surprise.
const (
	NoSurpriseUncited    = "no draft cites the call"
	NoSurpriseAmbiguous  = "drafts of several work items cite the call"
	NoSurpriseNothingNew = "nothing new for its work item since its previous call"
)

// Surprise is the diagnostic "for every model call, name the surprise": each
// stub call attributed to the change that justified it, or to none. It sits
// beside the levels and is never a level verdict.
type Surprise struct {
	Calls        int `json:"calls"`
	Attributed   int `json:"attributed"`
	Unattributed int `json:"unattributed"`
	// ByKind counts calls per surprise kind ("none" included).
	ByKind map[string]int `json:"by_kind"`
	// PerWork counts calls per work item.
	PerWork map[string]int `json:"per_work"`
	Items   []Attribution  `json:"items"`
}

// Attribution is one model call's surprise.
type Attribution struct {
	CallID   string `json:"call_id"`
	Op       int    `json:"op"`
	WorkID   string `json:"work_id,omitempty"`
	Surprise string `json:"surprise"`
	// Cause is the index of the operation that was the surprise, or -1.
	Cause  int    `json:"cause"`
	Reason string `json:"reason,omitempty"`
}

// event is one surprise waiting to justify a call of its work item.
type event struct {
	kind string
	op   int
	used bool
}

// Surprises attributes every model call of a history. A call belongs to the
// work item of the draft that cites it (a lookup, never a guess: a call cited
// by drafts of two work items is left unattributed). Each surprise justifies
// one call of its work item, the earliest after it; a call with no surprise
// left is unattributed.
func Surprises(h *History) Surprise {
	s := Surprise{ByKind: map[string]int{}, PerWork: map[string]int{}, Items: []Attribution{}}
	callWork, ambiguous := citations(h)
	events := map[string][]*event{}
	push := func(work, kind string, op int) {
		events[work] = append(events[work], &event{kind: kind, op: op})
	}
	conversations := map[string]string{} // message id -> conversation
	opened := map[string]string{}        // conversation -> first message id
	owner := map[string]string{}         // work id -> latest won agent
	dead := map[string]bool{}
	admitted := map[string]bool{}
	done := map[string]bool{} // sent or resolved
	var works []string
	latest := map[string]string{} // work id -> latest draft id
	draftWork := map[string]string{}
	var calls []int
	for i := range h.Ops {
		op := &h.Ops[i]
		switch op.Type {
		case OpDeliver, OpDuplicate:
			if _, ok := conversations[op.MessageID]; !ok {
				conversations[op.MessageID] = op.ConversationID
				if _, ok := opened[op.ConversationID]; !ok {
					opened[op.ConversationID] = op.MessageID
				}
			}
		case OpAdmit:
			if admitted[op.WorkID] {
				continue
			}
			admitted[op.WorkID] = true
			works = append(works, op.WorkID)
			kind := SurpriseAdmission
			if c, ok := conversations[op.MessageID]; ok && opened[c] != op.MessageID {
				kind = SurpriseFollowUp
			}
			push(op.WorkID, kind, i)
		case OpSignal:
			if op.AgentID != "" {
				dead[op.AgentID] = true
			}
		case OpClaim:
			if op.Outcome != sandbox.ClaimWon {
				continue
			}
			if prev, ok := owner[op.WorkID]; ok && prev != op.AgentID && dead[prev] {
				push(op.WorkID, SurpriseReassignment, i)
			}
			owner[op.WorkID] = op.AgentID
		case OpCrash:
			for _, w := range works {
				if !done[w] {
					push(w, SurpriseRestart, i)
				}
			}
		case OpDraft:
			if _, ok := draftWork[op.DraftID]; !ok {
				draftWork[op.DraftID] = op.WorkID
				latest[op.WorkID] = op.DraftID
			}
		case OpApprove:
			w, ok := draftWork[op.DraftID]
			if ok && op.R().Forged == ForgedNo && op.R().Decision == "reject" && latest[w] == op.DraftID {
				push(w, SurpriseRejection, i)
			}
		case OpSend:
			if w, ok := draftWork[op.DraftID]; ok {
				done[w] = true
			}
		case OpResolve:
			done[op.WorkID] = true
		case OpModelCall:
			calls = append(calls, i)
		}
	}
	// Calls are matched once every surprise is known: without a run log a
	// surprise written in a call's tick may come after it in the order.
	for _, i := range calls {
		s.Items = append(s.Items, attribute(h, i, h.Ops[i], callWork, ambiguous, events))
	}
	for _, a := range s.Items {
		s.Calls++
		s.ByKind[a.Surprise]++
		if a.WorkID != "" {
			s.PerWork[a.WorkID]++
		}
		if a.Surprise == SurpriseNone {
			s.Unattributed++
		} else {
			s.Attributed++
		}
	}
	return s
}

func attribute(h *History, i int, op Op, callWork map[string]string, ambiguous map[string]bool, events map[string][]*event) Attribution {
	a := Attribution{CallID: op.R().CallID, Op: i, Surprise: SurpriseNone, Cause: -1}
	if ambiguous[op.R().CallID] {
		a.Reason = NoSurpriseAmbiguous
		return a
	}
	w, ok := callWork[op.R().CallID]
	if !ok {
		a.Reason = NoSurpriseUncited
		return a
	}
	a.WorkID = w
	for _, e := range events[w] {
		if e.used || !precedes(h, e.op, i) {
			continue
		}
		e.used = true
		a.Surprise, a.Cause = e.kind, e.op
		return a
	}
	a.Reason = NoSurpriseNothingNew
	return a
}

// precedes reports whether the surprise at op a may have come before the
// call at op b: earlier in the history, or at the same tick when their
// order is not known (no run log, or lines the log does not place).
func precedes(h *History, a, b int) bool {
	if a < b {
		return true
	}
	x, y := h.Ops[a], h.Ops[b]
	rough := h.Ordering == OrderFiles || x.Approximate || y.Approximate
	return rough && x.Tick == y.Tick && x.Actor != ActorHarness
}

// citations maps each call id to the work item of the drafts citing it.
func citations(h *History) (map[string]string, map[string]bool) {
	work, ambiguous := map[string]string{}, map[string]bool{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Type != OpDraft {
			continue
		}
		for _, id := range op.R().Calls {
			if w, ok := work[id]; ok && w != op.WorkID {
				ambiguous[id] = true
			}
			work[id] = op.WorkID
		}
	}
	return work, ambiguous
}

// Works returns the work ids of PerWork in order, for printing.
func (s Surprise) Works() []string {
	out := make([]string, 0, len(s.PerWork))
	for w := range s.PerWork {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}
