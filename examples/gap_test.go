package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

// A weak implementation with no published scenario is a scenario gap: no
// published bundle exercises its defect, so each published one passes it,
// and the bundle kept here, which does, catches it. When a published
// scenario starts catching it, the registry entry must name that scenario.
var gapBundles = map[string]func() *scenarios.Bundle{
	"weak-escalate-all": escalateAllBundle,
}

func gapCaught(t *testing.T, im Impl, published []scenarios.PublishedBundle) {
	for _, p := range published {
		v := verdict(t, p.Bundle, im.New, 1)
		for _, x := range v.Violations {
			assert.NotContains(t, im.Targets, x.Invariant,
				"%s now catches %s: name it as the implementation's scenario", p.Name, im.Name)
		}
	}
	build, ok := gapBundles[im.Name]
	require.True(t, ok, "no bundle exercises %s", im.Name)
	b := build()
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	v := verdict(t, b, im.New, 1)
	var got []string
	for _, x := range v.Violations {
		got = append(got, x.Invariant)
	}
	for _, id := range []string{"L0.reply", "L4.escalation-resolution"} {
		assert.Contains(t, got, id)
	}
	assert.Empty(t, verdict(t, b, Reference(), 1).Violations, "the reference passes the gap bundle")
}

// escalateAllBundle escalates one of three open work items while the other
// two still wait: m2 is approved after the escalation, and m3 is escalated
// later itself.
func escalateAllBundle() *scenarios.Bundle {
	subject := func(anchor string) string { return "Order " + anchor + " late" }
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta:   scenarios.Meta{Name: "l4-escalation-among-open-work", Version: 1, TopLevel: 4, Horizon: 35},
		Fleet:  []string{"agent-1"},
		Mode:   scenarios.Mode{Posture: "normal"},
		Rules:  supportRules(),
		Model:  scenarios.Model{Anchors: []string{"ORD-1", "ORD-2", "ORD-3"}, Reply: "About {{anchor}}.", ReplyNoAnchor: "Which order?"},
		Inbox: []scenarios.Delivery{
			{ID: "m1", ConversationID: "c1", From: "a@x", Subject: subject("ORD-1"), Body: "Where is ORD-1?", At: 1},
			{ID: "m2", ConversationID: "c2", From: "b@x", Subject: subject("ORD-2"), Body: "Where is ORD-2?", At: 1},
			{ID: "m3", ConversationID: "c3", From: "c@x", Subject: subject("ORD-3"), Body: "Where is ORD-3?", At: 1},
		},
		Approvals: []scenarios.Approval{
			{ID: "ap2", At: 5, Match: scenarios.Match{MessageID: "m2"}, Decision: scenarios.DecisionApprove},
		},
		Signals: []scenarios.Signal{
			{ID: "s1", At: 3, Type: scenarios.OperatorEscalation, Target: scenarios.Match{MessageID: "m1"}},
			{ID: "s3", At: 8, Type: scenarios.OperatorEscalation, Target: scenarios.Match{MessageID: "m3"}},
		},
	}
	b.Normalize()
	return b
}
