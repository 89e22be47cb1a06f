package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// escalated is the l4 story: m1 drafted at 1, escalated at 3, approved at 6.
func escalated(t *testing.T, top int) *world {
	w := opened(t, top, 30)
	w.escalate("s1", "m1", "w1", 3)
	return w
}

// abandonEscalated is the correct reaction to the escalation at tick t.
func abandonEscalated(w *world, t int) {
	w.resolve("w1", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, t)
	w.state(t, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
}

func TestEscalationHandled(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, MaxLevel)
		abandonEscalated(w, 3)
		w.approve("ap1", "m1", "d1", 6)
		assert.Empty(t, Check(w.input(withLog)).Violations)
	})
}

func TestSendAfterEscalation(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, 5)
		w.approve("ap1", "m1", "d1", 6)
		w.send("e1", "d1", 6)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 6)
		w.state(6, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		v := Check(w.input(withLog))
		assert.Equal(t, []string{"L4.escalation-outcome", "L4.escalation-resolution", "L4.send-after-escalation",
			"L5.escalated-send", "L5.escalation-resolution"}, ids(v))
		got := only(v, "L4.send-after-escalation")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"outbox.jsonl:1", "signals.jsonl:1"}, got[0].Evidence)
		assert.Equal(t, Fail, v.Levels[4])
		assert.Equal(t, Fail, v.Levels[5])
		assert.Equal(t, Pass, v.Levels[3])
	})
}

func TestSendInTheEscalationTick(t *testing.T) {
	// Without a log, a send stamped with the escalation's tick counts as
	// after it (the strict reading); with a log the harness wrote the
	// escalation first, so it is after it too.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 4, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.escalate("s1", "m1", "w1", 3)
		w.send("e1", "d1", 3)
		assert.Len(t, only(Check(w.input(withLog)), "L4.send-after-escalation"), 1)
	})
	t.Run("a send stamped before the escalation without a log", func(t *testing.T) {
		w := opened(t, 4, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.sendAt("e1", "d1", 3, 2)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
		w.escalate("s1", "m1", "w1", 3)
		assert.Empty(t, only(Check(w.input(false)), "L4.send-after-escalation"))
		assert.Len(t, only(Check(w.input(true)), "L4.send-after-escalation"), 1, "the log shows when it was written")
	})
}

func TestEscalationOfCompletedWorkChangesNothing(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, MaxLevel)
		w.escalate("s1", "m1", "w1", 5)
		assert.Empty(t, Check(w.input(withLog)).Violations)
	})
}

func TestEscalationOutcome(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, 4)
		w.resolve("w1", sandbox.OutcomeAbandoned, "rejected", 4)
		w.state(4, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
		v := Check(w.input(withLog))
		assert.Equal(t, []string{"L4.escalation-outcome", "L4.escalation-resolution"}, ids(v))
		assert.Contains(t, only(v, "L4.escalation-outcome")[0].Detail, `reason "rejected"`)
	})
}

func TestEscalationResolution(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, 4)
		w.approve("ap1", "m1", "d1", 6)
		got := only(Check(w.input(withLog)), "L4.escalation-resolution")
		require.Len(t, got, 1)
		assert.Equal(t, 30, got[0].Tick)
		assert.Equal(t, "w1", got[0].WorkID)
	})
	t.Run("never admitted, so the escalation never fired", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 4, 30)
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.escalate("s1", "m1", "", 3)
			got := only(Check(w.input(withLog)), "L4.escalation-resolution")
			require.Len(t, got, 1)
			assert.Equal(t, "m1", got[0].MessageID)
		})
	})
	t.Run("an escalation naming unknown work is ignored", func(t *testing.T) {
		w := happy(t, 4)
		w.hline(sandbox.Signals, 5, sandbox.LogSignal, "s9", sandbox.SignalRecord{SignalID: "s9",
			SignalType: scenarios.OperatorEscalation, Target: "w-unknown", At: 5})
		assert.Empty(t, Check(w.input(true)).Violations)
	})
}

// twins is the l5 story: two messages with the same subject in two
// conversations.
func twins(t *testing.T) *world {
	w := newWorld(t, 5, 30)
	w.deliver("m1", "c1", "judy@x", "Order arrived damaged", "My order ORD-1001 is damaged.", 1)
	w.deliver("m2", "c2", "kim@x", "Order arrived damaged", "My order ORD-2002 is damaged.", 2)
	return w
}

func TestDistinctWork(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := twins(t)
		w.admit("w1", "m1", 1)
		w.admit("w1", "m2", 2)
		got := only(Check(w.input(withLog)), "L5.distinct-work")
		require.Len(t, got, 1)
		assert.Equal(t, "m2", got[0].MessageID)
		assert.Equal(t, []string{"audit.jsonl:1", "audit.jsonl:2"}, got[0].Evidence)
	})
}

func TestConversationIdentity(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := twins(t)
		w.admit("w1", "m1", 1)
		w.admit("w2", "m2", 2)
		w.draft("d1", "w1", "c1", "About ORD-1001.", 2)
		w.draft("d2", "w2", "c1", "About ORD-2002.", 2)
		got := only(Check(w.input(withLog)), "L5.conversation-identity")
		require.Len(t, got, 1)
		assert.Equal(t, "d2", got[0].DraftID)
		assert.Contains(t, got[0].Detail, "conversation c2")
	})
}

// A draft declared again in another conversation carries the wrong
// conversation_id too; L5 reports it beside L0.draft-redeclared (D46). A
// repeat in the right conversation is no L5 matter.
func TestConversationIdentityOfRedeclaredDrafts(t *testing.T) {
	redeclare := func(w *world, conv string) {
		w.impl(sandbox.Drafts, 3, mustLine(t, sandbox.Draft{DraftID: "d2", WorkID: "w2", ConversationID: conv,
			Body: "About ORD-2002.", ContentHash: hashOf("About ORD-2002."), DeclaredAt: 3,
			Origin: sandbox.Origin{ModelFree: true}}))
	}
	readings(t, func(t *testing.T, withLog bool) {
		w := twins(t)
		w.admit("w1", "m1", 1)
		w.admit("w2", "m2", 2)
		w.draft("d2", "w2", "c2", "About ORD-2002.", 2)
		redeclare(w, "c1")
		v := Check(w.input(withLog))
		got := only(v, "L5.conversation-identity")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"drafts.jsonl:2", "inbox.jsonl:2"}, got[0].Evidence)
		assert.Len(t, only(v, "L0.draft-redeclared"), 1)
		assert.Equal(t, 1, v.Judged["L5.conversation-identity"], "one draft")
	})
	t.Run("repeated in its own conversation", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := twins(t)
			w.admit("w1", "m1", 1)
			w.admit("w2", "m2", 2)
			w.draft("d2", "w2", "c2", "About ORD-2002.", 2)
			redeclare(w, "c2")
			v := Check(w.input(withLog))
			assert.Empty(t, only(v, "L5.conversation-identity"))
		})
	})
}

func TestIdentityLiveness(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := twins(t)
		w.schedule("ap1", "m1", 4, scenarios.DecisionApprove, "")
		w.escalate("s1", "m2", "", 5)
		v := Check(w.input(withLog))
		assert.Len(t, only(v, "L5.approved-send"), 1)
		assert.Len(t, only(v, "L5.escalation-resolution"), 1)
		assert.Equal(t, Fail, v.Levels[5])
	})
}

// approvedThenEscalated is the l6 story: approved at 2, escalated at 3.
func approvedThenEscalated(t *testing.T, approvedAt int) *world {
	w := opened(t, MaxLevel, 30)
	w.approve("ap1", "m1", "d1", approvedAt)
	w.escalate("s1", "m1", "w1", 3)
	return w
}

func TestPostApprovalEscalation(t *testing.T) {
	for _, approvedAt := range []int{2, 3} {
		readings(t, func(t *testing.T, withLog bool) {
			w := approvedThenEscalated(t, approvedAt)
			w.send("e1", "d1", 3)
			w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
			w.state(3, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
			v := Check(w.input(withLog))
			got := only(v, "L6.post-approval-send")
			require.Len(t, got, 1, "approved at %d", approvedAt)
			assert.Equal(t, []string{"outbox.jsonl:1", "signals.jsonl:1", "approvals.jsonl:1"}, got[0].Evidence)
			assert.Len(t, only(v, "L6.post-approval-abandon"), 1)
		})
	}
	t.Run("abandoned", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := approvedThenEscalated(t, 2)
			abandonEscalated(w, 3)
			assert.Empty(t, Check(w.input(withLog)).Violations)
		})
	})
	t.Run("approval after the escalation is L4's business", func(t *testing.T) {
		w := escalated(t, MaxLevel)
		w.approve("ap1", "m1", "d1", 6)
		w.send("e1", "d1", 6)
		v := Check(w.input(true))
		assert.Empty(t, only(v, "L6.post-approval-send"))
		assert.Len(t, only(v, "L4.send-after-escalation"), 1)
	})
	t.Run("never admitted", func(t *testing.T) {
		w := newWorld(t, MaxLevel, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.schedule("ap1", "m1", 4, scenarios.DecisionApprove, "")
		w.escalate("s1", "m1", "", 4)
		assert.Len(t, only(Check(w.input(true)), "L6.post-approval-abandon"), 1)
	})
}

// An operator_escalation record written before any escalation claims a
// takeover that had not happened: it resolves nothing and does not make the
// escalation that comes later find finished work (D40). A record of the
// escalation's own tick, and an item ended for another reason before the
// escalation, are as before.
func TestEscalationRecordBeforeTheEscalation(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.resolve("w1", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, 1)
		w.state(1, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
		w.escalate("s1", "m1", "w1", 3)
		w.approve("ap1", "m1", "d1", 6)
		v := Check(w.input(withLog))
		assert.Equal(t, []string{"L4.escalation-resolution", "L5.escalation-resolution"}, ids(v))
		got := only(v, "L4.escalation-resolution")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"signals.jsonl:1", "audit.jsonl:3"}, got[0].Evidence)
		assert.Contains(t, got[0].Detail, "before the escalation came")
		assert.Equal(t, 1, v.Judged["L4.escalation-outcome"], "the escalation finds live work")
	})
	t.Run("after an approval", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := opened(t, MaxLevel, 30)
			w.approve("ap1", "m1", "d1", 2)
			w.resolve("w1", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, 2)
			w.state(2, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
			w.escalate("s1", "m1", "w1", 3)
			v := Check(w.input(withLog))
			assert.Equal(t, []string{"L4.escalation-resolution", "L5.escalation-resolution", "L6.post-approval-abandon"}, ids(v))
		})
	})
	t.Run("recorded again after the escalation", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := opened(t, MaxLevel, 30)
			w.resolve("w1", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, 1)
			w.state(1, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
			w.escalate("s1", "m1", "w1", 3)
			w.resolve("w1", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, 3)
			w.approve("ap1", "m1", "d1", 6)
			assert.Empty(t, Check(w.input(withLog)).Violations)
		})
	})
	t.Run("recorded in the escalation's tick", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := escalated(t, MaxLevel)
			abandonEscalated(w, 3)
			w.approve("ap1", "m1", "d1", 6)
			assert.Empty(t, Check(w.input(withLog)).Violations)
		})
	})
	t.Run("rejected before the escalation", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := opened(t, MaxLevel, 30)
			w.schedule("ap1", "m1", 2, scenarios.DecisionReject, "")
			w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionReject, 2)
			w.resolve("w1", sandbox.OutcomeAbandoned, "rejected", 2)
			w.state(2, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
			w.escalate("s1", "m1", "w1", 3)
			assert.Empty(t, Check(w.input(withLog)).Violations, "escalating finished work changes nothing (D16)")
		})
	})
}
