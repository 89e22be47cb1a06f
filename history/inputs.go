package history

import (
	"sort"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A history records what the harness wrote, not what a sandbox says it
// wrote. With a run log the log's own records say it. Without one the
// bundle bounds it: an approvals or signals line the bundle does not explain
// is left out (it authorizes and stops nothing), and an escalation the
// bundle proves was written, absent from signals.jsonl, is put back at the
// earliest tick the harness could have written it. This reading is the
// history's own; the level checker reaches the same facts by its own code,
// and the differential guard compares them.

// declaration is one drafts line: the draft's work item, hash and own tick.
type declaration struct {
	work, hash, conversation string
	tick                     int
}

// admission is one admission record: its work item and own tick.
type admission struct {
	work string
	tick int
}

// bundleBounds is what judging harness lines against the bundle needs.
type bundleBounds struct {
	b      *scenarios.Bundle
	bx     *scenarios.Index
	tl     timeline
	drafts map[string][]declaration // draft id -> declarations in file order
	admits map[string][]admission   // message id -> admissions in file order
	worked map[string]bool          // work ids some admission names
}

func (c *compiler) bounds() *bundleBounds {
	bb := &bundleBounds{b: c.in.Bundle, bx: c.bx, tl: newTimeline(c.in.Bundle),
		drafts: map[string][]declaration{}, admits: map[string][]admission{}, worked: map[string]bool{}}
	for _, n := range c.impl[sandbox.Drafts].lines() {
		if op, ok := c.implOp(sandbox.Drafts, n); ok {
			bb.drafts[op.DraftID] = append(bb.drafts[op.DraftID],
				declaration{op.WorkID, op.ContentHash, op.ConversationID, c.impl[sandbox.Drafts].ownTick(n)})
		}
	}
	for _, n := range c.impl[sandbox.Audit].lines() {
		if op, ok := c.implOp(sandbox.Audit, n); ok && op.Type == OpAdmit {
			bb.admits[op.MessageID] = append(bb.admits[op.MessageID], admission{op.WorkID, c.impl[sandbox.Audit].ownTick(n)})
			bb.worked[op.WorkID] = true
		}
	}
	return bb
}

// lastTick is the timeline's last tick.
func (bb *bundleBounds) lastTick() int {
	if len(bb.tl) == 0 {
		return 0
	}
	return bb.tl[len(bb.tl)-1]
}

// onTime reports whether a line stamped at was written between its
// scheduled tick's visible tick and the end of the run.
func (bb *bundleBounds) onTime(at, scheduled int) bool {
	v, ok := bb.tl.visible(scheduled)
	return ok && at >= v && at <= bb.lastTick()
}

// targets reports whether a bundle match may name work item w at tick t.
func (bb *bundleBounds) targets(m scenarios.Match, w string, t int) bool {
	if m.WorkID != "" {
		return w == m.WorkID
	}
	if m.MessageID == "" {
		return false
	}
	for _, a := range bb.admits[m.MessageID] {
		if a.work == w && a.tick <= t {
			return true
		}
	}
	if len(bb.admits[m.MessageID]) > 0 || bb.worked[w] {
		return false
	}
	return bb.unadmittedReply(m.MessageID, w, t)
}

// unadmittedReply reports whether work item w, which no admission names,
// may answer a message no admission names: a harness that binds by
// conversation (D32) would bind the message's approval to a draft of w
// declared in the message's conversation after the message arrived.
func (bb *bundleBounds) unadmittedReply(msg, w string, t int) bool {
	d, ok := bb.bx.Message(msg)
	if !ok {
		return false
	}
	arrived, ok := bb.tl.visible(d.At)
	if !ok {
		return false
	}
	for _, decls := range bb.drafts {
		for _, x := range decls {
			if x.work == w && x.conversation == d.ConversationID && x.tick >= arrived && x.tick <= t {
				return true
			}
		}
	}
	return false
}

// approvalExplained reports whether an approvals line is one the harness
// could have written for the bundle's approval of that id. A non-forged one
// copies the hash of a draft line of its matched work item declared by its
// tick. A forged one is any line that is not valid: one naming no draft
// declared by then, or one whose hash is not its draft's first
// declaration's, whichever kind the bundle names (D33).
func (bb *bundleBounds) approvalExplained(rec sandbox.ApprovalRecord) bool {
	a, ok := bb.bx.ApprovalByID(rec.ApprovalID)
	if !ok || rec.Decision != a.Decision || !bb.onTime(rec.DecidedAt, a.At) {
		return false
	}
	decls := bb.drafts[rec.DraftID]
	if a.Forge != "" {
		return len(decls) == 0 || decls[0].tick > rec.DecidedAt || decls[0].hash != rec.ContentHash
	}
	for _, d := range decls {
		if d.tick <= rec.DecidedAt && d.hash == rec.ContentHash && bb.targets(a.Match, d.work, rec.DecidedAt) {
			return true
		}
	}
	return false
}

// signalExplained reports whether a signals line is one the harness could
// have written for the bundle's signal of that id.
func (bb *bundleBounds) signalExplained(rec sandbox.SignalRecord) bool {
	s, ok := bb.signal(rec.SignalID)
	if !ok || rec.SignalType != s.Type || !bb.onTime(rec.At, s.At) {
		return false
	}
	switch {
	case s.Target.AgentID != "":
		return rec.Target == s.Target.AgentID
	case s.Type == scenarios.AgentDeath:
		return true
	}
	return bb.targets(s.Target, rec.Target, rec.At)
}

func (bb *bundleBounds) signal(id string) (scenarios.Signal, bool) {
	for _, s := range bb.b.Signals {
		if s.ID == id {
			return s, true
		}
	}
	return scenarios.Signal{}, false
}

// unexplained returns the approvals and signals lines to leave out of a
// file-order history. A repeated approvals line stays when it repeats a kept
// line exactly (a redelivery); a signal id is written once.
func (c *compiler) unexplained(bb *bundleBounds) (approvals, signals map[int]bool) {
	approvals, signals = map[int]bool{}, map[int]bool{}
	first := map[string]int{}
	for _, n := range sortedKeys(c.approvals) {
		rec := *c.approvals[n]
		if f, ok := first[rec.ApprovalID]; ok {
			approvals[n] = approvals[f] || *c.approvals[f] != rec
			continue
		}
		first[rec.ApprovalID] = n
		approvals[n] = !bb.approvalExplained(rec)
	}
	seen := map[string]bool{}
	for _, n := range sortedKeys(c.signals) {
		rec := c.signals[n]
		signals[n] = seen[rec.SignalID] || !bb.signalExplained(rec)
		seen[rec.SignalID] = true
	}
	return approvals, signals
}

// restoredEscalations returns a signal operation for every OPERATOR_ESCALATION
// of the bundle that has no kept line although the harness must have
// written it by the horizon: its target is given outright, or the message it
// names was admitted before a tick at which it was due. It is placed at the
// earliest tick the harness could have written it, the strict reading of
// what came after it.
func (c *compiler) restoredEscalations(bb *bundleBounds, kept map[string]bool) []Op {
	var out []Op
	seen := map[string]bool{}
	for _, s := range bb.b.Signals {
		if s.Type != scenarios.OperatorEscalation || seen[s.ID] || kept[s.ID] {
			continue
		}
		seen[s.ID] = true
		v, ok := bb.tl.visible(s.At)
		if !ok {
			continue
		}
		target, tick := s.Target.AgentID, v
		if target == "" {
			target = s.Target.WorkID
		}
		if target == "" {
			as := bb.admits[s.Target.MessageID]
			if s.Target.MessageID == "" || len(as) == 0 {
				continue
			}
			target = as[0].work
			if as[0].tick >= v {
				// Bindable only after the admission: it must have fired by
				// the next visited tick.
				if sort.SearchInts(bb.tl, as[0].tick+1) >= len(bb.tl) {
					continue
				}
				tick = as[0].tick
			}
		}
		rec := sandbox.SignalRecord{SignalID: s.ID, SignalType: s.Type, Target: target, At: tick}
		out = append(out, signalOp(rec, tick, rawLoc("bundle:signals/"+s.ID)))
	}
	return out
}
