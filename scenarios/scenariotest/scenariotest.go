// Package scenariotest holds bundle fixtures for the tests of packages that
// take bundles (scenarios' own, reserve's), so they agree on one small
// bundle instead of each keeping a copy.
package scenariotest

import "github.com/amr-bench/amr/scenarios"

// Small is a valid one-message bundle, a refund thread with an approval and
// a crash, whose every string carries name, so a leak of one is easy to
// find. subject and body are the message's; top is the bundle's top level.
func Small(name string, top int, subject, body string) *scenarios.Bundle {
	return &scenarios.Bundle{
		Format: scenarios.Format,
		Meta: scenarios.Meta{
			Name: name, Version: 1, TopLevel: top, Horizon: 40,
			Description: "Fixture " + name + " with a refund thread",
		},
		Fleet: []string{"agent-amber", "agent-basil"},
		Mode:  scenarios.Mode{Posture: "normal"},
		Rules: []scenarios.Rule{{
			ID: "rule-refunds-" + name, Admit: true,
			When: scenarios.Conditions{SubjectContains: ptr("refund"), ThreadLengthMax: ptr(3)},
		}},
		Model: scenarios.Model{
			Anchors:       []string{"ORD-" + name},
			Reply:         "Your order {{anchor}} is being refunded.",
			ReplyNoAnchor: "We are looking into your request.",
		},
		Inbox: []scenarios.Delivery{{
			ID: name + "-msg-1", ConversationID: name + "-conv-1", From: "customer-" + name + "@example.org",
			Subject: subject, Body: body, At: 1,
		}},
		Approvals: []scenarios.Approval{{ID: name + "-appr-1", At: 6, Match: scenarios.Match{MessageID: name + "-msg-1"},
			Decision: scenarios.DecisionApprove}},
		Signals: []scenarios.Signal{},
		Faults:  []scenarios.Fault{{At: 3, Kind: scenarios.FaultCrash}},
	}
}

func ptr[T any](v T) *T { return &v }
