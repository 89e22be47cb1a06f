package checker

import "github.com/amr-bench/amr/scenarios"

// Lookups built on first use, once build has finished: each replaces a
// scan over a whole list made once per message or per work item, which
// made judging a run grow with the square of its length.
type lookups struct {
	worksByMsg    map[string][]string // message id -> distinct admitted work ids, in admission order
	firstApproval map[string]*approval
	approvalsFor  map[string][]scenarios.Approval // message id -> the bundle's approvals naming it, in bundle order
	signalsFor    map[string][]scenarios.Signal   // likewise the bundle's signals
	byConv        map[string][]*message           // conversation id -> its messages, in delivery order
	admsByMsg     map[string][]*auditLine         // message id -> its admission records, in line order
	admsByWork    map[string][]*auditLine         // work id -> its admission records, in line order
	byDraft       map[string][]*approval          // draft id -> approvals lines naming it, in line order
	rejectsByWork map[string][]*approval          // work id -> valid reject lines of its drafts, in line order
	escByTarget   map[string][]*signal            // work id -> escalations naming it, in line order
}

func (f *facts) look() *lookups {
	if f.lookups != nil {
		return f.lookups
	}
	l := &lookups{worksByMsg: map[string][]string{}, firstApproval: map[string]*approval{},
		approvalsFor: map[string][]scenarios.Approval{}, signalsFor: map[string][]scenarios.Signal{},
		byConv: map[string][]*message{}, admsByMsg: map[string][]*auditLine{}, admsByWork: map[string][]*auditLine{},
		byDraft:       map[string][]*approval{},
		rejectsByWork: map[string][]*approval{}, escByTarget: map[string][]*signal{}}
	for _, a := range f.admissions {
		l.admsByMsg[a.MessageID] = append(l.admsByMsg[a.MessageID], a)
		l.admsByWork[a.WorkID] = append(l.admsByWork[a.WorkID], a)
	}
	for _, a := range f.approvals {
		l.byDraft[a.DraftID] = append(l.byDraft[a.DraftID], a)
		if a.valid && a.Decision == scenarios.DecisionReject {
			l.rejectsByWork[a.draft.WorkID] = append(l.rejectsByWork[a.draft.WorkID], a)
		}
	}
	for _, s := range f.escalations {
		l.escByTarget[s.Target] = append(l.escByTarget[s.Target], s)
	}
	for _, m := range f.messages {
		l.byConv[m.ConversationID] = append(l.byConv[m.ConversationID], m)
	}
	seen := map[[2]string]bool{}
	for _, a := range f.admissions {
		if k := [2]string{a.MessageID, a.WorkID}; !seen[k] {
			seen[k] = true
			l.worksByMsg[a.MessageID] = append(l.worksByMsg[a.MessageID], a.WorkID)
		}
	}
	for _, x := range f.approvals {
		if _, ok := l.firstApproval[x.ApprovalID]; !ok && x.first && !x.tampered && x.valid {
			l.firstApproval[x.ApprovalID] = x
		}
	}
	for _, a := range f.b.Approvals {
		if m, ok := f.namedMessage(a.Match); ok {
			l.approvalsFor[m] = append(l.approvalsFor[m], a)
		}
	}
	for _, s := range f.b.Signals {
		if m, ok := f.namedMessage(s.Target); ok {
			l.signalsFor[m] = append(l.signalsFor[m], s)
		}
	}
	f.lookups = l
	return l
}

// namedMessage is the message a bundle reference names, as matches reads
// it: its message id, or the message of the work id it gives when that
// work item was admitted.
func (f *facts) namedMessage(ref scenarios.Match) (string, bool) {
	if ref.MessageID != "" {
		return ref.MessageID, true
	}
	if ref.WorkID != "" {
		if a, ok := f.admitted[ref.WorkID]; ok {
			return a.MessageID, true
		}
	}
	return "", false
}

// approvalsNaming lists the bundle's approvals that name the message
// (matches), in bundle order.
func (f *facts) approvalsNaming(m *message) []scenarios.Approval { return f.look().approvalsFor[m.ID] }

// signalsNaming lists the bundle's signals whose target names the message.
func (f *facts) signalsNaming(m *message) []scenarios.Signal { return f.look().signalsFor[m.ID] }
