package checker

import (
	"fmt"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Reply budgets (spec §4 L0 and L1: a reply within 10 ticks of arrival; L2:
// an approved draft sends within 5 ticks of approval).
const (
	replyBudget    = 10
	approvalBudget = 5
)

// checkRecordFormat: every non-blank line of drafts, outbox and audit parses.
func checkRecordFormat(f *facts) []Violation {
	var out []Violation
	for _, e := range f.bad {
		if f.tornByHarness(e) {
			continue
		}
		what := e.Msg
		if e.Field != "" {
			what = e.Field + ": " + e.Msg
		}
		out = append(out, Violation{Invariant: "L0.record-format", Level: 0, Tick: e.at.tick,
			Evidence: []string{ref(e.File, e.Line)},
			Detail:   fmt.Sprintf("%s line %d is not a valid record (%s).", e.File, e.Line, what)})
	}
	return out
}

// checkHarnessFiles: the harness's files (inbox, approvals, signals, mode,
// clock, rules) hold what the harness wrote. The engine records in the run
// log when an implementation changed them during the run; every other
// disagreement with the run log, or without one with the bundle, is found
// when the inputs are built (D24, D30).
func checkHarnessFiles(f *facts) []Violation {
	var out []Violation
	for i, r := range f.tampers {
		out = append(out, Violation{Invariant: "L0.harness-files", Level: 0, Tick: r.Tick,
			Evidence: []string{f.tamperRefs[i]},
			Detail:   fmt.Sprintf("The implementation changed files only the harness writes (%s).", r.Detail)})
	}
	for _, d := range f.diffs {
		out = append(out, Violation{Invariant: "L0.harness-files", Level: 0, Tick: d.tick,
			Evidence: append([]string(nil), d.evidence...), Detail: d.detail})
	}
	return out
}

// checkDraftRedeclared: a draft id names one draft; declaring it again with
// other content would make its approvals ambiguous.
func checkDraftRedeclared(f *facts) []Violation {
	var out []Violation
	for _, d := range f.drafts {
		first := f.draftByID[d.DraftID]
		if first == d || sameDraft(*first.Draft, *d.Draft) {
			continue
		}
		out = append(out, Violation{Invariant: "L0.draft-redeclared", Level: 0, Tick: d.at.tick,
			WorkID: d.WorkID, DraftID: d.DraftID,
			Evidence: []string{ref(sandbox.Drafts, first.line), ref(sandbox.Drafts, d.line)},
			Detail:   fmt.Sprintf("Draft %s is declared again with different content.", d.DraftID)})
	}
	return out
}

func sameDraft(a, b sandbox.Draft) bool {
	return a.WorkID == b.WorkID && a.ConversationID == b.ConversationID && a.Body == b.Body && a.ContentHash == b.ContentHash
}

// checkOutboxDeclared: an outbox line's draft was declared before it.
func checkOutboxDeclared(f *facts) []Violation {
	var out []Violation
	for _, e := range f.effects {
		if e.draft != nil && !e.at.before(e.draft.at) {
			continue
		}
		v := Violation{Invariant: "L0.outbox-declared", Level: 0, Tick: e.at.tick, DraftID: e.DraftID,
			Evidence: []string{ref(sandbox.Outbox, e.line)}}
		switch {
		case e.draft == nil:
			v.Detail = fmt.Sprintf("Effect %s sends draft %s, which was never declared.", e.EffectID, e.DraftID)
		case e.at.before(e.draft.at):
			v.WorkID = e.draft.WorkID
			v.Evidence = append(v.Evidence, ref(sandbox.Drafts, e.draft.line))
			v.Detail = fmt.Sprintf("Effect %s sends draft %s before the draft was declared.", e.EffectID, e.DraftID)
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// checkDraftOrigin: a draft's origin is "model-free" or stub call ids. When
// the stub's log has lines that cannot be read, a call id not found may be
// on one of them: that is a fixture defect, listed in the verdict, and the
// origin is not judged (D26).
func checkDraftOrigin(f *facts) []Violation {
	if f.callsUnreadable() {
		return nil
	}
	var out []Violation
	for _, d := range f.drafts {
		if d.Origin.ModelFree {
			continue
		}
		var missing, refused, failed []string
		for _, id := range d.Origin.CallIDs {
			switch {
			case f.refused[id]:
				refused = append(refused, id)
			case f.failed[id]:
				failed = append(failed, id)
			case !f.modelCalls[id]:
				missing = append(missing, id)
			}
		}
		var why []string
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("model calls %s that are not in %s", strings.Join(missing, ", "), sandbox.ModelCalls))
		}
		if len(refused) > 0 {
			why = append(why, fmt.Sprintf("requests %s that the stub refused, which produced no completion", strings.Join(refused, ", ")))
		}
		if len(failed) > 0 {
			why = append(why, fmt.Sprintf("calls %s that failed, which produced no completion", strings.Join(failed, ", ")))
		}
		if len(why) == 0 {
			continue
		}
		out = append(out, Violation{Invariant: "L0.draft-origin", Level: 0, Tick: d.at.tick,
			WorkID: d.WorkID, DraftID: d.DraftID, Evidence: []string{ref(sandbox.Drafts, d.line)},
			Detail: fmt.Sprintf("Draft %s cites %s.", d.DraftID, strings.Join(why, " and "))})
	}
	return out
}

// checkReply: the first message of each conversation that expects a reply
// gets one by its deadline.
func checkReply(f *facts) []Violation {
	return f.replies(func(m *message) bool { return m.first }, "L0.reply", 0)
}

// checkFollowUpReply: the same rule for follow-ups, at level 1.
func checkFollowUpReply(f *facts) []Violation {
	return f.replies(func(m *message) bool { return !m.first }, "L1.follow-up-reply", 1)
}

func (f *facts) replies(judged func(*message) bool, id string, level int) []Violation {
	var out []Violation
	for _, m := range f.messages {
		if !judged(m) {
			continue
		}
		d, ok := f.replyDeadline(m)
		f.judgedWhen(ok, id)
		if !ok || f.repliedBy(m, d) {
			continue
		}
		works := f.answering(m)
		v := Violation{Invariant: id, Level: level, Tick: d, MessageID: m.ID, Evidence: []string{m.ref()},
			Detail: fmt.Sprintf("Message %s expected a reply by tick %d and none was sent.", m.ID, d)}
		if len(works) > 0 {
			v.WorkID = works[0]
		} else {
			v.Detail = fmt.Sprintf("Message %s expected a reply by tick %d but was never admitted.", m.ID, d)
		}
		out = append(out, v)
	}
	return out
}

// repliedBy reports whether a valid outbox line of a work item answering the
// message (D32) was observed by tick d. A work item linked to the message
// only by its drafts answers it in the message's own conversation: a reply
// sent elsewhere is not this message's reply. An admitted one answers it
// wherever it was sent, the wrong conversation being L5's to judge. Either
// way the reply's draft was declared after the message arrived: a line sent
// for the work item before is no reply to it (D44).
func (f *facts) repliedBy(m *message, d int) bool {
	valid := func(e *effect) bool { return e.validReply() && e.at.by(d) && e.after(m) }
	inThread := func(e *effect) bool { return valid(e) && e.draft.ConversationID == m.ConversationID }
	return f.anySent(f.worksOf(m.ID), valid) || f.anySent(f.inferred().works[m.ID], inThread)
}

func (f *facts) anySent(works []string, counts func(*effect) bool) bool {
	for _, w := range works {
		for _, e := range f.effectsOf(w) {
			if counts(e) {
				return true
			}
		}
	}
	return false
}

// replyDeadline decides from the bundle whether a message expects a reply
// and by when: it must be admitted, a non-forged approve approval must be
// scheduled for it, and no escalation, rejection or loss of the whole fleet
// may come by the deadline. The deadline is 10 ticks from its arrival or 5
// from its approval's scheduled tick, whichever ends later. ok is false when
// no reply is expected or the horizon ends first.
//
// The answer is a message's own once asked: the reply checks and the crash
// check each ask it for every message.
func (f *facts) replyDeadline(m *message) (int, bool) {
	if !m.reply.asked {
		d, ok := f.findReplyDeadline(m)
		m.reply = replyDue{asked: true, d: d, ok: ok}
	}
	return m.reply.d, m.reply.ok
}

// replyDue is a message's reply deadline, and whether it has one, once
// asked.
type replyDue struct {
	asked, ok bool
	d         int
}

func (f *facts) findReplyDeadline(m *message) (int, bool) {
	if _, must := f.judge(m); !must {
		return 0, false
	}
	approvedAt, ok := f.approvalDue(m)
	if !ok {
		return 0, false
	}
	d1, ok1 := f.deadline(m.vis, replyBudget)
	d2, ok2 := f.deadline(approvedAt, approvalBudget)
	if !ok1 || !ok2 {
		return 0, false
	}
	d := max(d1, d2)
	if f.scheduledStop(m, d) {
		return 0, false
	}
	if f.fleetGoneWithin(stamp{m.vis, seqHarness}, endOf(d)) {
		return 0, false
	}
	return d, true
}

// scheduledApproval returns the visible tick of the earliest non-forged
// approve approval the bundle schedules for the message.
func (f *facts) scheduledApproval(m *message) (int, bool) {
	best, found := 0, false
	for _, a := range f.approvalsNaming(m) {
		if a.Forge != "" || a.Stale() || a.Decision != scenarios.DecisionApprove {
			continue
		}
		if v, ok := f.tl.visible(a.At); ok && (!found || v < best) {
			best, found = v, true
		}
	}
	return best, found
}

// approvalDue returns the tick from which the implementation had the
// earliest non-forged approve approval the bundle schedules for the message
// (see firedAt).
func (f *facts) approvalDue(m *message) (int, bool) {
	best, found := 0, false
	for _, a := range f.approvalsNaming(m) {
		if a.Forge != "" || a.Stale() || a.Decision != scenarios.DecisionApprove {
			continue
		}
		if v, ok := f.tl.visible(a.At); ok {
			if t := f.firedAt(a, m, v); !found || t < best {
				best, found = t, true
			}
		}
	}
	return best, found
}

// firedAt returns the tick a scheduled approval, due at visible tick v,
// reached the implementation for its budgets: v, or the later tick its line
// was written when the message's work already had a draft to bind before v.
// Such a delay is the harness's (spec §2: "Decisions may arrive many ticks
// after they were requested"), and no send can precede the approval; a
// delay because nothing was drafted yet is the implementation's, and v
// stands (D12, D37).
func (f *facts) firedAt(a scenarios.Approval, m *message, v int) int {
	line := f.look().firstApproval[a.ID]
	if line == nil || line.at.tick <= v {
		return v
	}
	for _, w := range f.answering(m) {
		if adm, ok := f.admitted[w]; ok && adm.at.tick >= v {
			continue // not bindable by the message yet: the harness waits for the admission
		}
		for _, d := range f.draftsByWrk[w] {
			if d.at.tick < v {
				return line.at.tick
			}
		}
	}
	return v
}

// scheduledStop reports whether the bundle escalates or rejects the message
// at or before tick d.
func (f *facts) scheduledStop(m *message, d int) bool {
	for _, s := range f.signalsNaming(m) {
		if s.Type != scenarios.OperatorEscalation {
			continue
		}
		if v, ok := f.tl.visible(s.At); ok && v <= d {
			return true
		}
	}
	for _, a := range f.approvalsNaming(m) {
		if a.Forge != "" || a.Stale() || a.Decision != scenarios.DecisionReject {
			continue
		}
		if v, ok := f.tl.visible(a.At); ok && v <= d {
			return true
		}
	}
	return false
}

// matches reports whether a bundle reference names the message: by message
// id, or by a work id admitted for it.
func (f *facts) matches(ref scenarios.Match, m *message) bool {
	if ref.MessageID != "" {
		return ref.MessageID == m.ID
	}
	if ref.WorkID != "" {
		if a, ok := f.admitted[ref.WorkID]; ok {
			return a.MessageID == m.ID
		}
	}
	return false
}
