package faults

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
)

// ThresholdEdges is the kind of rules over thread length and sender
// history whose thresholds the generated messages hit exactly, one below
// and one above, with duplicate deliveries of the earlier messages mixed in
// (a duplicate counts once: docs/decisions.md D6).
const ThresholdEdges = "threshold_edges"

// edgeGap separates the edge messages, so their delivery order, which the
// facts are counted in, is the bundle's (same-tick deliveries are
// shuffled).
const edgeGap = 2

// edges is what the threshold edges add: their rules, their messages, and
// the messages to deliver twice.
type edges struct {
	rules []scenarios.Rule
	msgs  []*message
	dups  []*message
}

// edgeMessages draws a thread whose length crosses a thread_length bound
// and a sender whose history crosses a sender_history bound, or one of the
// two, with rules admitting on them.
func (g *generator) edgeMessages() []*message {
	if !g.on(ThresholdEdges) {
		return nil
	}
	both := g.d.chance(g.rate(ThresholdEdges) / 2)
	thread := both || g.d.intn(2) == 0
	t := g.d.between(1, 6)
	if thread {
		t = g.threadEdge(t)
	}
	if both || !thread {
		g.historyEdge(t)
	}
	return g.edge.msgs
}

// bound returns a rule's condition pair with the threshold as its min or
// its max.
func (g *generator) bound(n int) (lo, hi *int) {
	if g.d.intn(2) == 0 {
		return nil, ptr(n)
	}
	return ptr(n), nil
}

// threadEdge writes n+1 messages in one conversation, so its thread
// length runs through n-1, n and n+1 for a threshold n, and returns the
// tick after the last.
func (g *generator) threadEdge(t int) int {
	n := g.d.between(2, 3)
	lo, hi := g.bound(n)
	g.edge.rules = append(g.edge.rules, scenarios.Rule{ID: "edge-thread", Admit: true,
		When: scenarios.Conditions{SubjectContains: ptr("ticket"), ThreadLengthMin: lo, ThreadLengthMax: hi}})
	c := &conversation{id: fmt.Sprintf("c%d", len(g.convs)+1), from: g.newCustomer(), subject: "Ticket: printer offline"}
	g.convs = append(g.convs, c)
	for k := 0; k <= n; k++ {
		subject := c.subject
		if k > 0 {
			subject = "Re: " + subject
		}
		m := &message{conv: c, at: t, subject: subject, body: fmt.Sprintf("Printer still offline, note %d.", k+1)}
		g.edge.msgs = append(g.edge.msgs, m)
		g.maybeDuplicate(m)
		t += edgeGap
	}
	return t
}

// historyEdge has one sender write n+2 messages, each in a conversation of
// its own, so its sender history runs through n-1, n and n+1 for a
// threshold n.
func (g *generator) historyEdge(t int) {
	n := g.d.between(1, 3)
	lo, hi := g.bound(n)
	g.edge.rules = append(g.edge.rules, scenarios.Rule{ID: "edge-history", Admit: true,
		When: scenarios.Conditions{SubjectContains: ptr("invoice"), SenderHistoryMin: lo, SenderHistoryMax: hi}})
	from := g.newCustomer()
	for k := 0; k < n+2; k++ {
		c := &conversation{id: fmt.Sprintf("c%d", len(g.convs)+1), from: from,
			subject: fmt.Sprintf("Invoice %d question", k+1)}
		g.convs = append(g.convs, c)
		m := &message{conv: c, at: t, subject: c.subject, body: "Is this invoice right?"}
		g.edge.msgs = append(g.edge.msgs, m)
		g.maybeDuplicate(m)
		t += edgeGap
	}
}

// maybeDuplicate marks an edge message to be delivered again before the
// next one arrives, where a count of inbox lines would go wrong.
func (g *generator) maybeDuplicate(m *message) {
	if g.d.chance(g.rate(ThresholdEdges)) {
		g.edge.dups = append(g.edge.dups, m)
	}
}

// edgeDuplicates delivers the marked edge messages again, a tick after
// each arrives: between it and the next edge message.
func (g *generator) edgeDuplicates() {
	for _, m := range g.edge.dups {
		g.faults = append(g.faults, scenarios.Fault{At: m.at + 1, Kind: scenarios.FaultDuplicate, MessageID: m.id})
	}
}
