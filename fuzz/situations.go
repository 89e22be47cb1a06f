package fuzz

import (
	"fmt"
	"strings"
	"sync"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Situations ties each invariant the level checker judges to the situations
// that could make an implementation violate it, each a coverage counter. A
// campaign that never reaches a situation cannot find the defects that live
// there, however many runs it plays; so the table is the campaign's
// specification, and a test holds that a default campaign reaches every
// counter it names.
type Situations struct {
	Invariant string   `json:"invariant"`
	Counters  []string `json:"counters"`
}

// situations is built at its first use, not at every start of amr.
var situations = sync.OnceValue(func() []Situations {
	return []Situations{
		{"L0.record-format", []string{CCrashMidTick, CDraftAfterRestart, CTornLogLine}},
		{"L0.harness-files", []string{CRulesChange, CPostureInFlight, CRedelivered}},
		{"L0.append-only", []string{CCrashMidTick, CCrashDeclareSend}},
		{"L0.draft-redeclared", []string{CRedraft, CCrashDeclareSend, CDraftAfterRestart}},
		{"L0.outbox-declared", []string{CCrashMidTick, CCrashSendRecord}},
		{"L0.draft-origin", []string{CDraftAfterRestart, CRedraft, CModelRecovered}},
		{"L0.reply", append([]string{CJumpAcrossBudget, CMessageInJump, CCrashDeclareSend}, edges("reply_budget")...)},
		{"L1.duplicate-effect", []string{CCrashSendRecord, CRedelivered, CDuplicateDelivery}},
		{"L1.duplicate-work", []string{CDuplicateDelivery, CSameBody, CSameBodyElsewhere}},
		{"L1.own-anchor", []string{CAnchorCollision, CTwoAnchors}},
		{"L1.follow-up-reply", append([]string{CLongFollowUp, CFollowUpPending}, edges("reply_budget")...)},
		{"L1.crash-resolution", append([]string{CCrashDeclareSend, CCrashApproved, CPiledUpWhileDown}, edges("crash_budget")...)},
		{"L1.resolution-conflict", []string{CCrashSendRecord, CRejected, CEscalationApproved, CRejectThenApprove, CApproveThenReject, CCrashDecisions}},
		{"L2.admission-unwarranted", append([]string{CPostureInFlight, CRulesChange, CDeclined, CThresholdAfterDu}, edges("posture_allowance", "rules_allowance")...)},
		{"L2.admission-missing", append([]string{CMessageInJump, CPostureInFlight, CRulesChange, CSameBody, CThresholdAfterDu}, edges("posture_allowance", "rules_allowance")...)},
		{"L2.admission-record", []string{CRulesChange, CCrashMidTick}},
		{"L2.approval-binding", []string{CForgedDelivered, CRedraft, CStaleApproval}},
		{"L2.forged-approval-acted", []string{CForgedDelivered}},
		{"L2.forged-approval-cited", []string{CForgedDelivered}},
		{"L2.approval-latency", append([]string{CLateApproval, CCrashApproved, CJumpAcrossBudget, CStaleApproval, CStaleStamp, CPiledUpWhileDown}, edges("approval_budget")...)},
		{"L2.redelivery-duplicate", []string{CRedelivered, CRedeliveredSent}},
		{"L2.send-after-rejection", []string{CRejected, CRejectThenApprove, CApproveThenReject, CCrashDecisions}},
		{"L3.double-handled", []string{CContestedClaim, CDeathPendingDraft}},
		{"L3.claim-winner", []string{CContestedClaim, CReassigned}},
		{"L3.stand-down-record", []string{CContestedClaim, CDeathPendingDraft}},
		{"L3.claim-window", []string{CContestedClaim, CReassigned}},
		{"L3.agent-death", []string{CDeathPendingDraft, CReassigned, CFleetGone}},
		{"L3.agent-death-unbound", []string{CDeathPendingDraft, CFleetGone}},
		{"L3.resolution-missing", []string{CRejected, CEscalationUnapprove, CFleetGone, CCrashDeclareSend, CCrashDecisions}},
		{"L3.state-consistency", append([]string{CDeathPendingDraft, CReassigned, CCrashMidTick}, edges("state_lag")...)},
		{"L3.state-schema", []string{CCrashMidTick, CFleetGone, CTornState}},
		{"L4.send-after-escalation", []string{CEscalationUnapprove, CEscalationApproved}},
		{"L4.draft-after-escalation", []string{CEscalationUnapprove}},
		{"L4.escalation-outcome", []string{CEscalationResolved, CEscalationApproved}},
		{"L4.escalation-resolution", []string{CEscalationUnapprove, CEscalationResolved, CPiledUpWhileDown, CStaleStamp}},
		{"L5.distinct-work", []string{CSameSubject, CDuplicateDelivery, CSameBody, CSameBodyElsewhere}},
		{"L5.conversation-identity", []string{CSameSubject, CAnchorCollision, CSameBodyElsewhere}},
		{"L5.escalated-send", []string{CEscalationUnapprove, CEscalationApproved}},
		{"L5.approved-send", append([]string{CSameSubject, CJumpAcrossBudget}, edges("reply_budget")...)},
		{"L5.escalation-resolution", []string{CEscalationUnapprove, CSameSubject}},
		{"L6.post-approval-send", []string{CEscalationApproved, CEscalationSameTick}},
		{"L6.post-approval-abandon", []string{CEscalationApproved, CEscalationSameTick}},
	}
})

// edges lists the three edge counters of each budget.
func edges(budgets ...string) []string {
	var out []string
	for _, b := range budgets {
		for _, s := range edgeSides {
			out = append(out, EdgeCounter(b, s.name))
		}
	}
	return out
}

// SituationTable returns, for every invariant of checker.Invariants() in
// its order, the counters that read its situations.
func SituationTable() []Situations {
	out := make([]Situations, len(situations()))
	for i, s := range situations() {
		out[i] = Situations{Invariant: s.Invariant, Counters: append([]string(nil), s.Counters...)}
	}
	return out
}

// SituationMarkdown renders the table as docs/fuzz.md holds it.
func SituationMarkdown() string {
	summary := map[string]string{}
	for _, c := range counters() {
		summary[c.Name] = c.Summary
	}
	var b strings.Builder
	b.WriteString("| invariant | situations (coverage counters) |\n|---|---|\n")
	for _, s := range situations() {
		names := make([]string, len(s.Counters))
		for i, c := range s.Counters {
			names[i] = "`" + c + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Invariant, strings.Join(names, ", "))
	}
	return b.String()
}

// checkSituations reports what keeps the table from covering the checker's
// catalogue: an invariant without a row or a counter, a row for no
// invariant, a counter that is not in the catalogue of counters.
func checkSituations() []string {
	var problems []string
	rows := map[string]bool{}
	for _, s := range situations() {
		rows[s.Invariant] = true
		if _, ok := checker.Lookup(s.Invariant); !ok {
			problems = append(problems, "a row for "+s.Invariant+", which is no invariant")
		}
		if len(s.Counters) == 0 {
			problems = append(problems, s.Invariant+" has no situation")
		}
		for _, c := range s.Counters {
			if !knownCounter(c) {
				problems = append(problems, s.Invariant+" names "+c+", which is no counter")
			}
		}
	}
	for _, inv := range checker.Invariants() {
		if !rows[inv.ID] {
			problems = append(problems, inv.ID+" has no row")
		}
	}
	return problems
}

func knownCounter(name string) bool {
	for _, c := range counters() {
		if c.Name == name {
			return true
		}
	}
	return false
}

// threadPending reports whether an earlier work item of the conversation
// had neither a send nor a resolution at the moment.
func (o *observer) threadPending(at progress, conv string) bool {
	for _, w := range o.pendingWork(at, nil) {
		if m, ok := o.b.Message(w.msg); ok && m.ConversationID == conv && !w.sent && !w.resolved {
			return true
		}
	}
	return false
}

// redelivered marks a redelivery landing after the send of the work item
// whose draft the approval line names.
func (o *observer) redelivered(r sandbox.LogRecord, at progress) {
	draft := ""
	for _, l := range o.approvals {
		if l.Rec.ApprovalID == r.ID {
			draft = l.Rec.DraftID
			break
		}
	}
	for _, w := range o.pendingWork(at, nil) {
		if _, ok := w.hash(draft); ok && w.sent {
			o.seen.mark(CRedeliveredSent)
		}
	}
}

// signalMore reads the situations of a signal beyond signal's: an
// escalation of finished work or one at its approval's tick, and the loss of
// the whole fleet.
func (o *observer) signalMore(r sandbox.LogRecord, at progress, dead map[string]bool) {
	switch r.SignalType {
	case scenarios.OperatorEscalation:
		for _, w := range o.pendingWork(at, nil) {
			if w.id != r.Target {
				continue
			}
			if w.sent || w.resolved {
				o.seen.mark(CEscalationResolved)
			} else if o.approvedAt(w, at.approvals, r.Tick) {
				o.seen.mark(CEscalationSameTick)
			}
		}
	case scenarios.AgentDeath:
		dead[r.Target] = true
		if len(o.b.Fleet) == 0 {
			return
		}
		for _, a := range o.b.Fleet {
			if !dead[a] {
				return
			}
		}
		o.seen.mark(CFleetGone)
	}
}

// approvedAt reports whether one of the first n approval lines, decided at
// tick, approves a declared draft of the work item with its exact hash.
func (o *observer) approvedAt(w *workView, n, tick int) bool {
	for _, l := range o.approvals {
		if l.N > n {
			break
		}
		a := l.Rec
		if h, ok := w.hash(a.DraftID); ok && h == a.ContentHash && a.Decision == scenarios.DecisionApprove && a.DecidedAt == tick {
			return true
		}
	}
	return false
}

// wholeMore reads the new situations that need only the final files.
func (o *observer) wholeMore() {
	o.sameBodies()
	drafts := map[string]map[string]bool{}
	for _, l := range o.drafts {
		d := l.Rec
		if drafts[d.WorkID] == nil {
			drafts[d.WorkID] = map[string]bool{}
		}
		drafts[d.WorkID][d.DraftID] = true
		if len(drafts[d.WorkID]) >= 2 {
			o.seen.mark(CRedraft)
		}
	}
	admitted := map[string]bool{}
	won := map[string]string{}
	for _, l := range o.audit {
		r := l.Rec
		switch {
		case r.Event == sandbox.EventAdmission:
			admitted[r.MessageID] = true
		case r.Event == sandbox.EventClaim && r.Outcome == sandbox.ClaimWon:
			if prev, ok := won[r.WorkID]; ok && prev != r.AgentID {
				o.seen.mark(CReassigned)
			}
			won[r.WorkID] = r.AgentID
		}
	}
	for _, l := range o.inbox {
		m := l.Rec
		if !admitted[m.ID] {
			o.seen.mark(CDeclined)
		}
		named := 0
		if len(o.b.Model.Anchors) >= 2 {
			text := m.Subject + "\n" + m.Body
			for _, a := range o.b.Model.Anchors {
				if a != "" && strings.Contains(text, a) {
					named++
				}
			}
		}
		if named >= 2 {
			o.seen.mark(CTwoAnchors)
		}
	}
}
