package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// crashBudget is how long pending work may take to resolve after a crash
// (spec §4 L1: "within 20 ticks of restart").
const crashBudget = 20

// checkDuplicateEffect: at most one outbox effect per work item, per draft
// and per effect id; every extra line is a violation.
func checkDuplicateEffect(f *facts) []Violation {
	var out []Violation
	byWork, byDraft, byID := map[string]*effect{}, map[string]*effect{}, map[string]*effect{}
	for _, e := range f.effects {
		f.judged("L1.duplicate-effect")
		var first *effect
		var what string
		switch w := e.work(); {
		case w != "" && byWork[w] != nil:
			first, what = byWork[w], "work item "+w
		case byDraft[e.DraftID] != nil:
			first, what = byDraft[e.DraftID], "draft "+e.DraftID
		case byID[e.EffectID] != nil:
			first, what = byID[e.EffectID], "effect id "+e.EffectID
		}
		if first != nil {
			out = append(out, Violation{Invariant: "L1.duplicate-effect", Level: 1, Tick: e.at.tick,
				WorkID: e.work(), DraftID: e.DraftID,
				Evidence: []string{ref(sandbox.Outbox, first.line), ref(sandbox.Outbox, e.line)},
				Detail:   fmt.Sprintf("Outbox line %d is a second effect for %s.", e.line, what)})
		}
		if w := e.work(); w != "" && byWork[w] == nil {
			byWork[w] = e
		}
		if byDraft[e.DraftID] == nil {
			byDraft[e.DraftID] = e
		}
		if byID[e.EffectID] == nil {
			byID[e.EffectID] = e
		}
	}
	return out
}

// checkDuplicateWork: a message admitted under more than one work id is a
// forked thread.
func checkDuplicateWork(f *facts) []Violation {
	var out []Violation
	first := map[string]*auditLine{}
	reported := map[[2]string]bool{}
	for _, a := range f.admissions {
		p, ok := first[a.MessageID]
		if !ok {
			f.judged("L1.duplicate-work")
			first[a.MessageID] = a
			continue
		}
		key := [2]string{a.MessageID, a.WorkID}
		if p.WorkID == a.WorkID || reported[key] {
			continue
		}
		reported[key] = true
		out = append(out, Violation{Invariant: "L1.duplicate-work", Level: 1, Tick: a.at.tick,
			MessageID: a.MessageID, WorkID: a.WorkID,
			Evidence: []string{ref(sandbox.Audit, p.line), ref(sandbox.Audit, a.line)},
			Detail: fmt.Sprintf("Message %s is admitted again as work item %s after %s.",
				a.MessageID, a.WorkID, p.WorkID)})
	}
	return out
}

// checkOwnAnchor: a sent draft carries its own conversation's anchor and no
// other.
func checkOwnAnchor(f *facts) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for _, e := range f.effects {
		if e.draft == nil || seen[e.DraftID] {
			continue
		}
		seen[e.DraftID] = true
		f.judged("L1.own-anchor")
		d := e.draft
		conv, answered := d.ConversationID, f.answeredBy(d.WorkID)
		if answered != nil {
			conv = answered.ConversationID
		}
		required := f.anchorsOf(conv, func(m *message) bool { return answered != nil && m.order <= answered.order })
		allowed := union(required, f.anchorsOf(conv, func(m *message) bool { return m.at.tick <= d.at.tick }))
		problem := anchorProblem(d.Body, required, allowed, f.b.Model.Anchors)
		if problem == "" {
			continue
		}
		out = append(out, Violation{Invariant: "L1.own-anchor", Level: 1, Tick: e.at.tick,
			WorkID: d.WorkID, DraftID: d.DraftID,
			Evidence: []string{ref(sandbox.Outbox, e.line), ref(sandbox.Drafts, d.line)},
			Detail:   fmt.Sprintf("Sent draft %s of conversation %s %s.", d.DraftID, conv, problem)})
	}
	return out
}

// anchorsOf returns the anchors of the bundle, in its order, that appear in
// the subject or body of a message of the conversation that counts.
func (f *facts) anchorsOf(conv string, counts func(*message) bool) []string {
	var out []string
	for _, a := range f.b.Model.Anchors {
		if a == "" {
			continue
		}
		for _, m := range f.look().byConv[conv] {
			if counts(m) &&
				(strings.Contains(m.Subject, a) || strings.Contains(m.Body, a)) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// anchorProblem says what is wrong with a body's anchors, or "". A reply
// must carry one of the anchors its thread had shown up to the message it
// answers (required), and no anchor its thread had not shown by the time it
// was drafted (allowed). Occurrences of allowed anchors are removed, the
// longest first, before looking for others, so an anchor that contains
// another (ORD-12, ORD-1) is not mistaken for both.
func anchorProblem(body string, required, allowed, anchors []string) string {
	rest := body
	byLength := append([]string(nil), allowed...)
	sort.SliceStable(byLength, func(i, j int) bool { return len(byLength[i]) > len(byLength[j]) })
	for _, a := range byLength {
		rest = strings.ReplaceAll(rest, a, "")
	}
	for _, a := range anchors {
		if a != "" && !contains(allowed, a) && strings.Contains(rest, a) {
			return fmt.Sprintf("carries anchor %s of another thread", a)
		}
	}
	if len(required) > 0 && len(rest) == len(body) {
		return fmt.Sprintf("does not carry its anchor %s", strings.Join(required, " or "))
	}
	return ""
}

// checkCrashResolution: work that was approved but unsent when a crash
// landed resolves within 20 ticks: sent, or abandoned with a record. What
// was pending is read from the artifacts, and from the bundle too: a message
// that expects a reply, had arrived and was due for approval by the crash,
// and was not yet answered counts as pending even if the implementation
// never drafted it, so doing nothing does not pass.
func checkCrashResolution(f *facts) []Violation {
	var out []Violation
	reported := map[string]bool{}
	for ci, c := range f.crashes {
		restart, up := f.restartOf(c.at.tick)
		if !up {
			continue
		}
		d, ok := f.deadline(restart, crashBudget)
		if !ok {
			continue
		}
		for _, w := range f.draftedWork() {
			if reported[w] {
				continue
			}
			pending, a := f.pendingAt(w, c.at)
			if pending == nil {
				continue
			}
			f.judgedAsN("L1.crash-resolution", ci)
			if f.settledBy(w, d) {
				continue
			}
			reported[w] = true
			if m := f.answeredBy(w); m != nil {
				reported[m.ID] = true
			}
			out = append(out, Violation{Invariant: "L1.crash-resolution", Level: 1, Tick: d,
				WorkID: w, DraftID: pending.DraftID,
				Evidence: []string{c.evidence(), ref(sandbox.Drafts, pending.line), ref(sandbox.Approvals, a.line)},
				Detail: fmt.Sprintf("Work item %s was approved but unsent at the crash of tick %d and is neither sent nor abandoned by tick %d.",
					w, c.at.tick, d)})
		}
		for _, m := range f.messages {
			if reported[m.ID] || !f.dueAt(m, c) {
				continue
			}
			f.judgedAsN("L1.crash-resolution", ci)
			if f.messageSettledBy(m, d) {
				continue
			}
			reported[m.ID] = true
			v := Violation{Invariant: "L1.crash-resolution", Level: 1, Tick: d, MessageID: m.ID,
				Evidence: []string{c.evidence(), m.ref()},
				Detail: fmt.Sprintf("Message %s was due to be answered at the crash of tick %d and is neither sent nor abandoned by tick %d.",
					m.ID, c.at.tick, d)}
			if works := f.answering(m); len(works) > 0 {
				v.WorkID = works[0]
			}
			out = append(out, v)
		}
	}
	return out
}

// dueAt reports whether, by the bundle, a message was pending at a crash: it
// expects a reply, it had arrived and its approval was scheduled by the
// crash's tick, and nothing had been sent for it before the crash.
func (f *facts) dueAt(m *message, c crash) bool {
	if _, ok := f.replyDeadline(m); !ok || m.vis > c.at.tick {
		return false
	}
	if at, ok := f.approvalDue(m); !ok || at > c.at.tick {
		return false
	}
	for _, w := range f.answering(m) {
		for _, e := range f.effectsOf(w) {
			if e.at.before(c.at) && e.after(m) {
				return false
			}
		}
	}
	return true
}

// messageSettledBy reports whether one of a message's work items was sent or
// abandoned with a record by tick t, after the message arrived: what a work
// item did before answers nothing for it (D44).
func (f *facts) messageSettledBy(m *message, t int) bool {
	for _, w := range f.answering(m) {
		for _, e := range f.effectsOf(w) {
			if e.at.by(t) && e.after(m) {
				return true
			}
		}
		for _, r := range f.resolutionsOf(w) {
			if r.Outcome == sandbox.OutcomeAbandoned && r.at.by(t) && !r.at.before(m.at) {
				return true
			}
		}
	}
	return false
}

// draftedWork lists the work ids that have drafts, in order of first draft.
//
// The list is the facts' own, made once: the crash check asks it per crash.
func (f *facts) draftedWork() []string {
	if f.drafted == nil {
		out := make([]string, 0, len(f.draftsByWrk))
		seen := make(map[string]bool, len(f.draftsByWrk))
		for _, d := range f.drafts {
			if !seen[d.WorkID] {
				seen[d.WorkID] = true
				out = append(out, d.WorkID)
			}
		}
		f.drafted = out
	}
	return f.drafted
}

// pendingAt returns the latest draft of a work item and the approval that
// authorized it when, at the moment at, the item was approved but neither
// sent nor resolved.
func (f *facts) pendingAt(w string, at stamp) (*draft, *approval) {
	d := f.latestDraft(w, at)
	if d == nil {
		return nil, nil
	}
	for _, e := range f.effectsOf(w) {
		if e.at.before(at) {
			return nil, nil
		}
	}
	for _, r := range f.resolutionsOf(w) {
		if r.at.before(at) {
			return nil, nil
		}
	}
	for _, a := range f.look().byDraft[d.DraftID] {
		if a.valid && a.Decision == "approve" && a.at.before(at) {
			return d, a
		}
	}
	return nil, nil
}

// settledBy reports whether a work item was sent or abandoned with a record
// by tick t.
func (f *facts) settledBy(w string, t int) bool {
	for _, e := range f.effectsOf(w) {
		if e.at.by(t) {
			return true
		}
	}
	for _, r := range f.resolutionsOf(w) {
		if r.Outcome == sandbox.OutcomeAbandoned && r.at.by(t) {
			return true
		}
	}
	return false
}

// checkResolutionConflict: a work item ends once: never both sent and
// abandoned, never both outcomes, never completed without a send.
func checkResolutionConflict(f *facts) []Violation {
	var out []Violation
	for _, w := range f.resolvedWork() {
		f.judged("L1.resolution-conflict")
		effects := f.effectsOf(w)
		var completed, abandoned *auditLine
		for _, r := range f.resolutionsOf(w) {
			if r.Outcome == sandbox.OutcomeCompleted && completed == nil {
				completed = r
			}
			if r.Outcome == sandbox.OutcomeAbandoned && abandoned == nil {
				abandoned = r
			}
		}
		v := Violation{Invariant: "L1.resolution-conflict", Level: 1, WorkID: w}
		switch {
		case len(effects) > 0 && abandoned != nil:
			v.Tick = max(effects[0].at.tick, abandoned.at.tick)
			v.Evidence = []string{ref(sandbox.Audit, abandoned.line), ref(sandbox.Outbox, effects[0].line)}
			v.Detail = fmt.Sprintf("Work item %s was both sent and abandoned.", w)
		case completed != nil && abandoned != nil:
			v.Tick = max(completed.at.tick, abandoned.at.tick)
			v.Evidence = []string{ref(sandbox.Audit, min(completed.line, abandoned.line)), ref(sandbox.Audit, max(completed.line, abandoned.line))}
			v.Detail = fmt.Sprintf("Work item %s has resolution records of both outcomes.", w)
		case completed != nil && len(effects) == 0:
			v.Tick = completed.at.tick
			v.Evidence = []string{ref(sandbox.Audit, completed.line)}
			v.Detail = fmt.Sprintf("Work item %s is resolved completed but nothing was sent for it.", w)
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// resolvedWork lists the work ids with a resolution record or an effect, in
// order of first appearance.
func (f *facts) resolvedWork() []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, r := range f.resolutions {
		add(r.WorkID)
	}
	for _, e := range f.effects {
		add(e.work())
	}
	return out
}
