package examples

import (
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// approvePrevious binds the draft the message's work item had before its
// latest one, as the engine does for a "binds": "previous" approval.
func approvePrevious(id, messageID string) func(*harness) {
	return func(h *harness) {
		work := h.workFor(messageID)
		var drafts []sandbox.Draft
		for _, d := range h.drafts() {
			if d.WorkID == work {
				drafts = append(drafts, d)
			}
		}
		require.GreaterOrEqual(h.t, len(drafts), 2, "no previous draft of %s", work)
		d := drafts[len(drafts)-2]
		h.fired[id] = h.appendLine(sandbox.Approvals, sandbox.ApprovalRecord{ApprovalID: id, DraftID: d.DraftID,
			ContentHash: d.ContentHash, Decision: "approve", DecidedAt: h.tick})
	}
}

func init() {
	weakCases["weak-approval-by-work"] = weakCase{
		fleet: []string{"agent-1", "agent-2"},
		run: withOrder(func(h *harness) {
			h.at(2, killOwner("s1", "m1"))
			h.at(3, approvePrevious("sa1", "m1"))
			h.idle(10)
		}),
		shows: func(h *harness) bool { return hasProblem(h, "without a binding approval") },
	}
	weakCases["weak-last-decision-wins"] = weakCase{
		run: withOrder(func(h *harness) {
			h.at(3, approve("ap1", "m1", "reject"))
			h.at(5, approve("ap2", "m1", "approve"))
			h.idle(10)
		}),
		shows: func(h *harness) bool { return h.sends("w-m1") > 0 },
	}
	weakCases["weak-ignore-reject"] = weakCase{
		run: withOrder(func(h *harness) {
			h.at(3, approve("ap1", "m1", "reject"))
			h.at(5, approve("ap2", "m1", "approve"))
			h.idle(10)
		}),
		shows: func(h *harness) bool { return h.sends("w-m1") > 0 },
	}
	weakCases["weak-content-dedup"] = weakCase{
		run: withOrder(func(h *harness) {
			h.at(3, order("m2", "c1", "a@x", "ORD-1"))
			h.idle(10)
		}),
		shows: func(h *harness) bool { return h.workFor("m2") == "" },
	}
	weakCases["weak-lazy-mode"] = weakCase{
		rules: append(supportRules(), scenarios.Rule{ID: "gate",
			When: scenarios.Conditions{Posture: strp("vip-only")}, Overrides: []string{"support"}}),
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.at(2, posture("vip-only"))
			h.at(8, order("m2", "c2", "b@x", "ORD-2"))
		},
		shows: func(h *harness) bool { return h.workFor("m2") != "" },
	}
}
