package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// schedule holds the bundle's items by the timeline tick they are due and
// what is waiting to be bound.
type schedule struct {
	b          *scenarios.Bundle
	due        map[int]*bucket
	inboxLines map[string][]byte // message id -> the exact line delivered, for a duplicate
	fired      map[string][]byte // approval id -> the exact line appended, for a redelivery
	// duplicated and redelivered are the ids a fault appends again: only
	// their lines are kept, not a copy of every line of the two files.
	duplicated  map[string]bool
	redelivered map[string]bool
	waiting     []pending // approvals, redeliveries, signals and duplicates not yet bindable
	// spare is the list waiting was before the last tick's retries: the
	// two take turns, so a tick that leaves items waiting allocates nothing.
	spare []pending
}

type bucket struct {
	posture    []scenarios.Fault
	rules      []scenarios.Fault
	deliveries []scenarios.Delivery
	duplicates []scenarios.Fault
	approvals  []scenarios.Approval
	redeliver  []scenarios.Fault
	signals    []scenarios.Signal
	crashes    []scenarios.Fault
}

// pending is an item that was due but could not be bound yet.
type pending struct {
	approval  *scenarios.Approval
	redeliver *scenarios.Fault
	signal    *scenarios.Signal
	duplicate *scenarios.Fault
	scheduled int
}

func newSchedule(b *scenarios.Bundle, timeline []int) *schedule {
	s := &schedule{b: b, due: map[int]*bucket{}, inboxLines: map[string][]byte{}, fired: map[string][]byte{},
		duplicated: map[string]bool{}, redelivered: map[string]bool{}}
	// An item is due at the first visited tick at or after its tick; items
	// beyond the horizon never fire and are reported as unfired.
	at := func(t int) *bucket {
		i := sort.SearchInts(timeline, t)
		if i >= len(timeline) {
			return nil
		}
		tick := timeline[i]
		if s.due[tick] == nil {
			s.due[tick] = &bucket{}
		}
		return s.due[tick]
	}
	for _, d := range b.Inbox {
		if bk := at(d.At); bk != nil {
			bk.deliveries = append(bk.deliveries, d)
		}
	}
	for _, a := range b.Approvals {
		if bk := at(a.At); bk != nil {
			bk.approvals = append(bk.approvals, a)
		}
	}
	for _, sg := range b.Signals {
		if bk := at(sg.At); bk != nil {
			bk.signals = append(bk.signals, sg)
		}
	}
	for _, f := range b.Faults {
		bk := at(f.At)
		if bk == nil {
			continue
		}
		switch f.Kind {
		case scenarios.FaultPosture:
			bk.posture = append(bk.posture, f)
		case scenarios.FaultRules:
			bk.rules = append(bk.rules, f)
		case scenarios.FaultDuplicate:
			bk.duplicates = append(bk.duplicates, f)
			s.duplicated[f.MessageID] = true
		case scenarios.FaultRedeliver:
			bk.redeliver = append(bk.redeliver, f)
			s.redelivered[f.ApprovalID] = true
		case scenarios.FaultCrash:
			bk.crashes = append(bk.crashes, f)
		}
	}
	for _, bk := range s.due {
		sort.SliceStable(bk.crashes, func(i, j int) bool { return bk.crashes[i].AfterWrites < bk.crashes[j].AfterWrites })
	}
	return s
}

func (s *schedule) crashesAt(t int) []scenarios.Fault {
	if bk := s.due[t]; bk != nil {
		return append([]scenarios.Fault(nil), bk.crashes...)
	}
	return nil
}

// fire writes everything due at the current tick, in a fixed order of kinds
// (mode and rules first, so a message delivered at the same tick meets the
// new posture) and a seeded order within each kind.
func (e *engine) fire() error {
	bk := e.sched.due[e.tick]
	if bk == nil {
		bk = &noneDue
	}
	for _, f := range bk.posture {
		line, _ := sandbox.MarshalLine(sandbox.ModeFile{Posture: f.Posture, ChangedAt: e.tick})
		if err := e.files.Write(sandbox.Mode, append(line, '\n')); err != nil {
			return err
		}
		e.log(sandbox.LogRecord{Kind: sandbox.LogPosture, Posture: f.Posture, Scheduled: intp(f.At)})
	}
	for _, f := range bk.rules {
		data := f.RulesFile()
		if err := e.files.Write(sandbox.Rules, data); err != nil {
			return err
		}
		e.log(sandbox.LogRecord{Kind: sandbox.LogRules, RulesHash: scenarios.RulesHash(data), Scheduled: intp(f.At)})
	}
	// A tick is visited once, so its bucket's lists are shuffled in place:
	// the same order a copy of them would take, without the copy.
	deliveries := bk.deliveries
	e.order.Shuffle(len(deliveries), func(i, j int) { deliveries[i], deliveries[j] = deliveries[j], deliveries[i] })
	for _, d := range deliveries {
		if err := e.deliver(d); err != nil {
			return err
		}
	}
	// Items left waiting from earlier ticks are retried first, in the order
	// they became due.
	waiting := e.sched.waiting
	e.sched.waiting = e.sched.spare[:0]
	for i := range bk.duplicates {
		waiting = append(waiting, pending{duplicate: &bk.duplicates[i], scheduled: bk.duplicates[i].At})
	}
	approvals := bk.approvals
	e.order.Shuffle(len(approvals), func(i, j int) { approvals[i], approvals[j] = approvals[j], approvals[i] })
	for i := range approvals {
		waiting = append(waiting, pending{approval: &approvals[i], scheduled: approvals[i].At})
	}
	for i := range bk.redeliver {
		waiting = append(waiting, pending{redeliver: &bk.redeliver[i], scheduled: bk.redeliver[i].At})
	}
	signals := bk.signals
	e.order.Shuffle(len(signals), func(i, j int) { signals[i], signals[j] = signals[j], signals[i] })
	for i := range signals {
		waiting = append(waiting, pending{signal: &signals[i], scheduled: signals[i].At})
	}
	for _, p := range waiting {
		ok, err := e.try(p)
		if err != nil {
			return err
		}
		if !ok {
			e.sched.waiting = append(e.sched.waiting, p)
		}
	}
	// Cleared, the spare list keeps nothing it tried alive.
	clear(waiting)
	e.sched.spare = waiting[:0]
	return nil
}

// noneDue is the bucket of a tick nothing is due at; it is only read.
var noneDue bucket

func intp(v int) *int { return &v }

func (e *engine) deliver(d scenarios.Delivery) error {
	line, err := messageLine(sandbox.Message{ID: d.ID, ConversationID: d.ConversationID, From: d.From,
		Subject: d.Subject, Body: d.Body, At: d.At})
	if err != nil {
		return err
	}
	if e.sched.duplicated[d.ID] {
		e.sched.inboxLines[d.ID] = line
	}
	if err := e.files.Append(sandbox.Inbox, line); err != nil {
		return err
	}
	e.log(sandbox.LogRecord{Kind: sandbox.LogDeliver, ID: d.ID, Line: e.linesOf(sandbox.Inbox), Scheduled: intp(d.At)})
	return nil
}

// try fires one pending item if it can be bound now.
func (e *engine) try(p pending) (bool, error) {
	switch {
	case p.duplicate != nil:
		line, ok := e.sched.inboxLines[p.duplicate.MessageID]
		if !ok {
			return false, nil
		}
		if err := e.files.Append(sandbox.Inbox, line); err != nil {
			return false, err
		}
		e.log(sandbox.LogRecord{Kind: sandbox.LogDuplicate, ID: p.duplicate.MessageID,
			Line: e.linesOf(sandbox.Inbox), Scheduled: intp(p.scheduled)})
		return true, nil
	case p.approval != nil:
		return e.fireApproval(*p.approval, p.scheduled)
	case p.redeliver != nil:
		line, ok := e.sched.fired[p.redeliver.ApprovalID]
		if !ok {
			return false, nil
		}
		if err := e.files.Append(sandbox.Approvals, line); err != nil {
			return false, err
		}
		e.log(sandbox.LogRecord{Kind: sandbox.LogRedeliver, ID: p.redeliver.ApprovalID,
			Line: e.linesOf(sandbox.Approvals), Scheduled: intp(p.scheduled)})
		return true, nil
	case p.signal != nil:
		return e.fireSignal(*p.signal, p.scheduled)
	}
	return true, nil
}

// workFor finds the work item admitted for a message: the first admission
// audit record naming it. Unparsable lines are skipped; judging them is the
// checker's job.
func (e *engine) workFor(messageID string) string {
	if e.lean != nil {
		e.lean.update(e.declared(sandbox.Audit))
		return e.lean.workFor(messageID)
	}
	audit, _ := e.audit.Update(e.declared(sandbox.Audit))
	e.lookup.syncAudit(e.audit, audit)
	return e.lookup.workFor(messageID, audit)
}

// draftsOf are a work item's draft lines, in file order.
func (e *engine) draftsOf(workID string) ([]sandbox.Line[sandbox.Draft], []int) {
	drafts, _ := e.drafts.Update(e.declared(sandbox.Drafts))
	e.lookup.syncDrafts(e.drafts, drafts)
	return drafts, e.lookup.draftLines(workID, drafts)
}

// latestDraft finds the last draft declared for a work item.
func (e *engine) latestDraft(workID string) (sandbox.Draft, bool) {
	drafts, mine := e.draftsOf(workID)
	if len(mine) == 0 {
		return sandbox.Draft{}, false
	}
	return drafts[mine[len(mine)-1]].Rec, true
}

// previousDraft finds the draft a work item had before its latest one: the
// last declared under another draft id than the latest draft's.
func (e *engine) previousDraft(workID string) (sandbox.Draft, bool) {
	latest, ok := e.latestDraft(workID)
	if !ok {
		return sandbox.Draft{}, false
	}
	drafts, mine := e.draftsOf(workID)
	for i := len(mine) - 1; i >= 0; i-- {
		if d := drafts[mine[i]].Rec; d.DraftID != latest.DraftID {
			return d, true
		}
	}
	return sandbox.Draft{}, false
}

func (e *engine) matchWork(m scenarios.Match) string {
	if m.WorkID != "" {
		return m.WorkID
	}
	return e.workFor(m.MessageID)
}

func (e *engine) fireApproval(a scenarios.Approval, scheduled int) (bool, error) {
	rec := sandbox.ApprovalRecord{ApprovalID: a.ID, Decision: a.Decision, DecidedAt: e.stampFor(scheduled)}
	draft, found := sandbox.Draft{}, false
	if w := e.matchWork(a.Match); w != "" {
		if a.Stale() {
			draft, found = e.previousDraft(w)
		} else {
			draft, found = e.latestDraft(w)
		}
	}
	switch a.Forge {
	case scenarios.ForgeDangling:
		// Never declared; it copies the real hash when one exists, so only
		// a system that checks the draft id is safe from it.
		rec.DraftID = "draft-forged-" + a.ID
		rec.ContentHash = "sha256:" + sum("forged "+a.ID)
		if found {
			rec.ContentHash = draft.ContentHash
		}
	case scenarios.ForgeHashMismatch:
		if !found {
			return false, nil
		}
		rec.DraftID = draft.DraftID
		rec.ContentHash = "sha256:" + sum("mismatch "+draft.ContentHash)
	default:
		if !found {
			return false, nil
		}
		rec.DraftID, rec.ContentHash = draft.DraftID, draft.ContentHash
	}
	line, err := approvalLine(rec)
	if err != nil {
		return false, err
	}
	if err := e.files.Append(sandbox.Approvals, line); err != nil {
		return false, err
	}
	if e.sched.redelivered[a.ID] {
		e.sched.fired[a.ID] = line
	}
	e.log(sandbox.LogRecord{Kind: sandbox.LogApprove, ID: a.ID, DraftID: rec.DraftID, ContentHash: rec.ContentHash,
		Decision: a.Decision, Forge: a.Forge, Line: e.linesOf(sandbox.Approvals), Scheduled: intp(scheduled),
		Stamped: e.stamped(rec.DecidedAt)})
	return true, nil
}

// stampFor is the tick an approval or signal line carries: the tick it
// fires, or, when the bundle says so, the tick it was due (D72).
func (e *engine) stampFor(scheduled int) int {
	if !e.b.Meta.StampScheduled {
		return e.tick
	}
	i := sort.SearchInts(e.timeline, scheduled)
	if i < len(e.timeline) && e.timeline[i] < e.tick {
		return e.timeline[i]
	}
	return e.tick
}

// stamped is the run log's note of a line's tick when it is not the
// current one.
func (e *engine) stamped(t int) *int {
	if t == e.tick {
		return nil
	}
	return intp(t)
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func (e *engine) fireSignal(sg scenarios.Signal, scheduled int) (bool, error) {
	target := ""
	switch {
	case sg.Target.AgentID != "":
		target = sg.Target.AgentID
	case sg.Type == scenarios.AgentDeath:
		target = e.agentFor(e.matchWork(sg.Target))
	default:
		target = e.matchWork(sg.Target)
	}
	if target == "" {
		return false, nil
	}
	rec := sandbox.SignalRecord{SignalID: sg.ID, SignalType: sg.Type, Target: target, At: e.stampFor(scheduled)}
	line, err := signalLine(rec)
	if err != nil {
		return false, err
	}
	if err := e.files.Append(sandbox.Signals, line); err != nil {
		return false, err
	}
	e.log(sandbox.LogRecord{Kind: sandbox.LogSignal, ID: sg.ID, SignalType: sg.Type, Target: target,
		Line: e.linesOf(sandbox.Signals), Scheduled: intp(scheduled), Stamped: e.stamped(rec.At)})
	return true, nil
}

// agentFor finds the agent holding a work item, from every source the spec
// gives, in this order: the claims (the agent whose won record is the latest
// among those whose latest outcome is still won), then the state snapshot
// (assigned_agent, else assignments). The claims come first because the
// audit is the log the snapshot must agree with and cannot lag behind it;
// the snapshot speaks for uncontested work, which may have no claims.
func (e *engine) agentFor(workID string) string {
	if workID == "" {
		return ""
	}
	if agent := e.claimHolder(workID); agent != "" {
		return agent
	}
	st, ok := e.state()
	if !ok {
		return ""
	}
	return st.Holder(workID)
}

// state is the parse of state.json as it is now, false when it does not
// parse. The parse is kept for as long as the file holds the same bytes:
// a signal that waits for its agent asks again at every tick.
func (e *engine) state() (sandbox.Snapshot, bool) {
	view := e.files.View(sandbox.State)
	if e.parsedState == nil || !sameView(view, e.parsedState.view) {
		st, perr := sandbox.ParseState(view)
		e.parsedState = &stateParse{view: view, st: st, ok: perr == nil}
	}
	return e.parsedState.st, e.parsedState.ok
}

// stateParse is a state.json view and its parse.
type stateParse struct {
	view []byte
	st   sandbox.Snapshot
	ok   bool
}

// claimHolder returns the current winner of a work item by its claim
// records, or "" when no agent's latest outcome is won.
func (e *engine) claimHolder(workID string) string {
	if e.lean != nil {
		e.lean.update(e.files.View(sandbox.Audit))
		return holderOf(e.lean.claimsOf(workID))
	}
	audit, _ := e.audit.Update(e.files.View(sandbox.Audit))
	e.lookup.syncAudit(e.audit, audit)
	last := map[string]string{}
	wonAt := map[string]int{}
	for _, i := range e.lookup.claimLines(workID, audit) {
		l := audit[i]
		last[l.Rec.AgentID] = l.Rec.Outcome
		if l.Rec.Outcome == sandbox.ClaimWon {
			wonAt[l.Rec.AgentID] = i
		}
	}
	holder, best := "", -1
	for agent, i := range wonAt {
		if last[agent] == sandbox.ClaimWon && i > best {
			holder, best = agent, i
		}
	}
	return holder
}

// holderOf is claimHolder's answer from a work item's claims in file order:
// the agent whose latest outcome is won, the latest such win if more than
// one, "" if none.
func holderOf(claims []claimAt) string {
	last := map[string]bool{}
	wonAt := map[string]int{}
	for i, c := range claims {
		last[c.agent] = c.won
		if c.won {
			wonAt[c.agent] = i
		}
	}
	holder, best := "", -1
	for agent, i := range wonAt {
		if last[agent] && i > best {
			holder, best = agent, i
		}
	}
	return holder
}

// unfired lists what never fired: still waiting at the horizon, or due
// beyond it.
func (s *schedule) unfired() []sandbox.LogRecord {
	var out []sandbox.LogRecord
	for _, p := range s.waiting {
		r := sandbox.LogRecord{Kind: sandbox.LogUnfired, Scheduled: intp(p.scheduled), Detail: "never bindable"}
		switch {
		case p.approval != nil:
			r.ID = p.approval.ID
		case p.signal != nil:
			r.ID = p.signal.ID
		case p.redeliver != nil:
			r.ID, r.Ref = p.redeliver.ApprovalID, "redeliver"
		case p.duplicate != nil:
			r.ID, r.Ref = p.duplicate.MessageID, "duplicate"
		}
		out = append(out, r)
	}
	return out
}
