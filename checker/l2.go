package checker

import (
	"fmt"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// admissionBudget is how soon a message that matches a rule must become
// work (spec §4 L2: "within 5 ticks").
const admissionBudget = 5

// judge applies the rules to a message under every admission context it may
// be judged by, wherever in its admission budget the decision was made. may:
// some context admits it; must: every one does.
func (f *facts) judge(m *message) (may, must bool) {
	// Asked again and again for one message (its reply deadline, its
	// admission, its escalations): the rules are evaluated once.
	if m.judgement == nil {
		may, must := f.judgeBy(m, f.decisionEnd(m))
		m.judgement = &[2]bool{may, must}
	}
	return m.judgement[0], m.judgement[1]
}

// judgeBy is judge for a decision made by tick t: the contexts in force
// when the message arrived (and within the allowance before), through t.
func (f *facts) judgeBy(m *message, t int) (may, must bool) {
	must = true
	for _, ri := range f.contexts(m, t) {
		r := f.regimes.list[ri]
		_, ok := scenarios.Admitted(r.rules, scenarios.Facts{Subject: m.Subject, Body: m.Body, From: m.From,
			Posture: r.posture, ThreadLength: m.threadLen, SenderHistory: m.senderHis})
		may = may || ok
		must = must && ok
	}
	return may, must
}

// decisionEnd is the last tick an admission decision about a message can
// be made in time: the end of its admission budget, or the last tick when
// the horizon comes first. The implementation may decide at any tick from
// the message's arrival to then, under the rules and posture in force when
// it does (spec §4 L2: "every admission traceable to the rules version … and
// posture in force when it happened"; D5).
func (f *facts) decisionEnd(m *message) int {
	if d, ok := f.deadline(m.vis, admissionBudget); ok {
		return d
	}
	return f.tl.last()
}

// contexts returns the regimes an admission of the message decided at tick t
// may follow; a decision recorded after the budget is read as made at its
// end.
//
// The list is a buffer of facts reused by the next call: callers read it
// before they ask again.
func (f *facts) contexts(m *message, t int) []int {
	f.ctxBuf = f.regimes.candidates(f.ctxBuf, f.tl, m.vis, min(max(t, m.vis), f.decisionEnd(m)))
	return f.ctxBuf
}

// rulesHashes returns the rule_hash values an admission of the message
// recorded at tick t may carry.
func (f *facts) rulesHashes(m *message, t int) []string {
	var out []string
	for _, ri := range f.contexts(m, t) {
		r := f.regimes.list[ri]
		for _, h := range []string{r.hash, r.alias} {
			if h != "" && !contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// carriesRulesHash reports whether h is among rulesHashes(m, t).
func (f *facts) carriesRulesHash(m *message, t int, h string) bool {
	if h == "" {
		return false
	}
	for _, ri := range f.contexts(m, t) {
		if r := f.regimes.list[ri]; r.hash == h || r.alias == h {
			return true
		}
	}
	return false
}

// checkAdmission: no admission that no rule warrants, and every message that
// must be admitted is, within 5 ticks of arriving.
func checkAdmission(f *facts) []Violation {
	var out []Violation
	// The earliest admission of a message is judged: a later one may
	// follow every context the earliest may, and more (D34).
	first := map[string]*auditLine{}
	for _, a := range f.admissions {
		if p := first[a.MessageID]; p == nil || a.at.tick < p.at.tick {
			first[a.MessageID] = a
		}
	}
	for _, m := range f.messages {
		f.judged("L2.admission-unwarranted")
		_, must := f.judge(m)
		if a := first[m.ID]; a != nil && !f.warranted(m, a) {
			out = append(out, Violation{Invariant: "L2.admission-unwarranted", Level: 2, Tick: a.at.tick,
				MessageID: m.ID, WorkID: a.WorkID, Evidence: []string{ref(sandbox.Audit, a.line), m.ref()},
				Detail: fmt.Sprintf("Message %s is admitted as %s but no rule in force admits it.", m.ID, a.WorkID)})
		}
		if !must {
			continue
		}
		d, ok := f.deadline(m.vis, admissionBudget)
		f.judgedWhen(ok, "L2.admission-missing")
		if !ok || (first[m.ID] != nil && f.admittedBy(m.ID, d)) {
			continue
		}
		out = append(out, Violation{Invariant: "L2.admission-missing", Level: 2, Tick: d, MessageID: m.ID,
			Evidence: []string{m.ref()},
			Detail:   fmt.Sprintf("Message %s matches a rule in force but is not admitted by tick %d.", m.ID, d)})
	}
	return out
}

// warranted reports whether some context the admission may follow admits
// the message.
func (f *facts) warranted(m *message, a *auditLine) bool {
	may, _ := f.judgeBy(m, a.at.tick)
	return may
}

func (f *facts) admittedBy(msg string, t int) bool {
	for _, a := range f.look().admsByMsg[msg] {
		if a.at.by(t) {
			return true
		}
	}
	return false
}

// checkAdmissionRecord: every work id in use has an admission record; every
// admission names a delivered message and the rules version in force.
func checkAdmissionRecord(f *facts) []Violation {
	out := f.unadmittedWork()
	for _, a := range f.admissions {
		f.judgedAs("L2.admission-record", a.WorkID)
		m := f.msgByID[a.MessageID]
		if m != nil && !a.at.before(m.at) && f.carriesRulesHash(m, a.at.tick, a.RulesHash) {
			continue
		}
		v := Violation{Invariant: "L2.admission-record", Level: 2, Tick: a.at.tick, MessageID: a.MessageID,
			WorkID: a.WorkID, Evidence: []string{ref(sandbox.Audit, a.line)}}
		switch {
		case m == nil:
			v.Detail = fmt.Sprintf("Work item %s is admitted for message %s, which is not in %s.", a.WorkID, a.MessageID, sandbox.Inbox)
		case a.at.before(m.at):
			v.Evidence = append(v.Evidence, m.ref())
			v.Detail = fmt.Sprintf("Work item %s is admitted for message %s before the message was delivered.", a.WorkID, a.MessageID)
		case !contains(f.rulesHashes(m, a.at.tick), a.RulesHash):
			v.Evidence = append(v.Evidence, m.ref())
			v.Detail = fmt.Sprintf("Admission of %s carries rules_hash %s, not the hash of the rules in force (%s).",
				a.MessageID, short(a.RulesHash), strings.Join(shortAll(f.rulesHashes(m, a.at.tick)), " or "))
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// usage is one place a work id appears.
type usage struct {
	work, file string // file:line is its evidence, made only for a finding
	line       int
	at         stamp
}

// unadmittedWork reports work ids used in drafts, claims, resolutions or
// state with no admission record by the tick of their first use.
func (f *facts) unadmittedWork() []Violation {
	// Only a work id's first use is judged, so only it is kept: a run uses
	// each work id in a draft, a claim, a resolution and state, and every use
	// held at once was the largest of this check's data. Among uses at the
	// same stamp the one met first in the order below is the first.
	var firsts []usage
	at := make(map[string]int, len(f.admitted))
	use := func(u usage) {
		i, ok := at[u.work]
		if !ok {
			at[u.work] = len(firsts)
			firsts = append(firsts, u)
			return
		}
		if u.at.before(firsts[i].at) {
			firsts[i] = u
		}
	}
	for _, d := range f.drafts {
		use(usage{d.WorkID, sandbox.Drafts, d.line, d.at})
	}
	for _, a := range f.audit {
		if a.Event == sandbox.EventClaim || a.Event == sandbox.EventResolution {
			use(usage{a.WorkID, sandbox.Audit, a.line, a.at})
		}
	}
	if f.final.err == nil {
		for _, w := range f.final.snap.WorkItems {
			use(usage{w.WorkID, sandbox.State, 1, endOf(f.tl.last())})
		}
	}
	at = nil
	sortByStamp(firsts, func(u usage) (stamp, int) { return u.at, 0 })
	var out []Violation
	for _, u := range firsts {
		f.judgedAs("L2.admission-record", u.work)
		// Records are observed tick by tick: a work item used in the tick
		// its admission record was written, in whatever order the step
		// wrote its files, was admitted when the tick ended (D38).
		adm, ok := f.admitted[u.work]
		if ok && u.at.tick >= adm.at.tick {
			continue
		}
		v := Violation{Invariant: "L2.admission-record", Level: 2, Tick: u.at.tick, WorkID: u.work,
			Evidence: []string{ref(u.file, u.line)},
			Detail:   fmt.Sprintf("Work item %s is in use but has no admission record.", u.work)}
		if ok {
			v.Evidence = append(v.Evidence, ref(sandbox.Audit, adm.line))
			v.Detail = fmt.Sprintf("Work item %s is in use before its admission record.", u.work)
		}
		out = append(out, v)
	}
	return out
}

// checkApprovalBinding: every effect's draft has a valid approve line
// written before the send; a send whose only authority is forged is reported
// as L2.forged-approval-acted instead.
func checkApprovalBinding(f *facts) []Violation {
	var out []Violation
	for _, e := range f.effects {
		f.judged("L2.approval-binding")
		f.judged("L2.forged-approval-acted")
		if f.authorized(e) != nil {
			continue
		}
		v := Violation{Level: 2, Tick: e.at.tick, WorkID: e.work(), DraftID: e.DraftID,
			Evidence: []string{ref(sandbox.Outbox, e.line)}}
		if forged := f.forgedAuthority(e); forged != nil {
			v.Invariant = "L2.forged-approval-acted"
			v.Evidence = append(v.Evidence, ref(sandbox.Approvals, forged.line))
			v.Detail = fmt.Sprintf("Effect %s acts on forged approval %s.", e.EffectID, forged.ApprovalID)
		} else {
			v.Invariant = "L2.approval-binding"
			v.Detail = fmt.Sprintf("Effect %s sends draft %s without an approval binding its id and content hash.", e.EffectID, e.DraftID)
		}
		out = append(out, v)
	}
	return out
}

// authorized returns the valid approve line that authorizes an effect.
func (f *facts) authorized(e *effect) *approval {
	if e.draft == nil {
		return nil
	}
	for _, a := range f.look().byDraft[e.DraftID] {
		if a.valid && a.Decision == scenarios.DecisionApprove && a.at.before(e.at) {
			return a
		}
	}
	return nil
}

// forgedAuthority returns a forged approve line written before the effect
// that could have been taken as its authority: it names the same draft id,
// carries the draft's hash, or was scheduled for the draft's message.
func (f *facts) forgedAuthority(e *effect) *approval {
	var msg *message
	if e.draft != nil {
		msg = f.messageOf(e.draft.WorkID)
	}
	for _, a := range f.approvals {
		if a.valid || a.Decision != scenarios.DecisionApprove || !a.at.before(e.at) {
			continue
		}
		if a.DraftID == e.DraftID || e.draft != nil && a.ContentHash == e.draft.ContentHash {
			return a
		}
		if sched, ok := f.bx.ApprovalByID(a.ApprovalID); ok && msg != nil && f.matches(sched.Match, msg) {
			return a
		}
	}
	return nil
}

// forgedIDs returns the approval ids none of whose lines is valid.
func (f *facts) forgedIDs() map[string]bool {
	valid, all := map[string]bool{}, map[string]bool{}
	for _, a := range f.approvals {
		all[a.ApprovalID] = true
		if a.valid {
			valid[a.ApprovalID] = true
		}
	}
	out := map[string]bool{}
	for id := range all {
		if !valid[id] {
			out[id] = true
		}
	}
	return out
}

// checkForgedCited: no audit record cites a forged approval as authority
// (decision D9; the reading is citeForged's).
func checkForgedCited(f *facts) []Violation {
	forged := f.forgedIDs()
	if len(forged) == 0 {
		return nil
	}
	var known knownIDs // the run's ids, gathered for the first line that may cite
	var out []Violation
	for _, a := range f.audit {
		f.judged("L2.forged-approval-cited")
		if !lineMayCite(a.Line(), forged) {
			continue
		}
		fields := a.Fields()
		if known == nil {
			if !mayCite(fields, forged) {
				continue
			}
			known = f.knownIDs()
		}
		c, ok := citeForged(fields, forged, known)
		if !ok {
			continue
		}
		out = append(out, Violation{Invariant: "L2.forged-approval-cited", Level: 2, Tick: a.at.tick,
			WorkID: a.WorkID, Evidence: []string{ref(sandbox.Audit, a.line)},
			Detail: fmt.Sprintf("Audit record %q cites forged approval %s (at %s) without saying it is not valid.", a.Event, c.id, c.path)})
	}
	return out
}

// checkApprovalLatency: a valid approval of a work item's latest draft is
// followed by a send within 5 ticks, unless the item is escalated, rejected
// or orphaned by then.
func checkApprovalLatency(f *facts) []Violation {
	var out []Violation
	for _, a := range f.approvals {
		if !a.first || !a.valid || a.Decision != scenarios.DecisionApprove {
			continue
		}
		w := a.draft.WorkID
		if f.latestDraft(w, a.at) != a.draft {
			continue
		}
		d, ok := f.deadline(a.at.tick, approvalBudget)
		if !ok || f.stoppedBy(w, a.at, d) {
			continue
		}
		f.judged("L2.approval-latency")
		if f.sentBy(w, d) {
			continue
		}
		out = append(out, Violation{Invariant: "L2.approval-latency", Level: 2, Tick: d, WorkID: w,
			DraftID: a.DraftID, Evidence: []string{ref(sandbox.Approvals, a.line), ref(sandbox.Drafts, a.draft.line)},
			Detail: fmt.Sprintf("Draft %s was approved at tick %d but nothing was sent for %s by tick %d.",
				a.DraftID, a.at.tick, w, d)})
	}
	return out
}

func (f *facts) sentBy(w string, t int) bool {
	for _, e := range f.effectsOf(w) {
		if e.at.by(t) {
			return true
		}
	}
	return false
}

// stoppedBy reports whether a work item was legitimately stopped by tick d:
// escalated, rejected by a valid approval, orphaned by the loss of the whole
// fleet, or already abandoned before the approval at came.
func (f *facts) stoppedBy(w string, at stamp, d int) bool {
	for _, s := range f.look().escByTarget[w] {
		if s.at.by(d) {
			return true
		}
	}
	for _, a := range f.look().rejectsByWork[w] {
		if a.at.by(d) {
			return true
		}
	}
	if f.fleetGoneWithin(at, endOf(d)) {
		return true
	}
	for _, r := range f.resolutionsOf(w) {
		if r.Outcome == sandbox.OutcomeAbandoned && r.at.before(at) {
			return true
		}
	}
	return false
}

// checkRedeliveryDuplicate: a work item sent more than once while an
// approval line for its draft was redelivered.
func checkRedeliveryDuplicate(f *facts) []Violation {
	var out []Violation
	redeliveries := firstRedeliveries(f.approvals)
	for _, w := range f.resolvedWork() {
		effects := f.effectsOf(w)
		redelivered := redeliveries[w]
		if redelivered == nil {
			continue
		}
		f.judged("L2.redelivery-duplicate")
		if len(effects) < 2 {
			continue
		}
		out = append(out, Violation{Invariant: "L2.redelivery-duplicate", Level: 2, Tick: effects[1].at.tick,
			WorkID: w, DraftID: effects[1].DraftID,
			Evidence: []string{ref(sandbox.Approvals, redelivered.line), ref(sandbox.Outbox, effects[1].line)},
			Detail: fmt.Sprintf("Work item %s was sent %d times after approval %s was redelivered.",
				w, len(effects), redelivered.ApprovalID)})
	}
	return out
}

// firstRedeliveries is, per work item, the first approvals line (in file
// order) that is a later copy of a redelivered approval binding one of its
// drafts: built once, since a scan of every line per resolved work item
// grows with the square of the run.
func firstRedeliveries(approvals []*approval) map[string]*approval {
	first := map[string]*approval{}
	for _, a := range approvals {
		if a.copies > 1 && !a.first && a.draft != nil {
			if _, ok := first[a.draft.WorkID]; !ok {
				first[a.draft.WorkID] = a
			}
		}
	}
	return first
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// short abbreviates a hash for a detail sentence.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return `""`
	}
	return h
}

func shortAll(hs []string) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = short(h)
	}
	return out
}
