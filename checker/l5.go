package checker

import (
	"fmt"

	"github.com/amr-bench/amr/sim/sandbox"
)

// checkDistinctWork: one work id never covers two messages.
func checkDistinctWork(f *facts) []Violation {
	var out []Violation
	reported := map[[2]string]bool{}
	for _, a := range f.admissions {
		f.judged("L5.distinct-work")
		first := f.admitted[a.WorkID]
		key := [2]string{a.WorkID, a.MessageID}
		if first.MessageID == a.MessageID || reported[key] {
			continue
		}
		reported[key] = true
		out = append(out, Violation{Invariant: "L5.distinct-work", Level: 5, Tick: a.at.tick,
			MessageID: a.MessageID, WorkID: a.WorkID,
			Evidence: []string{ref(sandbox.Audit, first.line), ref(sandbox.Audit, a.line)},
			Detail: fmt.Sprintf("Work item %s covers message %s as well as %s.",
				a.WorkID, a.MessageID, first.MessageID)})
	}
	return out
}

// checkConversationIdentity: a draft stays in the conversation of the
// message its work item was admitted for. Every declaration line is read: a
// draft declared again in another conversation carries the wrong
// conversation_id as much as the first line would (D46). One obligation per
// draft id judged.
func checkConversationIdentity(f *facts) []Violation {
	var out []Violation
	counted := map[string]bool{}
	for _, d := range f.drafts {
		m := f.messageOf(d.WorkID)
		if m == nil {
			continue
		}
		f.judgedWhen(!counted[d.DraftID], "L5.conversation-identity")
		counted[d.DraftID] = true
		if m.ConversationID == d.ConversationID {
			continue
		}
		out = append(out, Violation{Invariant: "L5.conversation-identity", Level: 5, Tick: d.at.tick,
			MessageID: m.ID, WorkID: d.WorkID, DraftID: d.DraftID,
			Evidence: []string{ref(sandbox.Drafts, d.line), m.ref()},
			Detail: fmt.Sprintf("Draft %s is in conversation %s but its work item answers message %s of conversation %s.",
				d.DraftID, d.ConversationID, m.ID, m.ConversationID)})
	}
	return out
}

// checkIdentityLiveness judges L5's liveness (spec §4 L5): every message
// that expects a reply gets one within its window, and every escalated item
// produces an observable abandoned resolution — the L0/L1 and L4 facts,
// reported at level 5 because levels are reported independently.
func checkIdentityLiveness(f *facts) []Violation {
	out := f.replies(func(*message) bool { return true }, "L5.approved-send", 5)
	return append(out, f.escalationResolution("L5.escalation-resolution", 5)...)
}

// checkEscalatedSend: the L4 send-after-escalation facts, reported at level
// 5 as well: levels are reported independently.
func checkEscalatedSend(f *facts) []Violation {
	return f.escalatedSends("L5.escalated-send", 5)
}
