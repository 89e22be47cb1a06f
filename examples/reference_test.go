package examples

import (
	"strings"
	"testing"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func strp(s string) *string { return &s }
func intp(n int) *int       { return &n }

// requireSafe fails the test with every safety problem of the run.
func requireSafe(t *testing.T, h *harness) {
	t.Helper()
	require.Empty(t, h.errs, "step errors")
	require.Zero(t, h.forced, "forced advances")
	require.Empty(t, h.safetyProblems())
}

func admittedIDs(h *harness) []string {
	var out []string
	for _, r := range h.audit() {
		if r.Event == sandbox.EventAdmission {
			out = append(out, r.MessageID)
		}
	}
	return out
}

func declinedIDs(h *harness) []string {
	var out []string
	for _, r := range h.audit() {
		if r.Event == eventDeclined {
			out = append(out, auditField(r, "message_id"))
		}
	}
	return out
}

func TestAdmission(t *testing.T) {
	gate := scenarios.Rule{ID: "gate", When: scenarios.Conditions{Posture: strp("vip-only")}, Overrides: []string{"orders"}}
	orders := scenarios.Rule{ID: "orders", Admit: true, When: scenarios.Conditions{SubjectContains: strp("order")}}
	returning := scenarios.Rule{ID: "returning", Admit: true,
		When: scenarios.Conditions{SubjectContains: strp("refund"), SenderHistoryMin: intp(1)}}
	short := scenarios.Rule{ID: "short", Admit: true,
		When: scenarios.Conditions{SubjectContains: strp("order"), ThreadLengthMax: intp(2)}}
	tests := []struct {
		name     string
		rules    []scenarios.Rule
		run      func(h *harness)
		admitted []string
		declined []string
	}{{
		name:  "subject match admits, no match declines",
		rules: []scenarios.Rule{orders},
		run: func(h *harness) {
			h.at(1, deliver("m1", "c1", "a@x", "My order", "hi"), deliver("m2", "c2", "b@x", "Hello", "hi"))
		},
		admitted: []string{"m1"}, declined: []string{"m2"},
	}, {
		name:  "posture in force now decides",
		rules: []scenarios.Rule{orders, gate},
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.at(2, posture("vip-only"), order("m2", "c2", "b@x", "ORD-2"))
			h.at(3, posture("normal"), order("m3", "c3", "c@x", "ORD-3"))
		},
		admitted: []string{"m1", "m3"}, declined: []string{"m2"},
	}, {
		name:  "sender history counts earlier distinct messages",
		rules: []scenarios.Rule{returning},
		run: func(h *harness) {
			h.at(1, deliver("m1", "c1", "a@x", "refund", "please"))
			h.at(2, duplicate("m1"))
			h.at(3, deliver("m2", "c2", "a@x", "refund again", "please"))
		},
		admitted: []string{"m2"}, declined: []string{"m1"},
	}, {
		name:  "thread length counts distinct messages of the conversation",
		rules: []scenarios.Rule{short},
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"), order("x1", "c9", "a@x", "ORD-2"))
			h.at(2, duplicate("m1"), order("m2", "c1", "a@x", "ORD-1"))
			h.at(3, order("m3", "c1", "a@x", "ORD-1"))
		},
		admitted: []string{"m1", "x1", "m2"}, declined: []string{"m3"},
	}, {
		name:  "a declined message stays declined after the rules change",
		rules: []scenarios.Rule{returning},
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.setRules([]scenarios.Rule{orders})
			h.at(2, duplicate("m1"), order("m2", "c2", "a@x", "ORD-2"))
		},
		admitted: []string{"m2"}, declined: []string{"m1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Reference(), []string{"agent-1"}, tt.rules)
			tt.run(h)
			h.idle(h.tick + 2)
			assert.Equal(t, tt.admitted, admittedIDs(h))
			assert.Equal(t, tt.declined, declinedIDs(h))
			requireSafe(t, h)
		})
	}
}

func TestAdmissionCarriesCurrentRulesHash(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	before := scenarios.RulesHash(h.mem.View(sandbox.Rules))
	changed := append(supportRules(), scenarios.Rule{ID: "extra", Admit: true,
		When: scenarios.Conditions{FromIn: &[]string{"vip@x"}}})
	h.setRules(changed)
	h.at(2, order("m2", "c2", "b@x", "ORD-2"))
	after := scenarios.RulesHash(h.mem.View(sandbox.Rules))
	require.NotEqual(t, before, after)
	adm := h.events(sandbox.EventAdmission, "w-m1")
	require.Len(t, adm, 1)
	assert.Equal(t, before, adm[0].RulesHash)
	adm = h.events(sandbox.EventAdmission, "w-m2")
	require.Len(t, adm, 1)
	assert.Equal(t, after, adm[0].RulesHash)
}

func TestLifecycle(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	require.Len(t, h.drafts(), 1)
	d := h.drafts()[0]
	assert.Equal(t, "w-m1", d.WorkID)
	assert.Equal(t, "c1", d.ConversationID)
	assert.Equal(t, contentHash(d.Body), d.ContentHash)
	assert.Equal(t, []string{"call-1"}, d.Origin.CallIDs)
	assert.Equal(t, 1, d.DeclaredAt)
	assert.Equal(t, statusDrafted, h.state().WorkItems[0].Status)
	assert.Empty(t, h.outbox(), "nothing is sent before an approval")

	h.idle(5)
	h.at(6, approve("ap1", "m1", "approve"))
	require.Len(t, h.outbox(), 1)
	assert.Equal(t, sandbox.Effect{EffectID: "e-" + d.DraftID, DraftID: d.DraftID, SentAt: 6}, h.outbox()[0])
	res := h.events(sandbox.EventResolution, "w-m1")
	require.Len(t, res, 1)
	assert.Equal(t, sandbox.OutcomeCompleted, res[0].Outcome)
	assert.Equal(t, sandbox.OutcomeCompleted, h.state().WorkItems[0].Status)
	requireSafe(t, h)
}

func TestRejectAbandons(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	h.at(2, approve("ap1", "m1", "reject"))
	h.at(3, approve("ap2", "m1", "approve"))
	assert.Empty(t, h.outbox())
	res := h.events(sandbox.EventResolution, "w-m1")
	require.Len(t, res, 1)
	assert.Equal(t, sandbox.OutcomeAbandoned, res[0].Outcome)
	assert.Equal(t, reasonRejected, res[0].Reason)
	requireSafe(t, h)
}

func TestDuplicateDeliveryIsOneWorkItem(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	h.at(2, duplicate("m1"))
	h.at(3, duplicate("m1"), duplicate("m1"))
	assert.Equal(t, []string{"m1"}, admittedIDs(h))
	assert.Len(t, h.drafts(), 1)
	assert.Equal(t, 1, h.model.calls)
	requireSafe(t, h)
}

func TestForgedApprovalsAreIgnored(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	h.at(2, forge("f1", "m1", true))
	h.at(3, forge("f2", "m1", false), forge("f3", "m1", true))
	assert.Empty(t, h.outbox(), "a forged approval sent the draft")
	var ignored []string
	for _, r := range h.audit() {
		if r.Event == eventApprovalIgnored {
			ignored = append(ignored, auditField(r, "approval_id")+":"+auditField(r, "reason"))
		}
	}
	assert.Equal(t, []string{"f1:unknown_draft", "f2:hash_mismatch", "f3:unknown_draft"}, ignored)

	h.at(4, approve("ap1", "m1", "approve"))
	assert.Equal(t, 1, h.sends("w-m1"))
	requireSafe(t, h)
}

func TestRedeliveredApprovalSendsOnce(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	h.at(2, approve("ap1", "m1", "approve"), redeliver("ap1"))
	h.at(3, redeliver("ap1"))
	h.at(4, approve("ap2", "m1", "approve"))
	assert.Len(t, h.outbox(), 1)
	assert.Len(t, h.events(eventApprovalAccepted, "w-m1"), 1)
	requireSafe(t, h)
}

func TestEscalation(t *testing.T) {
	tests := []struct {
		name   string
		run    func(h *harness)
		sends  int
		reason string
	}{{
		name: "before approval",
		run: func(h *harness) {
			h.at(3, escalate("s1", "m1"))
			h.at(5, approve("ap1", "m1", "approve"))
		},
		reason: sandbox.ReasonOperatorEscalation,
	}, {
		name: "with the approval in the same tick",
		run: func(h *harness) {
			h.at(3, approve("ap1", "m1", "approve"), escalate("s1", "m1"))
		},
		reason: sandbox.ReasonOperatorEscalation,
	}, {
		name: "after an approval accepted but not sent",
		run: func(h *harness) {
			h.atCrashStop(3, 1, approve("ap1", "m1", "approve"))
			require.Len(h.t, h.events(eventApprovalAccepted, "w-m1"), 1)
			require.Empty(h.t, h.outbox())
			h.at(4, escalate("s1", "m1"))
		},
		reason: sandbox.ReasonOperatorEscalation,
	}, {
		name: "after the send changes nothing",
		run: func(h *harness) {
			h.at(3, approve("ap1", "m1", "approve"))
			h.at(4, escalate("s1", "m1"))
		},
		sends: 1, reason: reasonSent,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			tt.run(h)
			h.idle(h.tick + 3)
			assert.Equal(t, tt.sends, h.sends("w-m1"))
			res := h.events(sandbox.EventResolution, "w-m1")
			require.Len(t, res, 1)
			assert.Equal(t, tt.reason, res[0].Reason)
			requireSafe(t, h)
		})
	}
}

func claimTrail(h *harness, work string) []string {
	var out []string
	for _, r := range h.events(sandbox.EventClaim, work) {
		out = append(out, r.AgentID+":"+r.Outcome+":"+r.Reason)
	}
	return out
}

func TestClaims(t *testing.T) {
	t.Run("one agent wins alone", func(t *testing.T) {
		h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
		h.at(1, order("m1", "c1", "a@x", "ORD-1"))
		assert.Equal(t, []string{"agent-1:won:sole_agent"}, claimTrail(h, "w-m1"))
		requireSafe(t, h)
	})
	t.Run("a contest has two claims, one win, one stand-down", func(t *testing.T) {
		h := newHarness(t, Reference(), []string{"agent-1", "agent-2", "agent-3"}, supportRules())
		h.at(1, order("m1", "c1", "a@x", "ORD-1"))
		trail := claimTrail(h, "w-m1")
		require.Len(t, trail, 4)
		var outcomes []string
		for _, c := range trail {
			outcomes = append(outcomes, strings.Split(c, ":")[1])
		}
		assert.Equal(t, []string{"claimed", "claimed", "won", "stood_down"}, outcomes)
		winner := strings.Split(trail[2], ":")[0]
		assert.Equal(t, winner, h.assigned("w-m1"))
		assert.Equal(t, "d-m1."+winner, h.drafts()[0].DraftID)
		requireSafe(t, h)
	})
}

func TestAgentDeath(t *testing.T) {
	t.Run("work moves to an alive agent and is redrafted", func(t *testing.T) {
		h := newHarness(t, Reference(), []string{"agent-1", "agent-2"}, supportRules())
		h.at(1, order("m1", "c1", "a@x", "ORD-1"))
		dead := h.assigned("w-m1")
		h.at(2, killOwner("s1", "m1"))
		heir := h.assigned("w-m1")
		require.NotEqual(t, dead, heir)
		trail := claimTrail(h, "w-m1")
		assert.Equal(t, []string{dead + ":stood_down:agent_death", heir + ":won:reassigned"}, trail[len(trail)-2:])
		require.Len(t, h.drafts(), 2)
		assert.Equal(t, "d-m1."+heir, h.drafts()[1].DraftID)
		assert.Equal(t, 2, h.model.calls)
		h.at(3, approve("ap1", "m1", "approve"))
		assert.Equal(t, h.drafts()[1].DraftID, h.outbox()[0].DraftID)
		requireSafe(t, h)
	})
	t.Run("an approved draft is sent as is by the heir", func(t *testing.T) {
		h := newHarness(t, Reference(), []string{"agent-1", "agent-2"}, supportRules())
		h.at(1, order("m1", "c1", "a@x", "ORD-1"))
		// The crash lands after the acceptance; the death arrives before the
		// restarted instance sends.
		dead := h.assigned("w-m1")
		h.atCrashStop(2, 1, approve("ap1", "m1", "approve"))
		require.Empty(t, h.outbox())
		h.at(3, killOwner("s1", "m1"))
		require.NotEqual(t, dead, h.assigned("w-m1"))
		require.Len(t, h.drafts(), 1, "an approved draft is not redrafted")
		assert.Equal(t, 1, h.sends("w-m1"))
		assert.Equal(t, 3, h.outbox()[0].SentAt)
		requireSafe(t, h)
	})
	t.Run("with no agent left the work is abandoned visibly", func(t *testing.T) {
		h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
		h.at(1, order("m1", "c1", "a@x", "ORD-1"))
		h.at(2, kill("s1", "agent-1"))
		h.at(3, approve("ap1", "m1", "approve"), order("m2", "c2", "b@x", "ORD-2"))
		assert.Empty(t, h.outbox())
		for _, w := range []string{"w-m1", "w-m2"} {
			res := h.events(sandbox.EventResolution, w)
			require.Len(t, res, 1, w)
			assert.Equal(t, reasonNoAgent, res[0].Reason)
		}
		assert.False(t, h.state().Agents[0].Alive)
		requireSafe(t, h)
	})
}

func TestPromptHoldsOnlyItsOwnThread(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	h.at(2, order("m2", "c2", "a@x", "ORD-2"))
	h.at(50, deliver("m3", "c2", "a@x", "Re: order", "Any news?"))
	require.Len(t, h.model.prompts, 3)
	assert.NotContains(t, h.model.prompts[1], "ORD-1")
	assert.NotContains(t, h.model.prompts[2], "ORD-1")
	assert.Contains(t, h.model.prompts[2], "ORD-2")
	assert.Contains(t, h.drafts()[2].Body, "ORD-2")
	requireSafe(t, h)
}

func TestStateIsRewrittenOnlyOnChange(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	writes := func() int { return strings.Count(strings.Join(h.trace, " "), "impl:"+sandbox.State) }
	n := writes()
	h.idle(10)
	assert.Equal(t, n, writes(), "idle ticks rewrote state.json")
	h.at(11, approve("ap1", "m1", "approve"))
	assert.Equal(t, n+1, writes())
	requireSafe(t, h)
}

// crashScript is a run with many writes per tick: a contested fleet, two
// messages at once, approvals, a redelivery and an agent death.
func crashScript(h *harness, crashTick, k int) {
	crashAt := func(tick int, events ...func(*harness)) {
		if tick == crashTick {
			h.atCrash(tick, k, events...)
			return
		}
		h.at(tick, events...)
	}
	crashAt(1, order("m1", "c1", "a@x", "ORD-1"), order("m2", "c2", "b@x", "ORD-2"))
	crashAt(2, approve("ap1", "m1", "approve"), killOwner("s1", "m2"))
	crashAt(3, approve("ap2", "m2", "approve"), redeliver("ap1"))
	h.idle(8)
}

func TestCrashAtEveryWrite(t *testing.T) {
	fleet := []string{"agent-1", "agent-2", "agent-3"}
	clean := newHarness(t, Reference(), fleet, supportRules())
	crashScript(clean, -1, 0)
	requireSafe(t, clean)
	require.Equal(t, 1, clean.sends("w-m1"))
	require.Equal(t, 1, clean.sends("w-m2"))

	for tick := 1; tick <= 3; tick++ {
		writes := writesAt(t, fleet, tick)
		require.Greater(t, writes, 1, "tick %d", tick)
		for k := -1; k <= writes; k++ {
			if k == 0 {
				continue
			}
			h := newHarness(t, Reference(), fleet, supportRules())
			crashScript(h, tick, k)
			require.Empty(t, h.safetyProblems(), "crash at tick %d after write %d", tick, k)
			require.Empty(t, h.errs)
			for _, w := range []string{"w-m1", "w-m2"} {
				require.Equal(t, 1, h.sends(w), "crash at tick %d after write %d: %s", tick, k, w)
				res := h.events(sandbox.EventResolution, w)
				require.Len(t, res, 1)
				require.Equal(t, sandbox.OutcomeCompleted, res[0].Outcome)
			}
		}
	}
}

// writesAt counts the reference's writes during one tick of crashScript.
func writesAt(t *testing.T, fleet []string, tick int) int {
	h := newHarness(t, Reference(), fleet, supportRules())
	mark := 0
	crashAt := func(at int, events ...func(*harness)) {
		if at == tick {
			mark = len(h.trace) + len(events)
		}
		h.at(at, events...)
	}
	crashAt(1, order("m1", "c1", "a@x", "ORD-1"), order("m2", "c2", "b@x", "ORD-2"))
	if tick == 1 {
		return implWrites(h.trace[mark:])
	}
	crashAt(2, approve("ap1", "m1", "approve"), killOwner("s1", "m2"))
	if tick == 2 {
		return implWrites(h.trace[mark:])
	}
	crashAt(3, approve("ap2", "m2", "approve"), redeliver("ap1"))
	return implWrites(h.trace[mark:])
}

func implWrites(trace []string) int {
	n := 0
	for _, w := range trace {
		if strings.HasPrefix(w, "impl:") {
			n++
		}
	}
	return n
}

func TestDeterminism(t *testing.T) {
	fleet := []string{"agent-1", "agent-2", "agent-3"}
	run := func(seed uint64) map[string]string {
		h := newHarness(t, Reference(), fleet, supportRules())
		h.seed = seed
		crashScript(h, 2, 3)
		return h.files()
	}
	assert.Equal(t, run(1), run(1))
	// The seed is the only source of the reference's own choices.
	differs := false
	for seed := uint64(2); seed < 12 && !differs; seed++ {
		differs = run(seed)[sandbox.Audit] != run(1)[sandbox.Audit]
	}
	assert.True(t, differs, "no seed changed the contest")
}

func TestStepWithoutClockIsAnError(t *testing.T) {
	env := &sandbox.Env{Files: sandbox.NewMemory(), Model: &fakeModel{}}
	assert.Error(t, Reference()().Step(env))
	assert.Error(t, Reference()().Step(nil))
}
