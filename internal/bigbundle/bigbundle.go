// Package bigbundle generates bundles of a given number of messages, for
// measuring how the harness's cost grows with the size of a run. The
// bundles are valid, deterministic for a size, and carry the kinds of
// schedule a run's cost depends on: admitted and declined messages,
// approvals, escalations and crashes.
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

// Generate returns a bundle of n messages (n >= 1). Every tenth message is
// declined by the rules, every fiftieth is escalated before its approval,
// and a crash lands every 500 ticks.
func Generate(n int) *scenarios.Bundle {
	last := 1 + (n-1)/perTick
	order := "order"
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta: scenarios.Meta{
			Name:        fmt.Sprintf("l4-big-%d", n),
			Version:     1,
			Description: fmt.Sprintf("%d messages, %d a tick, for measuring how cost grows with a run's size.", n, perTick),
			TopLevel:    4,
			Horizon:     last + tail,
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
	for i := 0; i < n; i++ {
		at := 1 + i/perTick
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
			continue
		}
		if i%50 == 0 {
			b.Signals = append(b.Signals, scenarios.Signal{ID: "s" + id, At: at + 1, Type: scenarios.OperatorEscalation,
				Target: scenarios.Match{MessageID: id}})
		}
		b.Approvals = append(b.Approvals, scenarios.Approval{ID: "a" + id, At: at + 2,
			Match: scenarios.Match{MessageID: id}, Decision: scenarios.DecisionApprove})
	}
	for t := 500; t < last; t += 500 {
		b.Faults = append(b.Faults, scenarios.Fault{At: t, Kind: scenarios.FaultCrash, AfterWrites: 1 + (t/500)%3})
	}
	b.Normalize()
	return b
}
