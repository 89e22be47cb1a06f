package examples

import (
	"slices"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// tracker keeps the reference's world across the writes and steps of one
// instance (D110). It reads each record once, as the file offsets it keeps
// move past it, and keeps the few lists that can still call for a write;
// the plan looks at nothing else. What it holds is what a derive from all
// the files would give, record for record: where a new record would change
// how an older one reads (a record that names one not written yet), the
// tracker says so and the world is derived again from every record.
//
// Only the reference keeps a tracker. A weak implementation derives its
// world afresh, so the one decision it answers differently never meets a
// shortcut taken for the reference's answers.
type tracker struct {
	built  bool
	resets int
	seed   uint64
	fleet  []string
	// read counts the records of each file already in the world.
	read struct{ inbox, signals, audit, drafts, outbox, approvals int }
	// stale is set when a record changes how an earlier one reads.
	stale bool
	// rebuilds counts the derives from every record, across rebuilds.
	rebuilds int

	// Records that name one not written yet: the key is what they name.
	undelivered map[string]bool // message ids admitted before delivery
	unadmitted  map[string]bool // work ids drafted for before admission
	unattached  map[string]bool // draft ids sent before they were declared
	undeclared  map[string]bool // draft ids approved before they were declared
	chosen      map[string]int  // approval id -> decisions it is

	// pos is a message's place among the distinct messages of its
	// conversation and of its sender, in inbox order: one map, as every
	// message has both.
	pos      map[string]msgPos
	convMsgs map[string][]string
	fromN    map[string]int

	// What can still call for a write, in file order.
	active    []*work                  // unresolved, or with a claim to stand down
	escalates []sandbox.SignalRecord   // escalations whose work may still be abandoned
	unbound   []sandbox.ApprovalRecord // approvals neither bound nor ignored yet
	undecided []*sandbox.Message       // first deliveries neither admitted nor declined

	touched []*work // works with new claims, settled again after the update
	changed []*work // works whose state.json entry may have changed
	state   stateCache

	// clean is, for each phase of the plan that looks at works one by
	// one, the work index below which no active work calls for a write in
	// that phase (D180), except those in recheck: the works changed since
	// the phase last looked at them, in file order. Anything that changes
	// what every work reads (a step's first read, a death, the fleet) sets
	// clean to zero.
	clean   [scanPhases]int
	recheck [scanPhases][]*work
	// dirty are the works changed since the last prune, the only ones
	// whose place among the active works can have changed.
	dirty []*work
	// dropped counts the works in active no longer active, left there
	// until enough of them make compacting the list worth its pass.
	dropped int
	// full asks the next prune to look at every list whole.
	full bool
	// looks counts the works the plan's scans looked at, for the tests
	// that hold a step's cost to its writes.
	looks int
}

// newStep forgets what the plan learnt during the last step: the harness
// may have written since.
func (t *tracker) newStep() {
	t.everyone()
	t.full = true
}

// touch notes a change to a work: every phase looks at it again.
func (t *tracker) touch(wk *work) {
	for p := range t.clean {
		if wk.idx >= t.clean[p] {
			continue
		}
		list := t.recheck[p]
		i, found := slices.BinarySearchFunc(list, wk.idx, func(a *work, idx int) int { return a.idx - idx })
		if !found {
			t.recheck[p] = slices.Insert(list, i, wk)
		}
	}
	t.dirty = append(t.dirty, wk)
}

// everyone notes a change to what every work reads.
func (t *tracker) everyone() {
	t.clean = [scanPhases]int{}
	for p := range t.recheck {
		t.recheck[p] = t.recheck[p][:0]
	}
}

// update brings the world up to the view: the records added since the
// last update, or all of them when the world cannot be extended.
func (t *tracker) update(w *world, v *view, c *caches, p policy, seed uint64) *world {
	if !t.built || t.stale || t.resets != c.resets() || t.seed != seed {
		t.rebuild(w, v, c, p, seed)
	}
	w.v = v
	if !slices.Equal(t.fleet, v.fleet) {
		t.fleet = slices.Clone(v.fleet)
		w.settleAlive()
		t.everyone()
	}
	t.ingest(w, v)
	if t.stale {
		t.rebuild(w, v, c, p, seed)
		w.v = v
		t.ingest(w, v)
	}
	// A record read from a line not yet ended is read again once it ends.
	t.stale = c.torn()
	t.prune(w)
	return w
}

func (t *tracker) rebuild(w *world, v *view, c *caches, p policy, seed uint64) {
	w.reset(v, p, seed)
	w.inc = t
	msgs := len(v.inbox)
	*t = tracker{built: true, rebuilds: t.rebuilds + 1, resets: c.resets(), seed: seed, fleet: slices.Clone(v.fleet),
		undelivered: map[string]bool{}, unadmitted: map[string]bool{}, unattached: map[string]bool{},
		undeclared: map[string]bool{}, chosen: map[string]int{},
		pos:      make(map[string]msgPos, msgs),
		convMsgs: make(map[string][]string, msgs), fromN: make(map[string]int, msgs),
		active: t.active[:0], touched: t.touched[:0], changed: t.changed[:0], dirty: t.dirty[:0], full: true,
		looks: t.looks}
	w.settleAlive()
}

// ingest reads the records past the offsets, file by file in the order a
// derive reads them.
func (t *tracker) ingest(w *world, v *view) {
	for ; t.read.inbox < len(v.inbox); t.read.inbox++ {
		t.message(w, v.inbox[t.read.inbox])
	}
	for ; t.read.signals < len(v.signals); t.read.signals++ {
		t.signal(w, v.signals[t.read.signals])
	}
	for ; t.read.audit < len(v.audit); t.read.audit++ {
		t.auditRecord(w, v.audit[t.read.audit])
	}
	for ; t.read.drafts < len(v.drafts); t.read.drafts++ {
		t.draft(w, v.drafts[t.read.drafts])
	}
	for ; t.read.outbox < len(v.outbox); t.read.outbox++ {
		t.effect(w, v.outbox[t.read.outbox])
	}
	for ; t.read.approvals < len(v.approvals); t.read.approvals++ {
		t.approval(w, v.approvals[t.read.approvals])
	}
	for _, wk := range t.touched {
		wk.resettle()
		if !wk.active && wk.needsPlan() {
			t.reactivate(wk)
		}
	}
	t.touched = t.touched[:0]
}

// msgPos is a message's place in its conversation and among its sender's
// messages, counting from 0.
type msgPos struct{ conv, from int }

func (t *tracker) message(w *world, m sandbox.Message) {
	if _, ok := w.messages[m.ID]; ok {
		return
	}
	p := w.msgs.add(m)
	w.messages[m.ID] = p
	w.order = append(w.order, m.ID)
	conv := t.convMsgs[m.ConversationID]
	t.pos[m.ID] = msgPos{conv: len(conv), from: t.fromN[m.From]}
	t.convMsgs[m.ConversationID] = append(conv, m.ID)
	t.fromN[m.From]++
	t.undecided = append(t.undecided, p)
	if t.undelivered[m.ID] {
		t.stale = true
	}
}

func (t *tracker) signal(w *world, s sandbox.SignalRecord) {
	switch s.SignalType {
	case sandbox.SignalAgentDeath:
		if !w.dead[s.Target] {
			w.dead[s.Target] = true
			w.settleAlive()
			t.everyone()
		}
	case sandbox.SignalOperatorEscalation:
		w.escalated[s.Target] = true
		t.escalates = append(t.escalates, s)
	}
}

func (t *tracker) auditRecord(w *world, r auditRec) {
	switch r.event {
	case sandbox.EventAdmission:
		w.decided[r.id] = true
		if _, ok := w.byID[r.workID]; ok {
			return
		}
		msg, delivered := w.messages[r.id]
		if !delivered {
			t.undelivered[r.id] = true
		}
		if t.unadmitted[r.workID] {
			t.stale = true
		}
		wk := w.newWork(r.workID, msg)
		wk.idx, wk.active, wk.listed = len(w.works), true, true
		w.works = append(w.works, wk)
		w.byID[wk.id] = wk
		t.active = append(t.active, wk)
		t.changed = append(t.changed, wk)
		t.touch(wk)
	case eventDeclined:
		w.declined[r.id] = true
	case sandbox.EventClaim:
		if wk, ok := w.byID[r.workID]; ok {
			wk.claims = append(wk.claims, claim{agent: r.agentID, outcome: r.outcome})
			t.touched = append(t.touched, wk)
			t.changed = append(t.changed, wk)
			t.touch(wk)
		}
	case sandbox.EventResolution:
		if wk, ok := w.byID[r.workID]; ok && !wk.resolved {
			wk.resolved, wk.outcome = true, r.outcome
			t.changed = append(t.changed, wk)
			t.touch(wk)
		}
	case w.p.ignoredEvent():
		id := r.id
		w.ignored[id] = true
		if t.chosen[id] > 0 {
			t.stale = true
		}
	case eventApprovalAccepted:
		id := r.id
		w.accepted[id] = true
		if wk, ok := w.draftWork[id]; ok {
			t.touch(wk)
		}
	}
}

func (t *tracker) draft(w *world, d sandbox.Draft) {
	if _, dup := w.drafts[d.DraftID]; dup {
		return
	}
	w.drafts[d.DraftID] = d
	if t.unattached[d.DraftID] || t.undeclared[d.DraftID] {
		t.stale = true
	}
	t.touchNamed(w, d.DraftID)
	wk, ok := w.byID[d.WorkID]
	if !ok {
		t.unadmitted[d.WorkID] = true
		return
	}
	wk.drafts = append(wk.drafts, d)
	w.draftWork[d.DraftID] = wk
	t.changed = append(t.changed, wk)
	t.touch(wk)
}

// touchNamed touches every work whose owner's draft a new draft id may
// be (draftID of the work and some agent): the draft phase skips a work
// once a draft of that name is declared, whichever work declared it.
func (t *tracker) touchNamed(w *world, draftID string) {
	rest, ok := strings.CutPrefix(draftID, "d-")
	if !ok {
		return
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] != '.' {
			continue
		}
		prefix := rest[:i]
		if wk, ok := w.byID["w-"+prefix]; ok {
			t.touch(wk)
		}
		if wk, ok := w.byID[prefix]; ok && !strings.HasPrefix(prefix, "w-") {
			t.touch(wk)
		}
	}
}

func (t *tracker) effect(w *world, e sandbox.Effect) {
	wk, ok := w.draftWork[e.DraftID]
	if !ok {
		t.unattached[e.DraftID] = true
		id := strings.TrimPrefix(e.EffectID, "e-")
		if wk, ok = w.draftWork[id]; !ok {
			t.unattached[id] = true
		}
	}
	if ok {
		wk.effects++
		t.touch(wk)
	}
}

func (t *tracker) approval(w *world, a sandbox.ApprovalRecord) {
	if w.ignored[a.ApprovalID] {
		return
	}
	d, ok := w.p.bind(w, a)
	if !ok {
		if _, declared := w.drafts[a.DraftID]; !declared {
			t.undeclared[a.DraftID] = true
		}
		t.unbound = append(t.unbound, a)
		return
	}
	if _, seen := w.decisions[d.DraftID]; seen {
		return
	}
	w.decisions[d.DraftID] = decision{approvalID: a.ApprovalID, decision: a.Decision}
	t.chosen[a.ApprovalID]++
	if wk, ok := w.draftWork[d.DraftID]; ok {
		t.changed = append(t.changed, wk)
		t.touch(wk)
	}
}

// prune drops from the lists what can no longer call for a write: a
// resolved work with no claim left to stand down, an escalation of a work
// that ended or went out, an approval recorded as ignored, a message
// decided. Each of these is for good: the facts that end them only grow.
//
// Between full prunes only the works changed since are looked at (D181):
// a work that can no longer call for a write is marked, and the list is
// compacted once the marked ones are half of it; a decided message is
// dropped from the front of the undecided ones, where the admissions
// phase took it. What is left in a list past its end yields no write,
// so the plan's answers are those of a list pruned whole every time.
func (t *tracker) prune(w *world) {
	full := t.full
	t.full = false
	if full {
		t.dropped = 0
		t.active = slices.DeleteFunc(t.active, func(wk *work) bool {
			wk.active = wk.needsPlan()
			wk.listed = wk.active
			return !wk.active
		})
	} else {
		t.drop()
	}
	t.dirty = t.dirty[:0]
	t.escalates = slices.DeleteFunc(t.escalates, func(s sandbox.SignalRecord) bool {
		wk, ok := w.byID[s.Target]
		return ok && (wk.resolved || wk.effects > 0)
	})
	t.unbound = slices.DeleteFunc(t.unbound, func(a sandbox.ApprovalRecord) bool { return w.ignored[a.ApprovalID] })
	gone := func(m *sandbox.Message) bool { return w.decided[m.ID] || w.declined[m.ID] }
	if full {
		t.undecided = slices.DeleteFunc(t.undecided, gone)
		return
	}
	n := 0
	for n < len(t.undecided) && gone(t.undecided[n]) {
		n++
	}
	t.undecided = t.undecided[n:]
}

// drop marks the changed works that can no longer call for a write, and
// compacts the active list once they are half of it.
func (t *tracker) drop() {
	for _, wk := range t.dirty {
		if wk.listed && wk.active && !wk.needsPlan() {
			wk.active = false
			t.dropped++
		}
	}
	if t.dropped == 0 || 2*t.dropped < len(t.active) {
		return
	}
	t.active = slices.DeleteFunc(t.active, func(wk *work) bool {
		wk.listed = wk.active
		return !wk.active
	})
	t.dropped = 0
}

// reactivate puts a work back among the active ones, in file order.
func (t *tracker) reactivate(wk *work) {
	wk.active = true
	if wk.listed {
		t.dropped--
		return
	}
	i, _ := slices.BinarySearchFunc(t.active, wk.idx, func(a *work, idx int) int { return a.idx - idx })
	t.active = slices.Insert(t.active, i, wk)
	wk.listed = true
}

// needsPlan reports whether the reference's plan may still write for the
// work: while it is unresolved, and after that while a claim other than
// the owner's is open.
func (wk *work) needsPlan() bool {
	if !wk.resolved {
		return true
	}
	for _, a := range wk.agents {
		if a != wk.owner && wk.last(a) == sandbox.ClaimClaimed {
			return true
		}
	}
	return false
}

// resettle derives the claim facts again from all the work's claims.
func (wk *work) resettle() {
	wk.agents, wk.outs, wk.owner, wk.lastWon = wk.agents[:0], wk.outs[:0], "", ""
	wk.settleClaims()
}

// settleAlive lists the fleet's agents not known dead, in fleet order.
func (w *world) settleAlive() {
	w.alive = w.alive[:0]
	for _, a := range w.v.fleet {
		if !w.dead[a] {
			w.alive = append(w.alive, a)
		}
	}
}
