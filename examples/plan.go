package examples

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// plan returns the next write the files call for, or nil when there is
// none. The phases run in a fixed order, and the order is the safety
// argument: a send already in the outbox is recorded before anything else;
// signals are honoured before approvals, so an escalation or an agent death
// landing with an approval wins over it; an approval is taken up before new
// work is admitted; claims settle before anyone drafts.
func (r *responder) plan(w *world, env *sandbox.Env) (*write, error) {
	phases := []func(*world) *write{
		r.recordSends,
		r.escalations,
		r.agentDeaths,
		r.flushPending,
		r.forgeries,
		r.decisions,
		r.sendUnapproved,
		r.admissions,
		r.claims,
	}
	for _, phase := range phases {
		if next := phase(w); next != nil {
			return next, nil
		}
	}
	return r.draft(w, env)
}

// recordSends resolves as completed every work item whose reply is in the
// outbox: after a crash between the send and its record, this is all that
// is left to do.
func (r *responder) recordSends(w *world) *write {
	for _, wk := range w.works {
		if wk.resolved || w.stopped(wk) {
			continue
		}
		if r.defect == sendBeforeRecord {
			if !r.justSent[wk.id] {
				continue
			}
		} else if wk.effects == 0 {
			continue
		}
		line := w.resolution(wk, sandbox.OutcomeCompleted, reasonSent)
		if d, ok := wk.latestDraft(); ok && w.approved(d) {
			line.ApprovalID = w.decisions[d.DraftID].approvalID
		}
		return audit(line)
	}
	return nil
}

// escalations abandons every unfinished work item the operator took over,
// even one whose draft is approved but not yet sent.
func (r *responder) escalations(w *world) *write {
	if r.defect == ignoreEscalation || r.defect == silentAbandon {
		return nil
	}
	for _, s := range w.v.signals {
		if s.SignalType != sandbox.SignalOperatorEscalation {
			continue
		}
		wk, ok := w.byID[s.Target]
		if r.defect == escalateAll {
			wk, ok = w.anyUnfinished()
		}
		if !ok || wk.resolved || wk.effects > 0 {
			continue
		}
		if r.defect == escalateBeforeApprovalOnly && w.latestApproved(wk) {
			continue
		}
		line := w.resolution(wk, sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation)
		line.SignalID = s.SignalID
		return audit(line)
	}
	return nil
}

// agentDeaths stands down every dead agent's claim on unfinished work, then
// hands the work to another alive agent, or abandons it visibly when no
// agent is left.
func (r *responder) agentDeaths(w *world) *write {
	if r.defect == dropDeadAgentWork {
		return nil
	}
	for _, wk := range w.works {
		if wk.resolved || w.stopped(wk) {
			continue
		}
		if r.defect != noStandDown {
			for _, a := range wk.agents {
				if w.dead[a] && (wk.last[a] == sandbox.ClaimClaimed || wk.last[a] == sandbox.ClaimWon) {
					return w.claim(wk, a, sandbox.ClaimStoodDown, reasonAgentDeath)
				}
			}
		}
		if wk.lastWon == "" || w.ownerAlive(wk) {
			continue
		}
		if len(w.alive) == 0 {
			return w.resolve(wk, sandbox.OutcomeAbandoned, reasonNoAgent)
		}
		agent := w.alive[pick(w.seed, wk.id, "reassign", len(w.alive))]
		if r.defect == slowReclaim {
			if next := w.reclaimSlowly(wk, agent); next != nil {
				return next
			}
			continue
		}
		return w.claim(wk, agent, sandbox.ClaimWon, reasonReassigned)
	}
	return nil
}

// flushPending sends what weak-memory-pending accepted at an earlier tick.
// The queue lives only in memory.
func (r *responder) flushPending(w *world) *write {
	for len(r.pending) > 0 {
		p := r.pending[0]
		if p.tick >= w.v.tick {
			return nil
		}
		r.pending = r.pending[1:]
		wk, ok := w.byID[p.workID]
		if !ok || wk.resolved || wk.effects > 0 || !w.ownerAlive(wk) {
			continue
		}
		if d, ok := w.drafts[p.draftID]; ok {
			return r.send(w, wk, d)
		}
	}
	return nil
}

// forgeries records each approval line that binds no declared draft, once.
// The record is the decision: the line is never looked at again.
func (r *responder) forgeries(w *world) *write {
	for _, a := range w.v.approvals {
		if w.ignored[a.ApprovalID] {
			continue
		}
		if _, ok := w.bind(a); ok {
			continue
		}
		event := eventApprovalIgnored
		if r.defect == citeForged {
			event = eventApprovalReceived
		}
		return audit(approvalLine{Event: event, At: w.v.tick, ApprovalID: a.ApprovalID, DraftID: a.DraftID,
			Reason: w.forgery(a)})
	}
	return nil
}

// decisions acts on the first valid decision for each live work item's
// latest draft: a reject abandons it; an approve is recorded as accepted,
// then sent, once.
func (r *responder) decisions(w *world) *write {
	for _, wk := range w.works {
		if w.stopped(wk) || !w.ownerAlive(wk) {
			continue
		}
		d, ok := wk.latestDraft()
		if !ok {
			continue
		}
		dec, ok := w.decisions[d.DraftID]
		if !ok {
			continue
		}
		if r.defect == sendPerApproval && wk.outcome != sandbox.OutcomeAbandoned &&
			dec.decision == "approve" && wk.effects > 0 && wk.effects < w.approveLines(d) {
			return r.send(w, wk, d)
		}
		if wk.resolved {
			continue
		}
		if dec.decision == "reject" {
			line := w.resolution(wk, sandbox.OutcomeAbandoned, reasonRejected)
			line.ApprovalID = dec.approvalID
			return audit(line)
		}
		if r.defect == noSend || r.sent(wk) {
			continue
		}
		if !w.accepted[d.DraftID] {
			return r.accept(w, wk, d, dec)
		}
		if r.defect == memoryPending {
			continue // only the queue in memory sends
		}
		return r.send(w, wk, d)
	}
	return nil
}

// approveLines counts the approve lines that bind a draft, redeliveries
// included.
func (w *world) approveLines(d sandbox.Draft) int {
	n := 0
	for _, a := range w.v.approvals {
		if b, ok := w.bind(a); ok && b.DraftID == d.DraftID && a.Decision == "approve" && !w.ignored[a.ApprovalID] {
			n++
		}
	}
	return n
}

func (r *responder) accept(w *world, wk *work, d sandbox.Draft, dec decision) *write {
	next := audit(approvalLine{Event: eventApprovalAccepted, At: w.v.tick, ApprovalID: dec.approvalID,
		DraftID: d.DraftID, WorkID: wk.id})
	if r.defect == memoryPending {
		tick := w.v.tick
		next.done = func() {
			r.pending = append(r.pending, pendingSend{workID: wk.id, draftID: d.DraftID, tick: tick})
		}
	}
	return next
}

// sent reports whether a reply went out for an unfinished work item.
func (r *responder) sent(wk *work) bool {
	if r.defect == sendBeforeRecord {
		return r.justSent[wk.id]
	}
	return wk.effects > 0
}

func (r *responder) send(w *world, wk *work, d sandbox.Draft) *write {
	sentAs := d.DraftID
	if r.defect == undeclaredSend {
		sentAs = "reply-" + wk.id
	}
	next := w.effect(d.DraftID, sentAs)
	if r.defect == sendBeforeRecord {
		next.done = func() {
			if r.justSent == nil {
				r.justSent = map[string]bool{}
			}
			r.justSent[wk.id] = true
		}
	}
	return next
}

// sendUnapproved is weak-send-without-approval's shortcut: every latest
// draft goes out at once.
func (r *responder) sendUnapproved(w *world) *write {
	if r.defect != sendWithoutApproval {
		return nil
	}
	for _, wk := range w.works {
		if wk.resolved || wk.effects > 0 || !w.ownerAlive(wk) {
			continue
		}
		if d, ok := wk.latestDraft(); ok {
			return r.send(w, wk, d)
		}
	}
	return nil
}

// admissions decides each delivered message once, under the rules and
// posture in force now: an admission record for a new work item, or a
// declined record so the decision is never made again.
func (r *responder) admissions(w *world) *write {
	v := w.v
	if !v.rulesOK || !v.modeOK {
		return nil
	}
	seen := map[string]int{}
	for _, m := range v.inbox {
		occurrence := seen[m.ID]
		seen[m.ID]++
		if occurrence > 0 && r.defect != forkOnDuplicate {
			continue
		}
		if r.defect == jumpBlind && m.At < v.tick-1 {
			continue
		}
		if w.declined[m.ID] {
			continue
		}
		workID := r.workID(w, m, occurrence)
		if r.defect == forkOnDuplicate {
			if w.byID[workID] != nil {
				continue
			}
		} else if w.decided[m.ID] {
			continue
		}
		return r.admit(w, m, workID)
	}
	return nil
}

func (r *responder) admit(w *world, m sandbox.Message, workID string) *write {
	v := w.v
	hash := rulesHash(v.rulesRaw)
	ruleID, ok := admitted(v.rules, w.facts(m))
	if !ok {
		return audit(declinedLine{Event: eventDeclined, At: v.tick, MessageID: m.ID, RulesHash: hash,
			Posture: v.posture})
	}
	return audit(admissionLine{Event: sandbox.EventAdmission, At: v.tick, WorkID: workID, MessageID: m.ID,
		RulesHash: hash, RuleID: ruleID, Posture: v.posture})
}

// workID names the work item a message (its occurrence-th delivery) is
// admitted as: its own, "w-" and the message id.
func (r *responder) workID(w *world, m sandbox.Message, occurrence int) string {
	switch {
	case r.defect == forkOnDuplicate && occurrence > 0:
		return fmt.Sprintf("w-%s-dup%d", m.ID, occurrence)
	case r.defect == subjectKeyed:
		subject := strings.TrimSpace(m.Subject)
		for _, wk := range w.works {
			if wk.msg.ID != m.ID && strings.EqualFold(strings.TrimSpace(wk.msg.Subject), subject) {
				return wk.id
			}
		}
	case r.defect == threadKeyed:
		if id, ok := threadWork(w, m); ok {
			return id
		}
	}
	return "w-" + m.ID
}

// facts are what the rules may look at for a message: thread length and
// sender history count distinct messages in inbox order up to it.
func (w *world) facts(m sandbox.Message) facts {
	f := facts{subject: m.Subject, body: m.Body, from: m.From, posture: w.v.posture}
	if w.defect == ignorePosture {
		f.posture = "normal"
	}
	for _, id := range w.order {
		other := w.messages[id]
		if other.ConversationID == m.ConversationID {
			f.threadLength++
		}
		if id == m.ID {
			break
		}
		if other.From == m.From {
			f.senderHistory++
		}
	}
	return f
}

// claims settles who owns each work item. With two or more alive agents the
// contest is written out honestly: two claims, one win, and a stand-down for
// the loser. A single alive agent simply wins. Once an item has an owner or
// has ended, every claim still open is stood down.
func (r *responder) claims(w *world) *write {
	if r.defect == noAgents {
		return nil
	}
	for _, wk := range w.works {
		if w.stopped(wk) {
			continue
		}
		if r.defect != noStandDown && (wk.resolved || wk.owner != "") {
			reason := reasonLostContest
			if wk.resolved {
				reason = reasonWorkResolved
			}
			for _, a := range wk.agents {
				if a != wk.owner && wk.last[a] == sandbox.ClaimClaimed {
					return w.claim(wk, a, sandbox.ClaimStoodDown, reason)
				}
			}
		}
		if wk.resolved || wk.lastWon != "" {
			continue
		}
		return w.contest(wk)
	}
	return nil
}

func (w *world) contest(wk *work) *write {
	n := len(w.alive)
	switch n {
	case 0:
		return w.resolve(wk, sandbox.OutcomeAbandoned, reasonNoAgent)
	case 1:
		return w.claim(wk, w.alive[0], sandbox.ClaimWon, reasonSoleAgent)
	}
	var active []string
	for _, a := range w.alive {
		if wk.last[a] == sandbox.ClaimClaimed {
			active = append(active, a)
		}
	}
	if len(active) < 2 {
		start := pick(w.seed, wk.id, "contender", n)
		for i := 0; i < n; i++ {
			if a := w.alive[(start+i)%n]; wk.last[a] != sandbox.ClaimClaimed {
				return w.claim(wk, a, sandbox.ClaimClaimed, reasonContest)
			}
		}
	}
	winner := active[pick(w.seed, wk.id, "winner", len(active))]
	return w.claim(wk, winner, sandbox.ClaimWon, reasonContestWon)
}

// draft declares a reply for each live work item whose owner has none of
// its own yet, unless the latest draft is already approved (an approved
// draft is sent as is, whoever owns the item now).
func (r *responder) draft(w *world, env *sandbox.Env) (*write, error) {
	for _, wk := range w.works {
		if wk.resolved || w.stopped(wk) || !w.ownerAlive(wk) || w.latestApproved(wk) {
			continue
		}
		if wk.msg.ID == "" {
			continue // admitted for a message never delivered: there is nothing to answer
		}
		id := draftID(wk.id, wk.owner)
		if r.defect == redraftEveryTick {
			id = fmt.Sprintf("%s~t%d", id, w.v.tick)
		}
		if _, ok := w.drafts[id]; ok {
			continue
		}
		if env.Model == nil {
			return nil, fmt.Errorf("drafting %s: no model", wk.id)
		}
		c, err := complete(env.Model, w.prompt(wk, r.defect == contextStuffing))
		if err != nil {
			return nil, fmt.Errorf("drafting %s: %w", wk.id, err)
		}
		return &write{file: sandbox.Drafts, rec: sandbox.Draft{
			DraftID: id, WorkID: wk.id, ConversationID: wk.msg.ConversationID,
			Body: c.Text, ContentHash: contentHash(c.Text), DeclaredAt: w.v.tick,
			Origin: sandbox.Origin{CallIDs: []string{c.CallID}},
		}}, nil
	}
	return nil, nil
}

// draftID names an agent's draft for a work item. Dead agents never come
// back, so one draft per agent per item is enough.
func draftID(workID, agent string) string {
	return "d-" + strings.TrimPrefix(workID, "w-") + "." + agent
}

// prompt is the model request for a work item: the subject and body of
// every message of its own conversation up to its message. The stuffed
// variant (weak-context-stuffing) takes every message of the same customer.
func (w *world) prompt(wk *work, stuffed bool) string {
	msgs := w.thread(wk.msg.ConversationID, wk.msg.ID)
	if stuffed {
		msgs = w.fromSender(wk.msg.From)
	}
	var b strings.Builder
	b.WriteString("Draft a reply to this support conversation.\n")
	for _, m := range msgs {
		fmt.Fprintf(&b, "\nSubject: %s\n%s\n", m.Subject, m.Body)
	}
	return b.String()
}

// pick chooses an index below n from the implementation's seed, the work item and a
// purpose, so the same run makes the same choices.
func pick(seed uint64, workID, purpose string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(workID))
	return int(h.Sum64() % uint64(n))
}
