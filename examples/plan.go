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
		r.p.early,
		r.forgeries,
		r.decisions,
		r.p.late,
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
	return w.scan(scanSends, func(wk *work) *write {
		if wk.resolved || r.p.stopped(w, wk) || !r.p.sent(w, wk) {
			return nil
		}
		line := w.resolution(wk, sandbox.OutcomeCompleted, reasonSent)
		if d, ok := wk.latestDraft(); ok && w.approved(d) {
			line.ApprovalID = w.decisions[d.DraftID].approvalID
		}
		return audit(line)
	})
}

// escalations abandons every work item an operator escalation takes over.
func (r *responder) escalations(w *world) *write {
	for _, s := range w.escalationSignals() {
		if s.SignalType != sandbox.SignalOperatorEscalation {
			continue
		}
		if wk, ok := r.p.escalation(w, s); ok {
			line := w.resolution(wk, sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation)
			line.SignalID = s.SignalID
			return audit(line)
		}
	}
	return nil
}

// agentDeaths stands down every dead agent's claim on unfinished work, then
// has the work taken over.
func (r *responder) agentDeaths(w *world) *write {
	return w.scan(scanDeaths, func(wk *work) *write {
		if wk.resolved || r.p.stopped(w, wk) {
			return nil
		}
		if r.p.standsDown(reasonAgentDeath) {
			for _, a := range wk.agents {
				if w.dead[a] && (wk.last(a) == sandbox.ClaimClaimed || wk.last(a) == sandbox.ClaimWon) {
					return w.claim(wk, a, sandbox.ClaimStoodDown, reasonAgentDeath)
				}
			}
		}
		if wk.lastWon == "" || w.ownerAlive(wk) {
			return nil
		}
		return r.p.takeOver(w, wk)
	})
}

// reassignee is the alive agent a dead owner's work goes to.
func (w *world) reassignee(wk *work) string {
	return w.alive[pick(w.seed, wk.id, "reassign", len(w.alive))]
}

// forgeries records each approval line that binds no declared draft, once.
// The record is the decision: the line is never looked at again.
func (r *responder) forgeries(w *world) *write {
	for _, a := range w.openApprovals() {
		if w.ignored[a.ApprovalID] {
			continue
		}
		if _, ok := r.p.bind(w, a); ok {
			continue
		}
		return audit(approvalLine{Event: r.p.ignoredEvent(), At: w.v.tick, ApprovalID: a.ApprovalID, DraftID: a.DraftID,
			Reason: w.forgery(a)})
	}
	return nil
}

// decisions acts on the first valid decision for each live work item's
// latest draft: a reject abandons it; an approve is recorded as accepted,
// then sent, once.
func (r *responder) decisions(w *world) *write {
	return w.scan(scanDecisions, func(wk *work) *write {
		if r.p.stopped(w, wk) || !w.ownerAlive(wk) {
			return nil
		}
		d, ok := wk.latestDraft()
		if !ok {
			return nil
		}
		dec, ok := w.decisions[d.DraftID]
		if !ok {
			return nil
		}
		if next := r.p.resend(w, wk, d, dec); next != nil {
			return next
		}
		if wk.resolved && !r.p.reopens(w, wk, dec) {
			return nil
		}
		if dec.decision == "reject" && !wk.resolved {
			line := w.resolution(wk, sandbox.OutcomeAbandoned, reasonRejected)
			line.ApprovalID = dec.approvalID
			return audit(line)
		}
		if r.p.sent(w, wk) {
			return nil
		}
		if !w.accepted[d.DraftID] {
			return r.p.accept(w, wk, d, dec)
		}
		return r.p.send(w, wk, d)
	})
}

// admissions decides each delivered message once, under the rules and
// posture in force now: an admission record for a new work item, or a
// declined record so the decision is never made again.
func (r *responder) admissions(w *world) *write {
	v := w.v
	if !v.rulesOK || !v.modeOK {
		return nil
	}
	if w.inc != nil {
		for _, m := range w.inc.undecided {
			if w.declined[m.ID] {
				continue
			}
			if workID, isNew := r.p.key(w, *m, 0); isNew {
				return r.admit(w, *m, workID)
			}
		}
		return nil
	}
	seen := map[string]int{}
	for _, m := range v.inbox {
		occurrence := seen[m.ID]
		seen[m.ID]++
		if !r.p.polls(v, m) || w.declined[m.ID] {
			continue
		}
		if workID, isNew := r.p.key(w, m, occurrence); isNew {
			return r.admit(w, m, workID)
		}
	}
	return nil
}

func (r *responder) admit(w *world, m sandbox.Message, workID string) *write {
	v := w.v
	hash := r.cache.hashOf(v.rulesRaw)
	ruleID, ok := admitted(v.rules, r.p.facts(w, m))
	if !ok {
		return audit(declinedLine{Event: eventDeclined, At: v.tick, MessageID: m.ID, RulesHash: hash,
			Posture: v.posture})
	}
	return audit(admissionLine{Event: sandbox.EventAdmission, At: v.tick, WorkID: workID, MessageID: m.ID,
		RulesHash: hash, RuleID: ruleID, Posture: v.posture})
}

// ownWorkID is the work item a message is admitted as: "w-" and its id.
func ownWorkID(m sandbox.Message) string { return "w-" + m.ID }

// facts are what the rules may look at for a message: thread length and
// sender history count distinct messages in inbox order up to it.
func (w *world) facts(m sandbox.Message) facts {
	f := facts{subject: m.Subject, body: m.Body, from: m.From, posture: w.v.posture}
	if first, ok := w.message(m.ID); ok && w.inc != nil && first.ConversationID == m.ConversationID && first.From == m.From {
		pos := w.inc.pos[m.ID]
		f.threadLength, f.senderHistory = pos.conv+1, pos.from
		return f
	}
	for _, id := range w.order {
		other, _ := w.message(id)
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
	return w.scan(scanClaims, func(wk *work) *write {
		if r.p.stopped(w, wk) {
			return nil
		}
		reason := reasonLostContest
		if wk.resolved {
			reason = reasonWorkResolved
		}
		if (wk.resolved || wk.owner != "") && r.p.standsDown(reason) {
			for _, a := range wk.agents {
				if a != wk.owner && wk.last(a) == sandbox.ClaimClaimed {
					return w.claim(wk, a, sandbox.ClaimStoodDown, reason)
				}
			}
		}
		if wk.resolved || wk.lastWon != "" {
			return nil
		}
		return w.contest(wk)
	})
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
		if wk.last(a) == sandbox.ClaimClaimed {
			active = append(active, a)
		}
	}
	if len(active) < 2 {
		start := pick(w.seed, wk.id, "contender", n)
		for i := 0; i < n; i++ {
			if a := w.alive[(start+i)%n]; wk.last(a) != sandbox.ClaimClaimed {
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
	var err error
	next := w.scan(scanDrafts, func(wk *work) *write {
		if wk.resolved || r.p.stopped(w, wk) || !w.ownerAlive(wk) || w.latestApproved(wk) {
			return nil
		}
		if wk.message().ID == "" {
			return nil // admitted for a message never delivered: there is nothing to answer
		}
		id := r.p.nameDraft(w, wk)
		if _, ok := w.drafts[id]; ok {
			return nil
		}
		var d *write
		d, err = r.draftFor(w, wk, id, env)
		return d
	})
	if err != nil {
		return nil, err
	}
	return next, nil
}

// draftFor asks the model for a work item's reply and declares it. An
// error stops the scan with a write that is never made.
func (r *responder) draftFor(w *world, wk *work, id string, env *sandbox.Env) (*write, error) {
	stop := &write{}
	if env.Model == nil {
		return stop, fmt.Errorf("drafting %s: no model", wk.id)
	}
	c, err := r.p.complete(env.Model, r.p.prompt(w, wk))
	if err != nil {
		return stop, fmt.Errorf("drafting %s: %w", wk.id, err)
	}
	return &write{file: sandbox.Drafts, rec: sandbox.Draft{
		DraftID: id, WorkID: wk.id, ConversationID: wk.message().ConversationID,
		Body: c.Text, ContentHash: contentHash(c.Text), DeclaredAt: w.v.tick,
		Origin: sandbox.Origin{CallIDs: []string{c.CallID}},
	}}, nil
}

// draftID names an agent's draft for a work item. Dead agents never come
// back, so one draft per agent per item is enough.
func draftID(workID, agent string) string {
	return "d-" + strings.TrimPrefix(workID, "w-") + "." + agent
}

// promptOf is the model request that asks for a reply to a conversation
// made of msgs: the subject and body of each, in order.
func promptOf(msgs []sandbox.Message) string {
	const head, subject = "Draft a reply to this support conversation.\n", "\nSubject: "
	n := len(head)
	for _, m := range msgs {
		n += len(subject) + len(m.Subject) + len(m.Body) + 2
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(head)
	for _, m := range msgs {
		b.WriteString(subject)
		b.WriteString(m.Subject)
		b.WriteByte('\n')
		b.WriteString(m.Body)
		b.WriteByte('\n')
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
