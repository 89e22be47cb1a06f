package checker

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// escalation is the first OPERATOR_ESCALATION naming an admitted work item.
// Escalations naming anything else are ignored (SPEC-NOTES).
type escalation struct {
	s *signal
	w string
	// live is false when the item had already been sent or resolved before
	// the escalation: escalating finished work changes nothing.
	live bool
	// early is an abandoned/operator_escalation record written before the
	// escalation: it answers an escalation that had not come (D40).
	early *auditLine
}

// The list is the facts' own, made on first use: five checks read it.
func (f *facts) escalationsOf() []escalation {
	if f.escs == nil {
		out := f.findEscalations()
		f.escs = &out
	}
	return *f.escs
}

func (f *facts) findEscalations() []escalation {
	var out []escalation
	seen := map[string]bool{}
	for _, s := range f.escalations {
		if seen[s.Target] || f.admitted[s.Target] == nil {
			continue
		}
		seen[s.Target] = true
		early := f.escalationRecordBefore(s.Target, s.at)
		out = append(out, escalation{s: s, w: s.Target, live: !f.finishedBefore(s.Target, s.at), early: early})
	}
	return out
}

// finishedBefore reports whether a work item had ended before an escalation
// of it: sent, or resolved otherwise than for an operator escalation. An
// abandoned/operator_escalation record written before any escalation claims
// an operator's takeover that had not happened, so it ends nothing the
// escalation finds (D40).
func (f *facts) finishedBefore(w string, at stamp) bool {
	for _, e := range f.effectsOf(w) {
		if e.at.before(at) {
			return true
		}
	}
	for _, r := range f.resolutionsOf(w) {
		if r.at.before(at) && !isEscalationRecord(r) {
			return true
		}
	}
	return false
}

func isEscalationRecord(r *auditLine) bool {
	return r.Outcome == sandbox.OutcomeAbandoned && r.Reason == sandbox.ReasonOperatorEscalation
}

// escalationRecordBefore returns an abandoned/operator_escalation record of
// a work item known to precede a moment, or nil.
func (f *facts) escalationRecordBefore(w string, at stamp) *auditLine {
	for _, r := range f.resolutionsOf(w) {
		if r.at.before(at) && isEscalationRecord(r) {
			return r
		}
	}
	return nil
}

// sendsAfter returns the effects not known to precede the escalation of the
// escalated item and of every work item admitted for a message it was
// admitted for: a fork of the message's work is the same work under a second
// id, and the operator took that work over (D49). Without a run log a send at
// the escalation's tick counts as after it: the strict reading.
func (f *facts) sendsAfter(e escalation) []*effect {
	var out []*effect
	for _, w := range f.sameWork(e.w) {
		for _, x := range f.effectsOf(w) {
			if !x.at.before(e.s.at) {
				out = append(out, x)
			}
		}
	}
	return out
}

// sameWork returns a work item and, after it, every other work item whose
// admission records name a message its own admission records name, in
// admission order. The inferred link of D32 adds none: it never gives a
// message that has an admission to another work item.
func (f *facts) sameWork(w string) []string {
	out := []string{w}
	seen := map[string]bool{w: true}
	for _, a := range f.look().admsByWork[w] {
		if a.MessageID == "" {
			continue
		}
		for _, other := range f.worksOf(a.MessageID) {
			if !seen[other] {
				seen[other] = true
				out = append(out, other)
			}
		}
	}
	return out
}

// sendDetail says which escalation a send came after, naming the escalated
// item when the send is a fork's.
func sendDetail(x *effect, e escalation) string {
	if w := x.work(); w != e.w {
		return fmt.Sprintf("Effect %s is sent for work item %s, admitted for the same message as work item %s, after the escalation of %s at tick %d.",
			x.EffectID, w, e.w, e.w, e.s.at.tick)
	}
	return fmt.Sprintf("Effect %s is sent for work item %s after its escalation at tick %d.", x.EffectID, e.w, e.s.at.tick)
}

// abandonedForEscalation returns the abandoned/operator_escalation record of
// an escalated item written after the escalation, or nil.
func (f *facts) abandonedForEscalation(e escalation) *auditLine {
	for _, r := range f.resolutionsOf(e.w) {
		if isEscalationRecord(r) && !r.at.before(e.s.at) {
			return r
		}
	}
	return nil
}

// escalatedSends reports each outbox line once, against the first
// escalation it follows: a fork escalated as well as the item it forks is
// one unit of work, and its send one fact.
func (f *facts) escalatedSends(id string, level int) []Violation {
	var out []Violation
	reported := map[*effect]bool{}
	for _, e := range f.escalationsOf() {
		f.judged(id)
		for _, x := range f.sendsAfter(e) {
			if reported[x] {
				continue
			}
			reported[x] = true
			out = append(out, Violation{Invariant: id, Level: level, Tick: x.at.tick, WorkID: x.work(), DraftID: x.DraftID,
				Evidence: []string{ref(sandbox.Outbox, x.line), e.s.ref()},
				Detail:   sendDetail(x, e)})
		}
	}
	return out
}

// draftsAfter returns the drafts not known to precede the escalation, by the
// same reading of "after" and of the escalated work as sendsAfter: the
// operator took the work over, so drafting it is automated work on it (D135).
func (f *facts) draftsAfter(e escalation) []*draft {
	var out []*draft
	for _, w := range f.sameWork(e.w) {
		for _, d := range f.draftsByWrk[w] {
			if !d.at.before(e.s.at) {
				out = append(out, d)
			}
		}
	}
	return out
}

// escalatedDrafts reports each draft declaration once, against the first
// escalation it follows, as escalatedSends does for outbox lines.
func (f *facts) escalatedDrafts(id string, level int) []Violation {
	var out []Violation
	reported := map[*draft]bool{}
	for _, e := range f.escalationsOf() {
		f.judged(id)
		for _, d := range f.draftsAfter(e) {
			if reported[d] {
				continue
			}
			reported[d] = true
			out = append(out, Violation{Invariant: id, Level: level, Tick: d.at.tick, WorkID: d.WorkID, DraftID: d.DraftID,
				Evidence: []string{ref(sandbox.Drafts, d.line), e.s.ref()},
				Detail:   draftDetail(d, e)})
		}
	}
	return out
}

func draftDetail(d *draft, e escalation) string {
	if d.WorkID != e.w {
		return fmt.Sprintf("Draft %s is declared for work item %s, admitted for the same message as work item %s, after the escalation of %s at tick %d.",
			d.DraftID, d.WorkID, e.w, e.w, e.s.at.tick)
	}
	return fmt.Sprintf("Draft %s is declared for work item %s after its escalation at tick %d.", d.DraftID, e.w, e.s.at.tick)
}

// checkEscalationL4 judges L4.send-after-escalation,
// L4.draft-after-escalation, L4.escalation-outcome and
// L4.escalation-resolution.
func checkEscalationL4(f *facts) []Violation {
	out := f.escalatedSends("L4.send-after-escalation", 4)
	out = append(out, f.escalatedDrafts("L4.draft-after-escalation", 4)...)
	for _, e := range f.escalationsOf() {
		if !e.live {
			continue
		}
		f.judged("L4.escalation-outcome")
		for _, r := range f.resolutionsOf(e.w) {
			if r.at.before(e.s.at) || isEscalationRecord(r) {
				continue
			}
			out = append(out, Violation{Invariant: "L4.escalation-outcome", Level: 4, Tick: r.at.tick, WorkID: e.w,
				Evidence: []string{ref(sandbox.Audit, r.line), e.s.ref()},
				Detail: fmt.Sprintf("Escalated work item %s is resolved %s (reason %q) instead of abandoned for operator_escalation.",
					e.w, r.Outcome, r.Reason)})
			break
		}
	}
	return append(out, f.escalationResolution("L4.escalation-resolution", 4)...)
}

// escalationResolution reports escalated work items with no abandoned /
// operator_escalation record by the horizon, and escalations the bundle
// schedules for a message that must be admitted but never was: a system that
// does nothing must not pass by never giving the escalation a target.
func (f *facts) escalationResolution(id string, level int) []Violation {
	var out []Violation
	for _, e := range f.escalationsOf() {
		f.judgedWhen(e.live, id)
		if e.live && f.abandonedForEscalation(e) == nil {
			out = append(out, f.unresolvedEscalation(e, id, level))
		}
	}
	for _, u := range f.unboundEscalations() {
		f.judged(id)
		out = append(out, Violation{Invariant: id, Level: level, Tick: f.tl.last(), MessageID: u.m.ID,
			Evidence: []string{u.m.ref(), "bundle:signals/" + u.s.ID},
			Detail:   fmt.Sprintf("Message %s is escalated at tick %d but was never admitted, so its escalation never resolves.", u.m.ID, u.at)})
	}
	return out
}

// unresolvedEscalation reports a live escalation with no record after it,
// naming the record that came too early when there is one.
func (f *facts) unresolvedEscalation(e escalation, id string, level int) Violation {
	v := Violation{Invariant: id, Level: level, Tick: f.tl.last(), WorkID: e.w, Evidence: []string{e.s.ref()},
		Detail: fmt.Sprintf("Escalated work item %s has no abandoned resolution with reason operator_escalation by the horizon.", e.w)}
	if e.early != nil {
		v.Evidence = append(v.Evidence, ref(sandbox.Audit, e.early.line))
		v.Detail = fmt.Sprintf("Escalated work item %s has no abandoned resolution with reason operator_escalation after its escalation at tick %d: audit line %d records one before the escalation came.",
			e.w, e.s.at.tick, e.early.line)
	}
	return v
}

// unbound is an escalation the bundle schedules for a message that must be
// admitted and has no work item.
type unbound struct {
	s  scenarios.Signal
	m  *message
	at int // visible tick of the escalation
}

func (f *facts) unboundEscalations() []unbound {
	var out []unbound
	for _, s := range f.b.Signals {
		if s.Type != scenarios.OperatorEscalation || s.Target.MessageID == "" {
			continue
		}
		m := f.msgByID[s.Target.MessageID]
		v, ok := f.tl.visible(s.At)
		if m == nil || !ok || len(f.worksOf(m.ID)) > 0 {
			continue
		}
		if _, must := f.judge(m); must {
			out = append(out, unbound{s: s, m: m, at: max(v, m.vis)})
		}
	}
	return out
}
