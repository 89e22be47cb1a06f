// Package bigbundle generates bundles of a given number of messages, for
// measuring how the harness's cost grows with the size of a run. The
// bundles are valid, deterministic for a size, and carry the kinds of
// schedule a run's cost depends on: admitted and declined messages,
// approvals, escalations and crashes.
//
// Two shapes: Generate spreads the messages two a tick, so the run has
// about N/2 ticks and an implementation that rewrites a snapshot of every
// work item each tick writes about N^2 bytes of it; GenerateBurst lands the
// same schedule on a fixed number of arrival ticks, so the ticks (and the
// snapshot's versions) stay bounded and the implementation's own output
// grows with N.
package bigbundle

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
)

// Sizes are the message counts the linearity benchmarks measure.
var Sizes = []int{10, 100, 1_000, 10_000, 100_000}

// perTick is how many messages arrive on one tick: the largest size must
// fit under the longest horizon a bundle may have, with room for the last
// replies.
const perTick = 2

// tail is how many ticks the horizon leaves after the last arrival, longer
// than any reply budget.
const tail = 40

// BurstTicks is how many ticks the burst shape's arrivals are spread over,
// whatever the size: a constant, so the number of ticks, and so of
// snapshot versions, does not grow with N; and enough of them that 10^5
// messages arrive a thousand a tick, the load of one tick the reference
// settles in one step of well under its bound on writes (maxWrites in
// examples).
const BurstTicks = 100

// burstCrashes are the ticks the burst shape crashes at, with the writes
// each waits for: inside the arrivals, so a restart finds open work.
var burstCrashes = []scenarios.Fault{
	{At: 30, Kind: scenarios.FaultCrash, AfterWrites: 1},
	{At: 60, Kind: scenarios.FaultCrash, AfterWrites: 2},
	{At: 90, Kind: scenarios.FaultCrash, AfterWrites: 3},
}

// Generate returns a bundle of n messages (n >= 1), two a tick. Every tenth
// message is declined by the rules, every fiftieth is escalated before its
// approval, and a crash lands every 500 ticks.
func Generate(n int) *scenarios.Bundle {
	last := 1 + (n-1)/perTick
	b := skeleton(fmt.Sprintf("l4-big-%d", n),
		fmt.Sprintf("%d messages, %d a tick, for measuring how cost grows with a run's size.", n, perTick),
		last+tail)
	for i := 0; i < n; i++ {
		addMessage(b, i, 1+i/perTick)
	}
	for t := 500; t < last; t += 500 {
		b.Faults = append(b.Faults, scenarios.Fault{At: t, Kind: scenarios.FaultCrash, AfterWrites: 1 + (t/500)%3})
	}
	b.Normalize()
	return b
}

// GenerateBurst returns a bundle of n messages (n >= 1) arriving over
// BurstTicks ticks, in order, n/BurstTicks a tick (below BurstTicks
// messages, one every BurstTicks/n ticks), with Generate's mix of
// declined, escalated and approved messages and three crashes during the
// arrivals.
func GenerateBurst(n int) *scenarios.Bundle {
	b := skeleton(fmt.Sprintf("l4-burst-%d", n),
		fmt.Sprintf("%d messages over %d ticks, for measuring how cost grows with a run's size at a bounded number of ticks.", n, BurstTicks),
		BurstTicks+tail)
	for i := 0; i < n; i++ {
		addMessage(b, i, 1+i*BurstTicks/n)
	}
	b.Faults = append(b.Faults, burstCrashes...)
	b.Normalize()
	return b
}

func skeleton(name, description string, horizon int) *scenarios.Bundle {
	order := "order"
	return &scenarios.Bundle{
		Format: scenarios.Format,
		Meta: scenarios.Meta{
			Name:        name,
			Version:     1,
			Description: description,
			TopLevel:    4,
			Horizon:     horizon,
			Origin:      &scenarios.Origin{Kind: "generated"},
		},
		Fleet: []string{"agent-1", "agent-2"},
		Mode:  scenarios.Mode{Posture: "normal"},
		Rules: []scenarios.Rule{{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: &order}}},
		Model: scenarios.Model{
			Anchors:       []string{"ORD-1001", "ORD-2002", "ORD-3003"},
			Reply:         "Hello, we looked into order {{anchor}}: it ships tomorrow.",
			ReplyNoAnchor: "Hello, thanks for writing. Could you tell us your order number?",
		},
	}
}

// addMessage adds the i-th message (from 0), arriving at tick at: every
// tenth declined by the rules, the others approved two ticks after, every
// fiftieth escalated the tick after it arrives.
func addMessage(b *scenarios.Bundle, i, at int) {
	id := fmt.Sprintf("m%d", i+1)
	subject := "Where is my order?"
	if i%10 == 9 {
		subject = "A question about something else"
	}
	b.Inbox = append(b.Inbox, scenarios.Delivery{
		ID: id, ConversationID: fmt.Sprintf("c%d", i+1), From: fmt.Sprintf("user%d@example.com", i%97),
		Subject: subject, Body: fmt.Sprintf("Hi, my order ORD-%d001 has not arrived yet.", 1+i%3), At: at,
	})
	if i%10 == 9 {
		return
	}
	if i%50 == 0 {
		b.Signals = append(b.Signals, scenarios.Signal{ID: "s" + id, At: at + 1, Type: scenarios.OperatorEscalation,
			Target: scenarios.Match{MessageID: id}})
	}
	b.Approvals = append(b.Approvals, scenarios.Approval{ID: "a" + id, At: at + 2,
		Match: scenarios.Match{MessageID: id}, Decision: scenarios.DecisionApprove})
}
