package examples

import (
	"slices"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Free-form audit events the responder writes beside the required ones.
const (
	eventDeclined         = "declined"          // a message no rule admits; decided once
	eventApprovalIgnored  = "approval_ignored"  // an approval that binds no declared draft
	eventApprovalAccepted = "approval_accepted" // a valid approval taken up; the send follows
)

// Reasons written on claims and resolutions.
const (
	reasonContest      = "contest"
	reasonContestWon   = "contest_won"
	reasonSoleAgent    = "sole_agent"
	reasonReassigned   = "reassigned"
	reasonLostContest  = "lost_contest"
	reasonWorkResolved = "work_resolved"
	reasonAgentDeath   = "agent_death"
	reasonSent         = "sent"
	reasonRejected     = "rejected"
	reasonNoAgent      = "no_agent"
)

// claim is one claim record of a work item.
type claim struct {
	agent   string
	outcome string
}

// work is one work item as the files describe it.
type work struct {
	id       string
	msg      *sandbox.Message // the message it was admitted for (the first, if several); nil if never delivered
	drafts   []sandbox.Draft
	effects  int
	claims   []claim
	agents   []string // agents with claims, in order of first claim
	outs     []string // outs[i] is agents[i]'s latest claim outcome
	owner    string   // the latest winner whose latest outcome is still won
	lastWon  string   // the agent of the latest won record
	resolved bool
	outcome  string
	// idx is the work's place in world.works; active says it is among
	// the tracker's active works, listed that it is still in their list
	// (a work dropped from them stays listed until the list is compacted).
	idx    int
	active bool
	listed bool
}

// message is the message the work was admitted for, the zero message if it
// was never delivered.
func (w *work) message() sandbox.Message {
	if w.msg == nil {
		return sandbox.Message{}
	}
	return *w.msg
}

func (w *work) latestDraft() (sandbox.Draft, bool) {
	if len(w.drafts) == 0 {
		return sandbox.Draft{}, false
	}
	return w.drafts[len(w.drafts)-1], true
}

// decision is the first valid approval line for a draft.
type decision struct {
	approvalID string
	decision   string
}

// world is what the files say has happened, derived afresh after every
// write. Every slice is in file order, so everything built from it is
// deterministic.
type world struct {
	v         *view
	p         policy
	seed      uint64
	messages  map[string]*sandbox.Message // first delivery of each id, held in msgs
	msgs      msgStore
	order     []string // distinct message ids, inbox order
	dead      map[string]bool
	alive     []string
	works     []*work
	byID      map[string]*work
	decided   map[string]bool // message ids with an admission record
	declined  map[string]bool // message ids with a declined record
	drafts    map[string]sandbox.Draft
	draftWork map[string]*work
	decisions map[string]decision // draft id -> first valid decision
	escalated map[string]bool     // work ids named by OPERATOR_ESCALATION
	ignored   map[string]bool     // approval ids recorded as ignored
	accepted  map[string]bool     // draft ids with an approval_accepted record
	// spare holds every work item allocated so far, for the next derive.
	spare []*work
	// inc is the tracker that keeps this world across steps, or nil when
	// it is derived afresh after every write.
	inc *tracker
}

// derive makes w the world v describes. A world derived again reuses the
// storage of what it described before: the responder derives one after
// every write it makes.
func (w *world) derive(v *view, p policy, seed uint64) *world {
	w.reset(v, p, seed)
	w.readInbox()
	w.readSignals()
	w.readAudit()
	w.readDrafts()
	w.readOutbox()
	w.readApprovals()
	for _, wk := range w.works {
		wk.settleClaims()
	}
	p.derived(w)
	return w
}

func (w *world) reset(v *view, p policy, seed uint64) {
	w.v, w.p, w.seed, w.inc = v, p, seed, nil
	if w.messages == nil {
		// Sized for the files as they are: an instance that starts after
		// a crash reads them whole at once.
		msgs, drafts := len(v.inbox), len(v.drafts)
		w.messages, w.dead = make(map[string]*sandbox.Message, msgs), map[string]bool{}
		w.byID, w.decided, w.declined = make(map[string]*work, msgs), make(map[string]bool, msgs), map[string]bool{}
		w.drafts, w.draftWork = make(map[string]sandbox.Draft, drafts), make(map[string]*work, drafts)
		w.decisions, w.escalated = make(map[string]decision, drafts), map[string]bool{}
		w.ignored, w.accepted = map[string]bool{}, map[string]bool{}
	}
	for _, m := range []map[string]bool{w.dead, w.decided, w.declined, w.escalated, w.ignored, w.accepted} {
		clear(m)
	}
	clear(w.messages)
	w.msgs.reset()
	clear(w.byID)
	clear(w.drafts)
	clear(w.draftWork)
	clear(w.decisions)
	w.order, w.alive, w.works = w.order[:0], w.alive[:0], w.works[:0]
}

// newWork returns a work item, reusing one from an earlier derive.
func (w *world) newWork(id string, msg *sandbox.Message) *work {
	if len(w.works) < len(w.spare) {
		wk := w.spare[len(w.works)]
		*wk = work{id: id, msg: msg, drafts: wk.drafts[:0], claims: wk.claims[:0], agents: wk.agents[:0], outs: wk.outs[:0]}
		return wk
	}
	wk := &work{id: id, msg: msg}
	w.spare = append(w.spare, wk)
	return wk
}

func (w *world) readInbox() {
	for _, m := range w.v.inbox {
		if _, ok := w.messages[m.ID]; !ok {
			w.messages[m.ID] = w.msgs.add(m)
			w.order = append(w.order, m.ID)
		}
	}
}

func (w *world) readSignals() {
	for _, s := range w.v.signals {
		switch s.SignalType {
		case sandbox.SignalAgentDeath:
			w.dead[s.Target] = true
		case sandbox.SignalOperatorEscalation:
			w.escalated[s.Target] = true
		}
	}
	for _, a := range w.v.fleet {
		if !w.dead[a] {
			w.alive = append(w.alive, a)
		}
	}
}

func (w *world) readAudit() {
	for _, r := range w.v.audit {
		switch r.event {
		case sandbox.EventAdmission:
			w.decided[r.id] = true
			if _, ok := w.byID[r.workID]; ok {
				continue // a second message joined this work item
			}
			wk := w.newWork(r.workID, w.messages[r.id])
			w.works = append(w.works, wk)
			w.byID[wk.id] = wk
		case eventDeclined:
			w.declined[r.id] = true
		case sandbox.EventClaim:
			if wk, ok := w.byID[r.workID]; ok {
				wk.claims = append(wk.claims, claim{agent: r.agentID, outcome: r.outcome})
			}
		case sandbox.EventResolution:
			if wk, ok := w.byID[r.workID]; ok && !wk.resolved {
				wk.resolved, wk.outcome = true, r.outcome
			}
		case w.p.ignoredEvent():
			w.ignored[r.id] = true
		case eventApprovalAccepted:
			w.accepted[r.id] = true
		}
	}
}

func (w *world) readDrafts() {
	for _, d := range w.v.drafts {
		if _, dup := w.drafts[d.DraftID]; dup {
			continue
		}
		w.drafts[d.DraftID] = d
		if wk, ok := w.byID[d.WorkID]; ok {
			wk.drafts = append(wk.drafts, d)
			w.draftWork[d.DraftID] = wk
		}
	}
}

// readOutbox counts effects per work item. An effect names its work item
// through its draft, or through the draft named in its effect id.
func (w *world) readOutbox() {
	for _, e := range w.v.outbox {
		wk, ok := w.draftWork[e.DraftID]
		if !ok {
			wk, ok = w.draftWork[strings.TrimPrefix(e.EffectID, "e-")]
		}
		if ok {
			wk.effects++
		}
	}
}

func (w *world) readApprovals() {
	for _, a := range w.v.approvals {
		d, ok := w.p.bind(w, a)
		if !ok || w.ignored[a.ApprovalID] {
			continue
		}
		if _, seen := w.decisions[d.DraftID]; !seen || w.p.redecides() {
			w.decisions[d.DraftID] = decision{approvalID: a.ApprovalID, decision: a.Decision}
		}
	}
}

// knownDecision reports whether an approval line carries a decision the
// spec defines.
func knownDecision(a sandbox.ApprovalRecord) bool {
	return a.Decision == "approve" || a.Decision == "reject"
}

// forgery says why an approval line binds nothing, or "" when it binds.
func (w *world) forgery(a sandbox.ApprovalRecord) string {
	if _, ok := w.p.bind(w, a); ok {
		return ""
	}
	d, declared := w.drafts[a.DraftID]
	switch {
	case !declared:
		return "unknown_draft"
	case d.ContentHash != a.ContentHash:
		return "hash_mismatch"
	default:
		return "unknown_decision"
	}
}

// settleClaims derives each agent's latest outcome, the current owner and
// the latest winner from the claim records.
func (wk *work) settleClaims() {
	for _, c := range wk.claims {
		if i := slices.Index(wk.agents, c.agent); i >= 0 {
			wk.outs[i] = c.outcome
		} else {
			wk.agents, wk.outs = append(wk.agents, c.agent), append(wk.outs, c.outcome)
		}
		if c.outcome == sandbox.ClaimWon {
			wk.lastWon = c.agent
		}
	}
	// The owner is the agent whose latest won record comes last among
	// those still won: from the end, the first won record of such an agent.
	for i := len(wk.claims) - 1; i >= 0; i-- {
		if c := wk.claims[i]; c.outcome == sandbox.ClaimWon && wk.last(c.agent) == sandbox.ClaimWon {
			wk.owner = c.agent
			return
		}
	}
}

// last is an agent's latest claim outcome on the work, "" for none. A work
// has the claims of a few agents at most, so a list is shorter to keep and
// to look through than a map of its own for every work.
func (wk *work) last(agent string) string {
	for i, a := range wk.agents {
		if a == agent {
			return wk.outs[i]
		}
	}
	return ""
}

// approved reports whether a draft's first valid decision is approve.
func (w *world) approved(d sandbox.Draft) bool {
	dec, ok := w.decisions[d.DraftID]
	return ok && dec.decision == "approve"
}

// latestApproved reports whether a work item's latest draft is approved.
func (w *world) latestApproved(wk *work) bool {
	d, ok := wk.latestDraft()
	return ok && w.approved(d)
}

// ownerAlive reports whether the work item has a current owner that is
// alive: only such an owner drafts and sends.
func (w *world) ownerAlive(wk *work) bool {
	return wk.owner != "" && !w.dead[wk.owner]
}

// message is the first delivery of a message id.
func (w *world) message(id string) (sandbox.Message, bool) {
	if m, ok := w.messages[id]; ok {
		return *m, true
	}
	return sandbox.Message{}, false
}

// msgStore holds one copy of each first delivery for the world's map, its
// works and the tracker's undecided list to point at: they held one each,
// by value, 88 bytes apiece at every place. Its chunks never move, so a
// pointer stays good until the world is reset, when every holder of one
// is reset too.
type msgStore struct {
	chunks [][]sandbox.Message
	c, i   int // the next message goes to chunks[c][i]
}

// The first chunk holds msgFirstChunk messages and each next one twice its
// predecessor, up to msgChunk: most runs hold a few dozen messages, and a
// first chunk of the largest size was a fifth of the bytes a published
// run allocated.
const (
	msgFirstChunk = 16
	msgChunk      = 256
)

func (s *msgStore) add(m sandbox.Message) *sandbox.Message {
	if s.c < len(s.chunks) && s.i == len(s.chunks[s.c]) {
		s.c, s.i = s.c+1, 0
	}
	if s.c == len(s.chunks) {
		size := msgFirstChunk
		if s.c > 0 {
			size = min(2*len(s.chunks[s.c-1]), msgChunk)
		}
		s.chunks = append(s.chunks, make([]sandbox.Message, size))
	}
	p := &s.chunks[s.c][s.i]
	*p = m
	s.i++
	return p
}

// reset forgets every message, keeping the room for the next derive.
func (s *msgStore) reset() {
	for k := 0; k <= s.c && k < len(s.chunks); k++ {
		clear(s.chunks[k])
	}
	s.c, s.i = 0, 0
}

// thread returns the distinct messages of a conversation in inbox order, up
// to and including the message with id upTo.
func (w *world) thread(conversation, upTo string) []sandbox.Message {
	var out []sandbox.Message
	if m, ok := w.message(upTo); ok && w.inc != nil && m.ConversationID == conversation {
		for _, id := range w.inc.convMsgs[conversation][:w.inc.pos[upTo].conv+1] {
			m, _ := w.message(id)
			out = append(out, m)
		}
		return out
	}
	for _, id := range w.order {
		m, _ := w.message(id)
		if m.ConversationID == conversation {
			out = append(out, m)
		}
		if id == upTo {
			break
		}
	}
	return out
}

// The plan's phases that look at the works one by one, in file order.
const (
	scanSends = iota
	scanDeaths
	scanDecisions
	scanClaims
	scanDrafts
	scanPhases
)

// scan returns the first write each calls for over the works the plan
// looks at, in file order. With a tracker it looks, below the phase's
// clean mark, only at the works changed since it last looked at them, and
// then goes on from the mark (D180): the answer is the same, and a step
// that writes once for each of a tick's arrivals no longer looks at every
// open work after each write.
func (w *world) scan(phase int, each func(*work) *write) *write {
	t := w.inc
	if t == nil {
		for _, wk := range w.works {
			if next := each(wk); next != nil {
				return next
			}
		}
		return nil
	}
	// The list is read in place and emptied from its start, so that its
	// room is there for the next touches instead of given up a work at a
	// time (each looks at the world, it touches nothing).
	list := t.recheck[phase]
	for i, wk := range list {
		if wk.active && wk.idx < t.clean[phase] {
			t.looks++
			if next := each(wk); next != nil {
				t.recheck[phase] = list[i:]
				return next // still to look at again: the write changes it
			}
		}
	}
	t.recheck[phase] = list[:0]
	from, _ := slices.BinarySearchFunc(t.active, t.clean[phase], func(a *work, idx int) int { return a.idx - idx })
	for _, wk := range t.active[from:] {
		if !wk.active {
			continue // dropped, not yet compacted out of the list
		}
		t.looks++
		if next := each(wk); next != nil {
			t.clean[phase] = wk.idx
			return next
		}
	}
	t.clean[phase] = len(w.works)
	return nil
}

// escalationSignals are the signals the escalation phase looks at.
func (w *world) escalationSignals() []sandbox.SignalRecord {
	if w.inc != nil {
		return w.inc.escalates
	}
	return w.v.signals
}

// openApprovals are the approval lines the forgery phase looks at.
func (w *world) openApprovals() []sandbox.ApprovalRecord {
	if w.inc != nil {
		return w.inc.unbound
	}
	return w.v.approvals
}
