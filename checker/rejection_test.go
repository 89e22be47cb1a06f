package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// bodyAgain is a second draft of m1's reply: a new draft, with the anchor.
const bodyAgain = "About ORD-1001: it ships tomorrow, we checked again."

// reject schedules and fires a valid rejection of a draft at tick.
func (w *world) reject(id, msg, draftID string, tick int) {
	w.schedule(id, msg, tick, scenarios.DecisionReject, "")
	w.fire(id, draftID, hashOf(w.body(draftID)), scenarios.DecisionReject, tick)
}

// rejected is m1's draft d1 rejected at 2 and abandoned for it: the end the
// spec's kernel gives a rejection.
func rejected(t *testing.T) *world {
	w := opened(t, MaxLevel, 30)
	w.reject("ap1", "m1", "d1", 2)
	w.resolve("w1", sandbox.OutcomeAbandoned, "rejected", 2)
	w.state(2, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
	return w
}

// sendsAfterRejection is the guard's question, asked of both oracles.
func sendsAfterRejection(t *testing.T, in Input) (Verdict, Answer) {
	t.Helper()
	return guardAnswer(t, in, "sends-after-rejection")
}

func TestRejectThenApproveAfterARestartSendsNothing(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := rejected(t)
		w.crash(3, 0)
		w.approve("ap2", "m1", "d1", 4)
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Empty(t, v.Violations)
		assert.Positive(t, v.Judged["L2.send-after-rejection"])
		assert.Zero(t, a.Level)
		assert.Zero(t, a.History)
	})
}

func TestSendOnAnApprovalAfterAnUnrecordedRejection(t *testing.T) {
	// The rejection was never acted on: no abandonment, and the later
	// approval sends. Nothing but the rejection's finality forbids it.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.reject("ap1", "m1", "d1", 2)
		w.approve("ap2", "m1", "d1", 4)
		w.send("e1", "d1", 4)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 4)
		w.state(4, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Equal(t, []string{"L2.send-after-rejection"}, ids(v))
		got := only(v, "L2.send-after-rejection")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"outbox.jsonl:1", "approvals.jsonl:1"}, got[0].Evidence)
		assert.Equal(t, "d1", got[0].DraftID)
		assert.Equal(t, 4, got[0].Tick)
		assert.Equal(t, Fail, v.Levels[2])
		assert.Equal(t, Pass, v.Levels[1])
		assert.Equal(t, 1, a.Level)
		assert.Equal(t, 1, a.History)
	})
}

func TestSendOnAnApprovalAfterARecordedRejection(t *testing.T) {
	// Abandoned, then sent: L1 reports the contradiction, L2 the send the
	// rejection forbade.
	readings(t, func(t *testing.T, withLog bool) {
		w := rejected(t)
		w.approve("ap2", "m1", "d1", 4)
		w.send("e1", "d1", 4)
		in := w.input(withLog)
		v, a := sendsAfterRejection(t, in)
		assert.Equal(t, []string{"L1.resolution-conflict", "L2.send-after-rejection"}, ids(v))
		assert.Equal(t, 1, a.Level)
		assert.Equal(t, 1, a.History)
		_, c := guardAnswer(t, in, "contradictions")
		assert.Equal(t, 1, c.Level)
		// The history oracle: the send after the abandonment (H4, cause
		// resolution), the contradiction in the audit and in state.json
		// (H7), and the send after the rejection (H11).
		hv := history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log}))
		assert.Equal(t, 1, hv.Count(history.H11SendAfterRejection, ""))
		assert.Equal(t, 1, hv.Count(history.H4EffectAfterCancellation, history.CauseResolution))
		assert.Equal(t, 1, hv.Count(history.H7ClaimContradiction, history.CauseAbandonedWithSend))
		assert.Equal(t, 1, hv.Count(history.H7ClaimContradiction, history.CauseStateAbandoned))
	})
}

func TestApproveThenRejectSendsOnTheApproval(t *testing.T) {
	// D82: the approval came first, so a send after the later rejection is
	// on an authority the rejection did not take back.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.crash(2, 0)
		w.reject("ap2", "m1", "d1", 3)
		w.send("e1", "d1", 3)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
		w.state(3, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Empty(t, v.Violations)
		assert.Zero(t, v.Judged["L2.send-after-rejection"], "the rejection was not the first decision")
		assert.Zero(t, a.History)
	})
}

func TestSendOfANewDraftAfterTheRejection(t *testing.T) {
	// D155: the rejection of the latest draft ends the work item; a
	// re-draft and a genuine approval of it do not open it again.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.reject("ap1", "m1", "d1", 2)
		w.draft("d2", "w1", "c1", bodyAgain, 3)
		w.approve("ap2", "m1", "d2", 4)
		w.send("e1", "d2", 4)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 4)
		w.state(4, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Equal(t, []string{"L2.send-after-rejection"}, ids(v))
		got := only(v, "L2.send-after-rejection")
		require.Len(t, got, 1)
		assert.Equal(t, "d2", got[0].DraftID)
		assert.Equal(t, []string{"outbox.jsonl:1", "approvals.jsonl:1"}, got[0].Evidence)
		assert.Equal(t, 1, a.History)
	})
}

func TestRejectionOfAReplacedDraftEndsOnlyThatDraft(t *testing.T) {
	// A rejection that reaches a draft the work item already replaced
	// ends that draft, not the item: the new draft's own approval sends.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.draft("d2", "w1", "c1", bodyAgain, 2)
		w.reject("ap1", "m1", "d1", 3)
		w.approve("ap2", "m1", "d2", 4)
		w.send("e1", "d2", 4)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 4)
		w.state(4, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Empty(t, v.Violations)
		assert.Zero(t, a.Level)
		assert.Zero(t, a.History)
	})
	t.Run("the replaced draft itself stays rejected", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := opened(t, MaxLevel, 30)
			w.draft("d2", "w1", "c1", bodyAgain, 2)
			w.reject("ap1", "m1", "d1", 3)
			w.schedule("ap2", "m1", 4, scenarios.DecisionApprove, "")
			w.fire("ap2", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 4)
			w.send("e1", "d1", 4)
			_, a := sendsAfterRejection(t, w.input(withLog))
			assert.Equal(t, 1, a.Level)
			assert.Equal(t, 1, a.History)
		})
	})
}

func TestRejectionAndRedraftInOneTick(t *testing.T) {
	// D156: with a run log the harness wrote the rejection first, so d1
	// was the latest draft and the item ended; without one a draft stamped
	// with the rejection's tick may have come first (D3's allowance), so d1
	// was already replaced and only d1 is ended.
	build := func(t *testing.T) *world {
		w := opened(t, MaxLevel, 30)
		w.reject("ap1", "m1", "d1", 3)
		w.draft("d2", "w1", "c1", bodyAgain, 3)
		w.approve("ap2", "m1", "d2", 4)
		w.send("e1", "d2", 4)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 4)
		w.state(4, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		return w
	}
	_, a := sendsAfterRejection(t, build(t).input(true))
	assert.Equal(t, 1, a.Level)
	assert.Equal(t, 1, a.History)
	_, a = sendsAfterRejection(t, build(t).input(false))
	assert.Zero(t, a.Level)
	assert.Zero(t, a.History)
}

func TestRejectionAndApprovalInOneTick(t *testing.T) {
	// D156: two harness lines of one tick keep the order they were written
	// in; the first valid decision is the one that stands, and a send of
	// that tick comes after both (D3).
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.reject("ap1", "m1", "d1", 3)
		w.approve("ap2", "m1", "d1", 3)
		w.send("e1", "d1", 3)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
		w.state(3, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		_, a := sendsAfterRejection(t, w.input(withLog))
		assert.Equal(t, 1, a.Level, "the rejection was written first")
		assert.Equal(t, 1, a.History)
	})
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.approve("ap1", "m1", "d1", 3)
		w.reject("ap2", "m1", "d1", 3)
		w.send("e1", "d1", 3)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
		w.state(3, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Empty(t, v.Violations, "the approval was written first")
		assert.Zero(t, a.History)
	})
}

func TestSendInTheRejectionTick(t *testing.T) {
	// A send stamped with the rejection's tick is after it (D3), with or
	// without a run log; one of the tick before is not.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.reject("ap1", "m1", "d1", 3)
		w.schedule("ap2", "m1", 2, scenarios.DecisionApprove, scenarios.ForgeDangling)
		w.send("e1", "d1", 3)
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Len(t, only(v, "L2.send-after-rejection"), 1)
		assert.Len(t, only(v, "L2.approval-binding"), 1, "and nothing authorized it")
		assert.Equal(t, 1, a.History)
	})
	t.Run("a send stamped before the rejection without a log", func(t *testing.T) {
		w := opened(t, MaxLevel, 30)
		w.approve("ap0", "m1", "d1", 2)
		w.reject("ap1", "m1", "d1", 3)
		w.sendAt("e1", "d1", 3, 2)
		_, a := sendsAfterRejection(t, w.input(false))
		assert.Zero(t, a.Level, "approved first: the rejection is not final")
	})
}

func TestSendAfterRejectionOfAnotherWorkItem(t *testing.T) {
	// A rejection ends its own work item only: a follow-up's work sends.
	readings(t, func(t *testing.T, withLog bool) {
		w := rejected(t)
		w.deliver("m2", "c1", "alice@example.com", subjectM1, "And ORD-1001 again?", 5)
		w.admit("w2", "m2", 5)
		w.claim("w2", agent1, sandbox.ClaimWon, 5)
		w.draft("d2", "w2", "c1", bodyAgain, 5)
		w.approve("ap2", "m2", "d2", 6)
		w.send("e2", "d2", 6)
		w.resolve("w2", sandbox.OutcomeCompleted, "sent", 6)
		w.state(6, []item{{"w1", sandbox.OutcomeAbandoned, agent1}, {"w2", sandbox.OutcomeCompleted, agent1}})
		v, a := sendsAfterRejection(t, w.input(withLog))
		assert.Empty(t, only(v, "L2.send-after-rejection"))
		assert.Zero(t, a.History)
	})
}
