package fuzz

import (
	"bytes"
	"strings"
	"sync"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Counter is one "sometimes" assertion: a situation a campaign should reach
// now and then. Counters are read from what happened in a run (its run log
// and sandbox), never from what the generator meant to happen.
type Counter struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

// Counter names.
const (
	CForgedDelivered     = "forged_approval_delivered"
	CCrashDeclareSend    = "crash_between_declare_and_send"
	CEscalationApproved  = "escalation_after_approval_before_send"
	CRedelivered         = "approval_redelivered"
	CDeathPendingDraft   = "agent_death_with_pending_draft"
	CContestedClaim      = "contested_claim"
	CAnchorCollision     = "anchor_collision"
	CSameSubject         = "same_subject_pair"
	CPostureInFlight     = "posture_change_in_flight"
	CRulesChange         = "rules_change"
	CJumpAcrossBudget    = "tick_jump_across_budget"
	CCrashSendRecord     = "crash_between_send_and_record"
	CMessageInJump       = "message_inside_jump"
	CLateApproval        = "approval_100_ticks_late"
	CDuplicateDelivery   = "duplicate_delivery"
	CRejected            = "draft_rejected"
	CEscalationUnapprove = "escalation_before_approval"
	CLongFollowUp        = "follow_up_after_40_ticks"

	// Situations added so that every invariant has one (situations.go).
	CCrashMidTick       = "crash_mid_tick"
	CRedraft            = "work_redrafted"
	CDraftAfterRestart  = "draft_after_restart"
	CFollowUpPending    = "follow_up_while_pending"
	CCrashApproved      = "crash_with_approved_unsent"
	CDeclined           = "message_declined"
	CRedeliveredSent    = "approval_redelivered_after_send"
	CReassigned         = "work_reassigned"
	CFleetGone          = "whole_fleet_dead"
	CEscalationResolved = "escalation_of_resolved_work"
	CEscalationSameTick = "escalation_at_approval_tick"
	CTwoAnchors         = "message_names_two_anchors"

	// Situations the fault kinds of issue 17 reach on purpose.
	CStaleApproval     = "stale_approval_after_redraft"
	CRejectThenApprove = "reject_then_approve"
	CApproveThenReject = "approve_then_reject"
	CCrashDecisions    = "crash_between_decisions"
	CSameBody          = "same_sender_same_body"
	CSameBodyElsewhere = "same_sender_same_body_other_conversation"
)

// coreCounters open the catalogue; the deployment faults' and the edges'
// follow (counters).
var coreCounters = []Counter{
	{CForgedDelivered, "a forged approval (dangling draft id or mismatched hash) was written to approvals.jsonl"},
	{CCrashDeclareSend, "a crash landed while a work item had a declared draft, no send and no resolution"},
	{CEscalationApproved, "an escalation fired after a valid approval of the work item's draft and before any send"},
	{CRedelivered, "an approval line was delivered a second time"},
	{CDeathPendingDraft, "an AGENT_DEATH named the owner of a work item with a declared, unsent draft"},
	{CContestedClaim, "two agents wrote claimed records on one work item"},
	{CAnchorCollision, "one customer wrote in two conversations carrying different anchors"},
	{CSameSubject, "two admitted messages of different conversations had the same subject"},
	{CPostureInFlight, "the posture changed while a work item was admitted and unresolved"},
	{CRulesChange, "rules.json was rewritten during the run"},
	{CJumpAcrossBudget, "a tick jump happened while a reply or approval budget was running"},
	{CCrashSendRecord, "a crash landed after a send and before the work item's resolution record"},
	{CMessageInJump, "a message scheduled inside a tick jump arrived when the clock landed"},
	{CLateApproval, "an approval fired 100 or more ticks after its message arrived"},
	{CDuplicateDelivery, "a message was delivered a second time"},
	{CRejected, "a rejection bound a declared draft"},
	{CEscalationUnapprove, "an escalation fired for an admitted work item with no approval yet"},
	{CLongFollowUp, "a follow-up arrived 40 or more ticks after the previous message of its thread"},
	{CCrashMidTick, "a crash landed after some of a tick's writes, not at the tick's boundary"},
	{CRedraft, "a work item had a second draft declared"},
	{CDraftAfterRestart, "a draft was declared after a restart"},
	{CFollowUpPending, "a follow-up arrived while an earlier work item of its thread had no send and no resolution"},
	{CCrashApproved, "a crash landed while a work item had a valid approval of its draft and no send or resolution"},
	{CDeclined, "a delivered message was never admitted"},
	{CRedeliveredSent, "an approval line was delivered again after its work item's send"},
	{CReassigned, "a work item's won claim moved to another agent"},
	{CFleetGone, "AGENT_DEATH named every agent of the fleet"},
	{CEscalationResolved, "an escalation named a work item already sent or resolved"},
	{CEscalationSameTick, "an escalation fired at the tick of a valid approval of the work item's draft, before any send"},
	{CTwoAnchors, "a message named two of the fixture's anchors"},
	{CStaleApproval, "a genuine approval, with its real hash, of a work item's earlier draft arrived after a newer draft was declared"},
	{CRejectThenApprove, "a valid approve reached a work item after a valid reject of it"},
	{CApproveThenReject, "a valid reject reached a work item after a valid approve of it and before any send"},
	{CCrashDecisions, "a crash landed between two valid decisions on one work item"},
	{CSameBody, "two messages of one conversation had the same sender, subject and body"},
	{CSameBodyElsewhere, "two messages of different conversations had the same sender, subject and body"},
}

// counters is the catalogue in its stable order. It is put together at its
// first use: most starts of amr (a process instance's above all) never read
// a counter.
var counters = sync.OnceValue(func() []Counter {
	c := append(append([]Counter(nil), coreCounters...), deployCounters...)
	return append(c, edgeCounters()...)
})

// Counters lists the coverage counters in a stable order.
func Counters() []Counter { return append([]Counter(nil), counters()...) }

func counterIndex(name string) int {
	for i, c := range counters() {
		if c.Name == name {
			return i
		}
	}
	panic("fuzz: unknown counter " + name)
}

// Seen is the set of counters one run reached.
type Seen uint64

func (s *Seen) mark(name string) { *s |= 1 << counterIndex(name) }

// Has reports whether the run reached the counter.
func (s Seen) Has(name string) bool { return s&(1<<counterIndex(name)) != 0 }

// Coverage counts, per counter, the runs that reached it.
type Coverage struct {
	Runs int
	hits [64]int
}

// Add folds one run in.
func (c *Coverage) Add(s Seen) {
	c.Runs++
	for i := range counters() {
		if s&(1<<i) != 0 {
			c.hits[i]++
		}
	}
}

// Merge folds another campaign's counts in.
func (c *Coverage) Merge(o Coverage) {
	c.Runs += o.Runs
	for i := range c.hits {
		c.hits[i] += o.hits[i]
	}
}

// Hits returns how many runs reached a counter.
func (c Coverage) Hits(name string) int { return c.hits[counterIndex(name)] }

// Missing lists the counters no run reached, in catalogue order.
func (c Coverage) Missing() []string {
	var out []string
	for i, k := range counters() {
		if c.hits[i] == 0 {
			out = append(out, k.Name)
		}
	}
	return out
}

// CounterCount is one counter's tally, as --json prints it.
type CounterCount struct {
	Name string `json:"name"`
	Runs int    `json:"runs"`
}

// Counts lists every counter's tally in catalogue order.
func (c Coverage) Counts() []CounterCount {
	out := make([]CounterCount, len(counters()))
	for i, k := range counters() {
		out[i] = CounterCount{Name: k.Name, Runs: c.hits[i]}
	}
	return out
}

// Observe reads which counters a run reached from its sandbox files and
// run log. It never fails: lines that do not parse are skipped.
func Observe(b *scenarios.Bundle, files map[string][]byte, log []sandbox.LogRecord) Seen {
	return observeParsed(b, files, log, nil)
}

// observeParsed is Observe reading the files through the run's shared
// parse, so a judged run's files are not parsed again for its coverage.
func observeParsed(b *scenarios.Bundle, files map[string][]byte, log []sandbox.LogRecord, parsed *sandbox.Parsed) Seen {
	o := newObserver(b, files, parsed)
	o.walk(log)
	o.whole()
	o.deployment(files, log, parsed)
	return o.seen
}

type observer struct {
	b         *scenarios.Bundle
	seen      Seen
	inbox     []sandbox.Line[sandbox.Message]
	drafts    []sandbox.Line[sandbox.Draft]
	outbox    []sandbox.Line[sandbox.Effect]
	audit     []sandbox.Line[sandbox.AuditRecord]
	approvals []sandbox.Line[sandbox.ApprovalRecord]
	// pending is pendingWork's last derivation, as of pendingAt.
	pending   []*workView
	pendingAt progress
	// byID and draftWork are deriveWork's lookups, kept between calls.
	byID, draftWork map[string]*workView
}

func newObserver(b *scenarios.Bundle, files map[string][]byte, parsed *sandbox.Parsed) *observer {
	o := &observer{b: b}
	o.inbox, _ = parsed.Inbox(files[sandbox.Inbox])
	o.drafts, _ = parsed.Drafts(files[sandbox.Drafts])
	o.outbox, _ = parsed.Outbox(files[sandbox.Outbox])
	o.audit, _ = parsed.Audit(files[sandbox.Audit])
	o.approvals, _ = parsed.Approvals(files[sandbox.Approvals])
	return o
}

// progress is how far each file had been written at a moment of the run:
// line counts of the implementation's logs and of approvals.jsonl.
type progress struct {
	drafts, outbox, audit, approvals int
}

// walk replays the run log, looking at the sandbox as it was at each
// harness action.
func (o *observer) walk(log []sandbox.LogRecord) {
	var (
		at        progress // as of the last tick_end, plus approvals fired since
		consumed  int      // writes of the current tick a crash already accounted for
		visited   int      // tick_end records seen
		delivered = map[string]int{}
		lastIn    = map[string]int{} // conversation -> tick of its latest new message
		budgets   []int              // ordinals at which a reply or approval budget ends
		restarted bool
		dead      = map[string]bool{}
		edges     = newEdgeWatch()
		decisions = map[string][]decided{}
		crashes   int
	)
	for i, r := range log {
		switch r.Kind {
		case sandbox.LogTickEnd:
			if restarted && r.Lines[sandbox.Drafts] > at.drafts {
				o.seen.mark(CDraftAfterRestart)
			}
			at.drafts, at.outbox, at.audit = r.Lines[sandbox.Drafts], r.Lines[sandbox.Outbox], r.Lines[sandbox.Audit]
			consumed = 0
			visited++
		case sandbox.LogCrash:
			now := at
			switch {
			case r.Lines != nil:
				// A process driver counts the lines at the crash itself.
				now.drafts, now.outbox, now.audit = r.Lines[sandbox.Drafts], r.Lines[sandbox.Outbox], r.Lines[sandbox.Audit]
			case r.AfterWrites > 0:
				now, consumed = o.midTick(log[i:], at, consumed, r.Written)
			}
			if r.AfterWrites > 0 && now != at {
				o.seen.mark(CCrashMidTick)
			}
			o.crash(now)
			crashes++
			edges.crash(o, visited)
		case sandbox.LogRestart:
			restarted = true
		case sandbox.LogDeliver:
			if _, ok := delivered[r.ID]; ok {
				break
			}
			delivered[r.ID] = r.Tick
			edges.deliver(o, visited)
			if r.Scheduled != nil && *r.Scheduled < r.Tick {
				o.seen.mark(CMessageInJump)
			}
			if m, ok := o.b.Message(r.ID); ok {
				if prev, ok := lastIn[m.ConversationID]; ok && r.Tick-prev >= 40 {
					o.seen.mark(CLongFollowUp)
				}
				if _, ok := lastIn[m.ConversationID]; ok && o.threadPending(at, m.ConversationID) {
					o.seen.mark(CFollowUpPending)
				}
				lastIn[m.ConversationID] = r.Tick
			}
			budgets = append(budgets, visited+10)
		case sandbox.LogDuplicate:
			o.seen.mark(CDuplicateDelivery)
		case sandbox.LogApprove:
			at.approvals = max(at.approvals, r.Line)
			o.approve(r, delivered)
			o.decision(r, at, decisions, crashes)
			edges.approve(o, r, visited)
			if r.Forge == "" && r.Decision == scenarios.DecisionApprove {
				budgets = append(budgets, visited+5)
			}
		case sandbox.LogRedeliver:
			at.approvals = max(at.approvals, r.Line)
			o.seen.mark(CRedelivered)
			o.redelivered(r, at)
		case sandbox.LogSignal:
			o.signal(r, at)
			o.signalMore(r, at, dead)
			if r.SignalType == scenarios.AgentDeath {
				edges.death(visited)
			}
		case sandbox.LogPosture:
			edges.posture(visited)
			if len(o.pendingWork(at, func(w *workView) bool { return !w.sent && !w.resolved })) > 0 {
				o.seen.mark(CPostureInFlight)
			}
		case sandbox.LogRules:
			o.seen.mark(CRulesChange)
			edges.rules(visited)
		case sandbox.LogJump:
			// The jump follows the tick_end of the tick it leaves, whose
			// ordinal is visited-1.
			for _, end := range budgets {
				if end > visited-1 {
					o.seen.mark(CJumpAcrossBudget)
					break
				}
			}
		}
	}
}

// midTick places a crash after some of the current tick's writes: the
// writes are listed, in order, by the tick's tick_end record further on, and
// consumed of them came before an earlier crash of the same tick.
func (o *observer) midTick(rest []sandbox.LogRecord, at progress, consumed, written int) (progress, int) {
	var writes []string
	for _, r := range rest {
		if r.Kind == sandbox.LogTickEnd {
			writes = r.Writes
			break
		}
	}
	end := min(consumed+written, len(writes))
	for _, w := range writes[:end] {
		switch w {
		case sandbox.Drafts:
			at.drafts++
		case sandbox.Outbox:
			at.outbox++
		case sandbox.Audit:
			at.audit++
		}
	}
	return at, end
}

func (o *observer) crash(at progress) {
	for _, w := range o.pendingWork(at, nil) {
		switch {
		case w.resolved:
		case w.sent:
			o.seen.mark(CCrashSendRecord)
		case w.drafts > 0:
			o.seen.mark(CCrashDeclareSend)
			if o.approvedBy(w, at.approvals) {
				o.seen.mark(CCrashApproved)
			}
		}
	}
}

func (o *observer) approve(r sandbox.LogRecord, delivered map[string]int) {
	if r.Forge != "" {
		o.seen.mark(CForgedDelivered)
		return
	}
	if r.Decision == scenarios.DecisionReject {
		o.seen.mark(CRejected)
		return
	}
	a, ok := o.b.ApprovalByID(r.ID)
	if !ok {
		return
	}
	if t, ok := delivered[a.Match.MessageID]; ok && r.Tick-t >= 100 {
		o.seen.mark(CLateApproval)
	}
}

func (o *observer) signal(r sandbox.LogRecord, at progress) {
	switch r.SignalType {
	case scenarios.OperatorEscalation:
		for _, w := range o.pendingWork(at, nil) {
			if w.id != r.Target || w.sent || w.resolved {
				continue
			}
			if o.approvedBy(w, at.approvals) {
				o.seen.mark(CEscalationApproved)
			} else {
				o.seen.mark(CEscalationUnapprove)
			}
		}
	case scenarios.AgentDeath:
		for _, w := range o.pendingWork(at, nil) {
			if w.owner == r.Target && w.drafts > 0 && !w.sent && !w.resolved {
				o.seen.mark(CDeathPendingDraft)
			}
		}
	}
}

// workView is a work item as the first lines of the logs describe it.
type workView struct {
	id       string
	drafts   int
	hashes   []draftHash // its distinct draft ids, first declared first
	sent     bool
	resolved bool
	owner    string // agent of the latest won claim
	msg      string // the message its first admission record names
	latest   string // its latest draft id
}

// draftHash is a draft id and the content hash it was first declared with.
type draftHash struct{ id, hash string }

// hash is the content hash a draft id of the work item was first declared
// with.
func (w *workView) hash(draftID string) (string, bool) {
	for _, d := range w.hashes {
		if d.id == draftID {
			return d.hash, true
		}
	}
	return "", false
}

// pendingWork derives the admitted work items from the lines written by a
// moment, in admission order, keeping those keep accepts (all when nil).
func (o *observer) pendingWork(at progress, keep func(*workView) bool) []*workView {
	written := progress{drafts: at.drafts, outbox: at.outbox, audit: at.audit} // all it reads
	if o.pending == nil || o.pendingAt != written {
		o.pending, o.pendingAt = o.deriveWork(written), written
	}
	if keep == nil {
		return o.pending[:len(o.pending):len(o.pending)]
	}
	var out []*workView
	for _, w := range o.pending {
		if keep(w) {
			out = append(out, w)
		}
	}
	return out
}

// deriveWork builds the work items of pendingWork. The walk asks for the
// same moment once per harness action of a tick, so the last answer is
// kept; no caller changes a work item it is given. Each answer's items are
// its own (a caller may hold an earlier one); only the lookups are reused.
func (o *observer) deriveWork(at progress) []*workView {
	admissions := 0
	for _, l := range o.audit {
		if l.N > at.audit {
			break
		}
		if l.Rec.Event == sandbox.EventAdmission {
			admissions++
		}
	}
	views := make([]workView, 0, admissions)
	order := make([]*workView, 0, admissions)
	if o.byID == nil {
		o.byID, o.draftWork = map[string]*workView{}, map[string]*workView{}
	}
	byID, draftWork := o.byID, o.draftWork
	clear(byID)
	clear(draftWork)
	for _, l := range o.audit {
		if l.N > at.audit {
			break
		}
		r := l.Rec
		w := byID[r.WorkID]
		switch r.Event {
		case sandbox.EventAdmission:
			if w == nil {
				views = append(views, workView{id: r.WorkID, msg: r.MessageID})
				w = &views[len(views)-1]
				byID[r.WorkID] = w
				order = append(order, w)
			}
		case sandbox.EventClaim:
			if w != nil && r.Outcome == sandbox.ClaimWon {
				w.owner = r.AgentID
			}
		case sandbox.EventResolution:
			if w != nil {
				w.resolved = true
			}
		}
	}
	for _, l := range o.drafts {
		if l.N > at.drafts {
			break
		}
		if w := byID[l.Rec.WorkID]; w != nil {
			if _, dup := w.hash(l.Rec.DraftID); !dup {
				w.drafts++
				w.hashes = append(w.hashes, draftHash{l.Rec.DraftID, l.Rec.ContentHash})
			}
			w.latest = l.Rec.DraftID
			draftWork[l.Rec.DraftID] = w
		}
	}
	for _, l := range o.outbox {
		if l.N > at.outbox {
			break
		}
		if w := draftWork[l.Rec.DraftID]; w != nil {
			w.sent = true
		}
	}
	return order
}

// approvedBy reports whether one of the first n approval lines approves a
// declared draft of the work item with its exact hash.
func (o *observer) approvedBy(w *workView, n int) bool {
	for _, l := range o.approvals {
		if l.N > n {
			break
		}
		a := l.Rec
		if h, ok := w.hash(a.DraftID); ok && h == a.ContentHash && a.Decision == scenarios.DecisionApprove {
			return true
		}
	}
	return false
}

// whole reads the counters that need only the final files.
func (o *observer) whole() {
	o.contested()
	o.collision()
	o.sameSubject()
	o.wholeMore()
}

func (o *observer) contested() {
	claimed := map[string]map[string]bool{}
	for _, l := range o.audit {
		r := l.Rec
		if r.Event != sandbox.EventClaim || r.Outcome != sandbox.ClaimClaimed {
			continue
		}
		if claimed[r.WorkID] == nil {
			claimed[r.WorkID] = map[string]bool{}
		}
		claimed[r.WorkID][r.AgentID] = true
		if len(claimed[r.WorkID]) >= 2 {
			o.seen.mark(CContestedClaim)
			return
		}
	}
}

// collision: one sender, two conversations, different anchors (each
// conversation's anchor is the first of the fixture's anchors its messages
// name).
func (o *observer) collision() {
	if len(o.b.Model.Anchors) == 0 {
		return // no conversation names an anchor
	}
	text := map[string][]byte{} // a conversation's subjects and bodies, each line ended
	from := map[string]string{}
	var convs []string
	for _, l := range o.inbox {
		m := l.Rec
		if _, ok := from[m.ConversationID]; !ok {
			from[m.ConversationID] = m.From
			convs = append(convs, m.ConversationID)
		}
		t := append(text[m.ConversationID], m.Subject...)
		t = append(append(t, '\n'), m.Body...)
		text[m.ConversationID] = append(t, '\n')
	}
	anchorOf := func(conv string) string {
		for _, a := range o.b.Model.Anchors {
			if a != "" && bytes.Contains(text[conv], []byte(a)) {
				return a
			}
		}
		return ""
	}
	first := map[string]string{} // sender -> anchor of an earlier conversation
	for _, c := range convs {
		a := anchorOf(c)
		if a == "" {
			continue
		}
		if prev, ok := first[from[c]]; ok && prev != a {
			o.seen.mark(CAnchorCollision)
			return
		}
		first[from[c]] = a
	}
}

func (o *observer) sameSubject() {
	admitted := map[string]bool{}
	for _, l := range o.audit {
		if l.Rec.Event == sandbox.EventAdmission {
			admitted[l.Rec.MessageID] = true
		}
	}
	conv := map[string]string{} // normalized subject -> a conversation
	seen := map[string]bool{}
	for _, l := range o.inbox {
		m := l.Rec
		if !admitted[m.ID] || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		s := strings.ToLower(strings.TrimSpace(m.Subject))
		if c, ok := conv[s]; ok && c != m.ConversationID {
			o.seen.mark(CSameSubject)
			return
		}
		conv[s] = m.ConversationID
	}
}
