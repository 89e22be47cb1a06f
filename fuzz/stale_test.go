package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
)

// staleBundle: m1's owner dies after its first draft, the new owner
// re-drafts, and an approval of the first draft (binds "previous") comes;
// with real, the message's own approval of the latest draft follows.
func staleBundle(real bool) *scenarios.Bundle {
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta:   scenarios.Meta{Name: "l2-stale-approval", Version: 1, TopLevel: scenarios.MaxLevel, Horizon: 40},
		Fleet:  []string{"agent-1", "agent-2"},
		Mode:   scenarios.Mode{Posture: "normal"},
		Rules: []scenarios.Rule{{ID: "support", Admit: true,
			When: scenarios.Conditions{SubjectContains: ptr("order")}}},
		Model: scenarios.Model{Anchors: []string{"ORD-1234"}, Reply: "Order {{anchor}} ships tomorrow.",
			ReplyNoAnchor: "Which order?"},
		Inbox: []scenarios.Delivery{{ID: "m1", ConversationID: "c1", From: "ann@example.com",
			Subject: "Order ORD-1234 is late", Body: "Where is order ORD-1234?", At: 1}},
		Signals: []scenarios.Signal{{ID: "s1", At: 2, Type: scenarios.AgentDeath, Target: scenarios.Match{MessageID: "m1"}}},
		Approvals: []scenarios.Approval{{ID: "sa1", At: 3, Match: scenarios.Match{MessageID: "m1"},
			Decision: scenarios.DecisionApprove, Binds: scenarios.BindsPrevious}},
	}
	if real {
		b.Approvals = append(b.Approvals, scenarios.Approval{ID: "ap1", At: 6, Match: scenarios.Match{MessageID: "m1"},
			Decision: scenarios.DecisionApprove})
	}
	b.Normalize()
	return b
}

func ptr[T any](v T) *T { return &v }

// D80 both ways: the reference ignores an approval of the superseded
// draft and owes nothing for it; a system that files the decision under
// the work item sends the new draft without its approval.
func TestApprovalOfSupersededDraft(t *testing.T) {
	for _, real := range []bool{true, false} {
		b := staleBundle(real)
		require.Empty(t, scenarios.Validate(b, nil).Errors())
		ref, err := Play(b, builtin(t, "reference"), nil, 0)
		require.NoError(t, err)
		assert.False(t, ref.Failed(), "real=%v: %v", real, ref.Verdict().Violations)
		assert.True(t, ref.Seen.Has(CStaleApproval), "real=%v: the stale approval fired after the re-draft", real)

		weak, err := Play(b, builtin(t, "weak-approval-by-work"), nil, 0)
		require.NoError(t, err)
		assert.Contains(t, weak.Invariants(), "L2.approval-binding", "real=%v", real)
	}
}
