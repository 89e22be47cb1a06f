package checker

// Which message a work item answers (D32). An admission record says it; when
// the implementation wrote none, the work item's first draft says it through
// its conversation. Replies are credited through this link, so a system that
// writes no admissions fails L2, where the spec puts admission records, and
// not L0, which asks only for a valid reply.

// answers is the inferred half of the link, computed once.
type answers struct {
	message map[string]*message // unadmitted work id -> the message it answers
	works   map[string][]string // message id -> unadmitted work ids answering it
}

func (f *facts) inferred() *answers {
	if f.answers == nil {
		f.answers = f.inferAnswers()
	}
	return f.answers
}

// inferAnswers links each drafted work item with no admission of a known
// message to the earliest message of its first draft's conversation that a
// rule may admit, that had arrived when the draft was declared, and that no
// other drafted work item answers. Admitted work items keep their messages;
// the others take theirs in the order of their first drafts, so one work
// item answers one message and two messages of a thread need two.
func (f *facts) inferAnswers() *answers {
	a := &answers{message: map[string]*message{}, works: map[string][]string{}}
	taken := map[string]bool{}
	// Each work item's admissions of a known message, so that finding them
	// is not a scan of every admission per work item.
	knownAdm := map[string][]string{}
	for _, adm := range f.admissions {
		if f.msgByID[adm.MessageID] != nil {
			knownAdm[adm.WorkID] = append(knownAdm[adm.WorkID], adm.MessageID)
		}
	}
	var open []*draft
	seen := map[string]bool{}
	for _, d := range f.drafts {
		if f.draftByID[d.DraftID] != d || seen[d.WorkID] {
			continue
		}
		seen[d.WorkID] = true
		for _, id := range knownAdm[d.WorkID] {
			taken[id] = true
		}
		if len(knownAdm[d.WorkID]) == 0 {
			open = append(open, d)
		}
	}
	for _, d := range open {
		m := f.earliestOpen(d, taken)
		if m == nil {
			continue
		}
		taken[m.ID] = true
		a.message[d.WorkID] = m
		a.works[m.ID] = append(a.works[m.ID], d.WorkID)
	}
	return a
}

// earliestOpen returns, in delivery order, the first message of the draft's
// conversation that had arrived by its declaration, that some rule in force
// may admit (a message no rule admits is not work), and that is not taken.
func (f *facts) earliestOpen(d *draft, taken map[string]bool) *message {
	for _, m := range f.look().byConv[d.ConversationID] {
		if taken[m.ID] || d.at.before(m.at) {
			continue
		}
		if may, _ := f.judge(m); may {
			return m
		}
	}
	return nil
}

// answering returns the work items that answer a message: those admitted
// for it, then those linked to it by their drafts.
func (f *facts) answering(m *message) []string {
	admitted, linked := f.worksOf(m.ID), f.inferred().works[m.ID]
	if len(linked) == 0 {
		return admitted
	}
	return append(append(make([]string, 0, len(admitted)+len(linked)), admitted...), linked...)
}

// answeredBy returns the message a work item answers, or nil.
func (f *facts) answeredBy(work string) *message {
	if m := f.messageOf(work); m != nil {
		return m
	}
	return f.inferred().message[work]
}

// after reports whether an effect's draft was declared once the message had
// arrived (the same tick counts, D3): only such a line can answer it (D44).
func (e *effect) after(m *message) bool {
	return e.draft != nil && !e.draft.at.before(m.at)
}

// validReply reports whether an outbox line is a valid reply (spec §2
// outbox: "valid only if its draft_id was previously declared").
func (e *effect) validReply() bool {
	return e.draft != nil && !e.at.before(e.draft.at)
}
