package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func TestDuplicateEffect(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, 1)
		w.send("e2", "d1", 3)
		w.draft("d2", "w1", "c1", bodyOK+" Again.", 4)
		w.send("e3", "d2", 4)
		w.send("e3", "d-other", 5)
		got := only(Check(w.input(withLog)), "L1.duplicate-effect")
		require.Len(t, got, 3)
		assert.Contains(t, got[0].Detail, "work item w1")
		assert.Equal(t, []string{"outbox.jsonl:1", "outbox.jsonl:2"}, got[0].Evidence)
		assert.Contains(t, got[1].Detail, "work item w1")
		assert.Contains(t, got[2].Detail, "effect id e3")
	})
}

func TestDuplicateWork(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, 1)
		w.duplicate("m1", 3)
		w.admit("w1", "m1", 3) // the same work item again is no fork
		w.admit("w2", "m1", 3)
		w.admit("w2", "m1", 4)
		got := only(Check(w.input(withLog)), "L1.duplicate-work")
		require.Len(t, got, 1)
		assert.Equal(t, "w2", got[0].WorkID)
		assert.Equal(t, "m1", got[0].MessageID)
		assert.Equal(t, []string{"audit.jsonl:1", "audit.jsonl:5"}, got[0].Evidence)
	})
}

// twoThreads delivers two threads of one customer with different anchors.
func twoThreads(t *testing.T) *world {
	w := newWorld(t, 1, 40)
	w.deliver("m1", "c1", "bob@x", "Order delivery problem", "Order ORD-1001 is late.", 1)
	w.deliver("m2", "c2", "bob@x", "Order delivery problem", "Order ORD-2002 is late.", 2)
	w.admit("w1", "m1", 1)
	w.admit("w2", "m2", 2)
	return w
}

func TestOwnAnchor(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"own anchor", "About ORD-2002: soon.", ""},
		{"sibling's anchor", "About ORD-1001: soon.", "carries anchor ORD-1001"},
		{"both anchors", "About ORD-2002 and ORD-1001.", "carries anchor ORD-1001"},
		{"no anchor", "Which order?", "does not carry its anchor ORD-2002"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := twoThreads(t)
				w.draft("d2", "w2", "c2", tc.body, 2)
				w.approve("ap2", "m2", "d2", 3)
				w.send("e2", "d2", 3)
				got := only(Check(w.input(withLog)), "L1.own-anchor")
				if tc.want == "" {
					assert.Empty(t, got)
					return
				}
				require.Len(t, got, 1)
				assert.Contains(t, got[0].Detail, tc.want)
				assert.Equal(t, []string{"outbox.jsonl:1", "drafts.jsonl:1"}, got[0].Evidence)
			})
		})
	}
}

func TestOwnAnchorThreadWithoutAnchor(t *testing.T) {
	w := newWorld(t, 1, 30)
	w.deliver("m1", "c1", "a@x", "Order question", "Do you ship abroad?", 1)
	w.admit("w1", "m1", 1)
	w.draft("d1", "w1", "c1", "About ORD-1001.", 1)
	w.approve("ap1", "m1", "d1", 2)
	w.send("e1", "d1", 2)
	got := only(Check(w.input(true)), "L1.own-anchor")
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Detail, "ORD-1001")
}

func TestOwnAnchorNestedAnchors(t *testing.T) {
	w := newWorld(t, 1, 30)
	w.b.Model.Anchors = []string{"ORD-1", "ORD-12"}
	w.deliver("m1", "c1", "a@x", "Order ORD-12", "Where is ORD-12?", 1)
	w.admit("w1", "m1", 1)
	w.draft("d1", "w1", "c1", "About ORD-12.", 1)
	w.approve("ap1", "m1", "d1", 2)
	w.send("e1", "d1", 2)
	// The thread mentions ORD-12, which contains ORD-1: both are its own.
	assert.Empty(t, only(Check(w.input(true)), "L1.own-anchor"))
}

func TestOwnAnchorThreadWithSeveralAnchors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		fails      bool
	}{
		{"the first", "About ORD-1001.", false},
		{"the second", "About ORD-2002.", false},
		{"one from outside", "About ORD-3003.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1, 30)
			w.b.Model.Anchors = append(w.b.Model.Anchors, "ORD-3003")
			w.deliver("m1", "c1", "a@x", "Order ORD-1001", "late", 1)
			w.deliver("m2", "c1", "a@x", "Order ORD-2002", "also late", 1)
			w.deliver("m3", "c2", "a@x", "Order ORD-3003", "late", 1)
			w.admit("w2", "m2", 1)
			w.draft("d2", "w2", "c1", tc.body, 1)
			w.approve("ap2", "m2", "d2", 2)
			w.send("e2", "d2", 2)
			assert.Equal(t, tc.fails, len(only(Check(w.input(true)), "L1.own-anchor")) == 1)
		})
	}
}

func TestOwnAnchorUsesOnlyWhatTheThreadHadShown(t *testing.T) {
	t.Run("an anchor arriving after the draft", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 1, 40)
			w.deliver("m1", "c1", "a@x", "Order question", "Do you ship abroad?", 1)
			w.admit("w1", "m1", 1)
			w.draft("d1", "w1", "c1", "Which order?", 1)
			w.deliver("m2", "c1", "a@x", "Re: Order question", "It is ORD-1001.", 2)
			w.approve("ap1", "m1", "d1", 3)
			w.send("e1", "d1", 3)
			assert.Empty(t, only(Check(w.input(withLog)), "L1.own-anchor"))
		})
	})
	t.Run("an anchor delivered after the answered message in the same tick", func(t *testing.T) {
		w := newWorld(t, 1, 40)
		w.deliver("m1", "c1", "a@x", "Order question", "Do you ship abroad?", 1)
		w.deliver("m2", "c1", "a@x", "Re: Order question", "It is ORD-1001.", 1)
		w.admit("w1", "m1", 1)
		w.draft("d1", "w1", "c1", "Which order?", 1)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		assert.Empty(t, only(Check(w.input(true)), "L1.own-anchor"))
	})
	t.Run("an anchor shown before the answered message", func(t *testing.T) {
		w := newWorld(t, 1, 40)
		w.deliver("m1", "c1", "a@x", "Order ORD-1001", "late", 1)
		w.deliver("m2", "c1", "a@x", "Re: Order", "Still waiting.", 5)
		w.admit("w2", "m2", 5)
		w.draft("d2", "w2", "c1", "Which order?", 5)
		w.approve("ap2", "m2", "d2", 6)
		w.send("e2", "d2", 6)
		got := only(Check(w.input(true)), "L1.own-anchor")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "does not carry its anchor ORD-1001")
	})
}

// followUp is the common story plus a follow-up in the same thread.
func followUp(t *testing.T) *world {
	w := happy(t, 1)
	w.deliver("m2", "c1", "alice@example.com", "Re: "+subjectM1, "Any news on ORD-1001?", 10)
	w.admit("w2", "m2", 10)
	w.draft("d2", "w2", "c1", "About ORD-1001: it left today.", 10)
	w.approve("ap2", "m2", "d2", 12)
	return w
}

func TestFollowUpReply(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		v := Check(followUp(t).input(withLog))
		got := only(v, "L1.follow-up-reply")
		require.Len(t, got, 1)
		assert.Equal(t, 20, got[0].Tick)
		assert.Equal(t, "m2", got[0].MessageID)
		assert.Empty(t, only(v, "L0.reply"))
		assert.Equal(t, Pass, v.Levels[0])
		assert.Equal(t, Fail, v.Levels[1])
	})
	t.Run("answered", func(t *testing.T) {
		w := followUp(t)
		w.send("e2", "d2", 12)
		w.resolve("w2", sandbox.OutcomeCompleted, "sent", 12)
		assert.Empty(t, Check(w.input(true)).Violations)
	})
}

// crashed is the common story with a crash landing after the approval and
// before the send.
func crashed(t *testing.T) *world {
	w := opened(t, 1, 40)
	w.approve("ap1", "m1", "d1", 2)
	w.crash(2, 1)
	return w
}

func TestCrashResolution(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		v := Check(crashed(t).input(withLog))
		got := only(v, "L1.crash-resolution")
		require.Len(t, got, 1)
		assert.Equal(t, 22, got[0].Tick)
		assert.Equal(t, "w1", got[0].WorkID)
		assert.Equal(t, "d1", got[0].DraftID)
		assert.Contains(t, got[0].Evidence, "drafts.jsonl:1")
		assert.Contains(t, got[0].Evidence, "approvals.jsonl:1")
	})
}

func TestCrashResolutionResolved(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(w *world)
	}{
		{"sent after the restart", func(w *world) {
			w.send("e1", "d1", 3)
			w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
		}},
		{"sent on the last tick of the budget", func(w *world) {
			w.send("e1", "d1", 22)
		}},
		{"abandoned with a record", func(w *world) {
			w.resolve("w1", sandbox.OutcomeAbandoned, "lost", 5)
		}},
		{"sent before the crash landed", func(w *world) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 1, 40)
				w.approve("ap1", "m1", "d1", 2)
				if tc.name == "sent before the crash landed" {
					w.send("e1", "d1", 2)
					w.crash(2, 2)
				} else {
					w.crash(2, 1)
					tc.after(w)
				}
				assert.Empty(t, only(Check(w.input(withLog)), "L1.crash-resolution"))
			})
		})
	}
	t.Run("not approved yet", func(t *testing.T) {
		w := opened(t, 1, 40)
		w.crash(1, 3)
		assert.Empty(t, only(Check(w.input(true)), "L1.crash-resolution"))
	})
	t.Run("the horizon ends first", func(t *testing.T) {
		w := crashed(t)
		w.b.Meta.Horizon = 21
		assert.Empty(t, only(Check(w.input(true)), "L1.crash-resolution"))
	})
}

func TestResolutionConflict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		build  func(w *world)
		detail string
	}{
		{"sent and abandoned", func(w *world) {
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
			w.resolve("w1", sandbox.OutcomeAbandoned, "changed mind", 3)
		}, "both sent and abandoned"},
		{"both outcomes", func(w *world) {
			w.resolve("w1", sandbox.OutcomeAbandoned, "x", 2)
			w.resolve("w1", sandbox.OutcomeCompleted, "y", 3)
		}, "both outcomes"},
		{"completed without a send", func(w *world) {
			w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
		}, "nothing was sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 1, 30)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L1.resolution-conflict")
				require.Len(t, got, 1)
				assert.Contains(t, got[0].Detail, tc.detail)
			})
		})
	}
	t.Run("abandoned without a send", func(t *testing.T) {
		w := opened(t, 1, 30)
		w.schedule("ap1", "m1", 2, scenarios.DecisionReject, "")
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionReject, 2)
		w.resolve("w1", sandbox.OutcomeAbandoned, "rejected", 2)
		assert.Empty(t, Check(w.input(true)).Violations)
	})
}

func TestCrashResolutionWhenNothingWasDrafted(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 1, 40)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.schedule("ap1", "m1", 3, scenarios.DecisionApprove, "")
		w.crash(4, 1)
		got := only(Check(w.input(withLog)), "L1.crash-resolution")
		require.Len(t, got, 1)
		assert.Equal(t, "m1", got[0].MessageID)
		assert.Equal(t, 24, got[0].Tick)
	})
	t.Run("crash before the approval was due", func(t *testing.T) {
		w := newWorld(t, 1, 40)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.schedule("ap1", "m1", 5, scenarios.DecisionApprove, "")
		w.crash(4, 1)
		assert.Empty(t, only(Check(w.input(true)), "L1.crash-resolution"))
	})
}
