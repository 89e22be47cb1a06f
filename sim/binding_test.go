package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// holding admits m1 as w-m1 at its first step, writes the given claim
// records and state.json, and then does nothing more.
func holding(claims []map[string]any, state string) sandbox.Factory {
	return func() sandbox.Implementation {
		done := false
		return stepFunc(func(env *sandbox.Env) error {
			inbox, _ := env.Files.Read(sandbox.Inbox)
			if done || len(inbox) == 0 {
				return nil
			}
			done = true
			if err := sandbox.AppendJSON(env.Files, sandbox.Audit, sandbox.AuditRecord{Event: sandbox.EventAdmission,
				At: 1, WorkID: "w-m1", MessageID: "m1", RulesHash: "x"}); err != nil {
				return err
			}
			for _, c := range claims {
				if err := sandbox.AppendJSON(env.Files, sandbox.Audit, c); err != nil {
					return err
				}
			}
			if state == "" {
				return nil
			}
			return env.Files.Write(sandbox.State, []byte(state))
		})
	}
}

func claimRec(agent, outcome string) map[string]any {
	return map[string]any{"event": sandbox.EventClaim, "at": 1, "work_id": "w-m1", "agent_id": agent,
		"outcome": outcome, "reason": nil}
}

func stateWith(assigned, assignment string) string {
	a := "null"
	if assigned != "" {
		a = `"` + assigned + `"`
	}
	list := ""
	if assignment != "" {
		list = `{"work_id":"w-m1","agent_id":"` + assignment + `"}`
	}
	return `{"work_items":[{"work_id":"w-m1","status":"open","assigned_agent":` + a + `}],"agents":[],"assignments":[` + list + `]}`
}

func TestAgentDeathBindsThroughEverySource(t *testing.T) {
	for _, tc := range []struct {
		name   string
		claims []map[string]any
		state  string
		want   string // "" when the signal must stay unfired
	}{
		{"won claim only", []map[string]any{claimRec("agent-2", sandbox.ClaimWon)}, "", "agent-2"},
		{"assigned_agent only", nil, stateWith("agent-3", ""), "agent-3"},
		{"assignments only", nil, stateWith("", "agent-4"), "agent-4"},
		{"claims before the snapshot", []map[string]any{claimRec("agent-2", sandbox.ClaimWon)},
			stateWith("agent-3", "agent-3"), "agent-2"},
		{"the latest current winner", []map[string]any{claimRec("agent-1", sandbox.ClaimWon),
			claimRec("agent-2", sandbox.ClaimWon), claimRec("agent-1", sandbox.ClaimStoodDown)}, "", "agent-2"},
		{"a winner that stood down holds nothing", []map[string]any{claimRec("agent-2", sandbox.ClaimWon),
			claimRec("agent-2", sandbox.ClaimStoodDown)}, stateWith("agent-3", ""), "agent-3"},
		{"claimed is not held", []map[string]any{claimRec("agent-2", sandbox.ClaimClaimed)}, "", ""},
		{"no source names an agent", nil, stateWith("", ""), ""},
		{"a snapshot without the schema's fields", nil,
			`{"work_items":[{"work_id":"w-m1","status":"open"}],"agents":[],"assignments":[{"work_id":"w-m1","agent_id":"agent-4"}]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := toyBundle()
			b.Approvals = nil
			b.Signals = []scenarios.Signal{{ID: "s1", At: 3, Type: scenarios.AgentDeath, Target: scenarios.Match{MessageID: "m1"}}}
			res := run(t, b, holding(tc.claims, tc.state), 1)
			sigs, _ := sandbox.ParseSignals(res.Files.View(sandbox.Signals))
			unfired := kinds(res, sandbox.LogUnfired)
			if tc.want == "" {
				assert.Empty(t, sigs)
				require.Len(t, unfired, 1)
				assert.Equal(t, "s1", unfired[0].ID)
				return
			}
			require.Len(t, sigs, 1)
			assert.Equal(t, tc.want, sigs[0].Rec.Target)
			assert.Equal(t, 3, sigs[0].Rec.At)
			assert.Empty(t, unfired)
		})
	}
}
