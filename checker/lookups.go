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
	l := &lookups{
		admsByMsg:  groupBy(f.admissions, func(a *auditLine) string { return a.MessageID }, nil),
		admsByWork: groupBy(f.admissions, func(a *auditLine) string { return a.WorkID }, nil),
		byDraft:    groupBy(f.approvals, func(a *approval) string { return a.DraftID }, nil),
		rejectsByWork: groupBy(f.approvals, func(a *approval) string { return a.draft.WorkID },
			func(a *approval) bool { return a.valid && a.Decision == scenarios.DecisionReject }),
		escByTarget:   groupBy(f.escalations, func(s *signal) string { return s.Target }, nil),
		byConv:        groupBy(f.messages, func(m *message) string { return m.ConversationID }, nil),
		firstApproval: map[string]*approval{},
	}
	l.worksByMsg = distinctWorks(l.admsByMsg, len(f.admissions))
	for _, x := range f.approvals {
		if _, ok := l.firstApproval[x.ApprovalID]; !ok && x.first && !x.tampered && x.valid {
			l.firstApproval[x.ApprovalID] = x
		}
	}
	l.approvalsFor = groupBy(f.b.Approvals, func(a scenarios.Approval) string { m, _ := f.namedMessage(a.Match); return m },
		func(a scenarios.Approval) bool { _, ok := f.namedMessage(a.Match); return ok })
	l.signalsFor = groupBy(f.b.Signals, func(s scenarios.Signal) string { m, _ := f.namedMessage(s.Target); return m },
		func(s scenarios.Signal) bool { _, ok := f.namedMessage(s.Target); return ok })
	f.lookups = l
	return l
}

// distinctWorks lists, per message, the distinct work ids of its admission
// records in line order, all in one array of room n.
func distinctWorks(admsByMsg map[string][]*auditLine, n int) map[string][]string {
	out := make(map[string][]string, len(admsByMsg))
	all := make([]string, 0, n)
	for msg, adms := range admsByMsg {
		start := len(all)
		var seen map[string]bool // only for a message admitted many times
		if len(adms) > 8 {
			seen = make(map[string]bool, len(adms))
		}
		for _, a := range adms {
			if seen == nil && contains(all[start:], a.WorkID) || seen[a.WorkID] {
				continue
			}
			if seen != nil {
				seen[a.WorkID] = true
			}
			all = append(all, a.WorkID)
		}
		out[msg] = all[start:len(all):len(all)]
	}
	return out
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
