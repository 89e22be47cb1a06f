package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

// baseBundle is a small valid bundle that touches every part of the format:
// every fault kind, both signal types, a forged approval and an approval by
// work id. It validates without a single problem, warnings included.
func baseBundle() *Bundle {
	return &Bundle{
		Format: Format,
		Meta:   Meta{Name: "l3-base", Version: 1, Description: "Every part of a bundle once.", TopLevel: 3, Horizon: 60},
		Fleet:  []string{"agent-1", "agent-2"},
		Mode:   Mode{Posture: "normal"},
		Rules: []Rule{
			{ID: "orders", Admit: true, When: Conditions{SubjectContains: ptr("order")}},
			{ID: "vip", Admit: true, When: Conditions{FromIn: &[]string{"vip@example.com"}}},
			{ID: "gate", When: Conditions{Posture: ptr("maintenance")}, Overrides: []string{"orders"}},
		},
		Model: Model{Anchors: []string{"ORD-1", "ORD-2"}, Reply: "About {{anchor}}: it ships today.", ReplyNoAnchor: "Which order do you mean?"},
		Inbox: []Delivery{
			{ID: "m1", ConversationID: "c1", From: "ann@example.com", Subject: "Order ORD-1", Body: "Where is ORD-1?", At: 1},
			{ID: "m2", ConversationID: "c2", From: "vip@example.com", Subject: "Hello", Body: "ORD-2 please", At: 2},
			{ID: "m3", ConversationID: "c1", From: "ann@example.com", Subject: "Re: Order ORD-1", Body: "Still waiting.", At: 20},
		},
		Approvals: []Approval{
			{ID: "a1", At: 5, Match: Match{MessageID: "m1"}, Decision: DecisionApprove},
			{ID: "a2", At: 6, Match: Match{MessageID: "m2"}, Decision: DecisionApprove, Forge: ForgeDangling},
			{ID: "a3", At: 25, Match: Match{WorkID: "w-3"}, Decision: DecisionReject},
		},
		Signals: []Signal{
			{ID: "s1", At: 8, Type: AgentDeath, Target: Match{MessageID: "m2"}},
			{ID: "s2", At: 9, Type: OperatorEscalation, Target: Match{MessageID: "m1"}},
			{ID: "s3", At: 10, Type: AgentDeath, Target: Match{AgentID: "agent-2"}},
		},
		Faults: []Fault{
			{At: 3, Kind: FaultCrash, AfterWrites: 2},
			{At: 4, Kind: FaultDuplicate, MessageID: "m1"},
			{At: 7, Kind: FaultRedeliver, ApprovalID: "a1"},
			{At: 11, Kind: FaultRules, Rules: []Rule{{ID: "all", Admit: true}}},
			{At: 12, Kind: FaultPosture, Posture: "maintenance"},
			{At: 30, Kind: FaultTickJump, By: 5},
		},
	}
}

// lineOf returns the 1-based line of the nth line (from 1) of text that
// contains needle once spaces are removed, so one needle serves indented
// JSON and compact JSONL alike.
func lineOf(t *testing.T, text, needle string, nth int) int {
	t.Helper()
	seen := 0
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(strings.ReplaceAll(line, " ", ""), needle) {
			seen++
			if seen == nth {
				return i + 1
			}
		}
	}
	require.Failf(t, "needle not found", "%q (occurrence %d) in:\n%s", needle, nth, text)
	return 0
}

// findProblem returns the first problem with the given field.
func findProblem(t *testing.T, ps Problems, field string) Problem {
	t.Helper()
	for _, p := range ps {
		if p.Field == field {
			return p
		}
	}
	require.Failf(t, "no problem for field", "field %q not among:\n%s", field, ps.Error())
	return Problem{}
}

func fields(ps Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Field
	}
	return out
}
