package shrink

import (
	"strconv"

	"github.com/amr-bench/amr/scenarios"
)

// Renumber returns a copy of b whose ids read in order: messages m1, m2, …
// in delivery order, conversations c1, c2, … in order of first delivery,
// approvals ap1, ap2, … and signals s1, s2, … in schedule order, fleet
// agents agent-1, agent-2, … in fleet order. Every reference to a renamed id
// follows it. Work ids and senders are left alone: a bundle names work ids
// the implementation chose, and rules name senders.
func Renumber(b *scenarios.Bundle) *scenarios.Bundle {
	c := b.Clone()
	c.Normalize()
	msgs := map[string]string{}
	convs := map[string]string{}
	for i := range c.Inbox {
		d := &c.Inbox[i]
		if _, ok := convs[d.ConversationID]; !ok {
			convs[d.ConversationID] = "c" + strconv.Itoa(len(convs)+1)
		}
		msgs[d.ID] = "m" + strconv.Itoa(i+1)
		d.ID, d.ConversationID = msgs[d.ID], convs[d.ConversationID]
	}
	agents := map[string]string{}
	for i, a := range c.Fleet {
		agents[a] = "agent-" + strconv.Itoa(i+1)
		c.Fleet[i] = agents[a]
	}
	aps := map[string]string{}
	for i := range c.Approvals {
		a := &c.Approvals[i]
		aps[a.ID] = "ap" + strconv.Itoa(i+1)
		a.ID = aps[a.ID]
		a.Match.MessageID = rename(msgs, a.Match.MessageID)
		a.Match.AgentID = rename(agents, a.Match.AgentID)
	}
	for i := range c.Signals {
		sg := &c.Signals[i]
		sg.ID = "s" + strconv.Itoa(i+1)
		sg.Target.MessageID = rename(msgs, sg.Target.MessageID)
		sg.Target.AgentID = rename(agents, sg.Target.AgentID)
	}
	for i := range c.Faults {
		f := &c.Faults[i]
		f.MessageID = rename(msgs, f.MessageID)
		f.ApprovalID = rename(aps, f.ApprovalID)
	}
	return c
}

// rename maps an id through m; the empty id and unknown ids stay.
func rename(m map[string]string, id string) string {
	if to, ok := m[id]; ok {
		return to
	}
	return id
}

// renumber tries the renumbered bundle. Ids can matter to an implementation
// (it may derive work ids from them), so the oracle decides as for any other
// candidate.
func (s *shrinker) renumber() bool {
	c := Renumber(s.cur)
	if sameJSON(c, s.cur) {
		return false
	}
	return s.try(c)
}
