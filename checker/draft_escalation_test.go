package checker

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// draftAt declares a draft at tick whose own declared_at says own.
func (w *world) draftAt(id, work, conv, body string, tick, own int) {
	w.calls++
	call := fmt.Sprintf("call-%d", w.calls)
	w.appendLine(sandbox.ModelCalls, mustLine(w.t, sandbox.ModelCall{CallID: call, At: tick, Prompt: "p", Reply: body}))
	w.impl(sandbox.Drafts, tick, mustLine(w.t, sandbox.Draft{DraftID: id, WorkID: work, ConversationID: conv, Body: body,
		ContentHash: hashOf(body), DeclaredAt: own, Origin: sandbox.Origin{CallIDs: []string{call}}}))
}

// draftsAfterEscalation is the guard's draft question, asked of both
// oracles.
func draftsAfterEscalation(t *testing.T, in Input) (Verdict, Answer) {
	t.Helper()
	return guardAnswer(t, in, "drafts-after-escalation")
}

func TestDraftBeforeEscalation(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, MaxLevel)
		abandonEscalated(w, 3)
		v, a := draftsAfterEscalation(t, w.input(withLog))
		assert.Empty(t, v.Violations)
		assert.Equal(t, Pass, v.Levels[4])
		assert.Zero(t, a.Level)
		assert.Zero(t, a.History)
	})
}

func TestDraftAfterEscalation(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, MaxLevel)
		abandonEscalated(w, 3)
		w.draft("d2", "w1", "c1", bodyOK, 4)
		v, a := draftsAfterEscalation(t, w.input(withLog))
		assert.Equal(t, []string{"L4.draft-after-escalation"}, ids(v))
		got := only(v, "L4.draft-after-escalation")
		require.Len(t, got, 1)
		assert.Equal(t, "d2", got[0].DraftID)
		assert.Equal(t, []string{"drafts.jsonl:2", "signals.jsonl:1"}, got[0].Evidence)
		assert.Equal(t, Fail, v.Levels[4])
		assert.Equal(t, 1, a.Level)
		assert.Equal(t, 1, a.History)
	})
}

func TestDraftInTheEscalationTick(t *testing.T) {
	// D3: the harness comes first in a tick, so a draft of the escalation's
	// tick is after it; without a log that is the strict reading too.
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, MaxLevel, 30)
		w.escalate("s1", "m1", "w1", 3)
		w.draft("d2", "w1", "c1", bodyOK, 3)
		abandonEscalated(w, 3)
		_, a := draftsAfterEscalation(t, w.input(withLog))
		assert.Equal(t, 1, a.Level)
	})
	t.Run("a draft stamped before the escalation without a log", func(t *testing.T) {
		w := opened(t, MaxLevel, 30)
		w.draftAt("d2", "w1", "c1", bodyOK, 3, 2)
		w.escalate("s1", "m1", "w1", 3)
		abandonEscalated(w, 3)
		_, a := draftsAfterEscalation(t, w.input(false))
		assert.Zero(t, a.Level)
		_, a = draftsAfterEscalation(t, w.input(true))
		assert.Equal(t, 1, a.Level, "the log shows when it was written")
	})
}

func TestForkDraftsAfterEscalation(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := forked(t)
		w.draft("d3", "w2", "c1", bodyOK, 4)
		v, a := draftsAfterEscalation(t, w.input(withLog))
		got := only(v, "L4.draft-after-escalation")
		require.Len(t, got, 1)
		assert.Equal(t, "w2", got[0].WorkID)
		assert.Contains(t, got[0].Detail, "same message as work item w1")
		assert.Equal(t, 1, a.History)
	})
}

func TestDraftAfterEscalatingFinishedWork(t *testing.T) {
	// D16: escalating finished work changes nothing, but work done on the
	// item after the escalation is still reported, as a send would be.
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, MaxLevel)
		w.escalate("s1", "m1", "w1", 5)
		w.draft("d2", "w1", "c1", bodyOK, 6)
		v, a := draftsAfterEscalation(t, w.input(withLog))
		assert.Len(t, only(v, "L4.draft-after-escalation"), 1)
		assert.Equal(t, 1, a.History)
	})
}

func TestDraftAfterEscalationOfUnadmittedWork(t *testing.T) {
	// An escalation naming a work id never admitted is ignored (D16).
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, MaxLevel)
		w.escalate("s1", "m1", "w9", 3)
		w.draft("d9", "w9", "c1", bodyOK, 4)
		assert.Empty(t, only(Check(w.input(withLog)), "L4.draft-after-escalation"))
	})
}
