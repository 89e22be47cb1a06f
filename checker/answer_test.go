package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// unadmitted is the common story told by an implementation that writes no
// admission records: m1 arrives at 1 and is drafted as w1 in its own
// conversation; the bundle approves it at 2.
func unadmitted(t *testing.T, top int) *world {
	w := newWorld(t, top, 30)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.approve("ap1", "m1", "d1", 2)
	return w
}

func TestReplyWithoutAdmission(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := unadmitted(t, 2)
		w.send("e1", "d1", 2)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
		v := Check(w.input(withLog))
		assert.Equal(t, []string{"L2.admission-missing", "L2.admission-record"}, ids(v),
			"no admission record fails L2 and only L2")
		assert.Equal(t, Pass, v.Levels[0])
		assert.Equal(t, Pass, v.Levels[1])
		assert.Equal(t, Fail, v.Levels[2])
	})
}

func TestReplyWithoutAdmissionMustAnswerItsMessage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(w *world)
	}{
		{"sent in another conversation", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.deliver("m2", "c2", "bob@example.com", "Order ORD-2002", "Where is ORD-2002?", 1)
			w.draft("d1", "w1", "c2", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
		}},
		{"a later draft of its work item sent in another conversation", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.deliver("m2", "c2", "bob@example.com", "Order ORD-2002", "Where is ORD-2002?", 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.draft("d2", "w1", "c2", bodyOK+" Again.", 2)
			w.schedule("ap1", "m1", 3, scenarios.DecisionApprove, "")
			w.fire("ap1", "d2", hashOf(bodyOK+" Again."), scenarios.DecisionApprove, 3)
			w.send("e1", "d2", 3)
		}},
		{"sent in a conversation the inbox never had", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.draft("d1", "w1", "c9", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
		}},
		{"the sent draft was never declared", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d-never", 2)
		}},
		{"the draft was declared after the send", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
			w.send("e1", "d1", 2)
			w.draft("d1", "w1", "c1", bodyOK, 3)
		}},
		{"drafted and approved, never sent", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
		}},
		{"drafted before the message arrived", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 3)
			w.draft("d1", "w1", "c1", bodyOK, 2)
			w.approve("ap1", "m1", "d1", 4)
			w.send("e1", "d1", 4)
		}},
		{"the message is already another work item's", func(w *world) {
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.admit("w1", "m1", 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
			w.draft("d9", "w9", "c1", bodyOK+" Sorry.", 2)
			w.fire("ap9", "d9", hashOf(bodyOK+" Sorry."), scenarios.DecisionApprove, 3)
			w.send("e9", "d9", 3)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 0, 30)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L0.reply")
				require.Len(t, got, 1)
				assert.Equal(t, "m1", got[0].MessageID)
			})
		})
	}
}

// thread delivers m1 at 1 and its follow-up m2 at 10 in one conversation,
// both approved by the bundle, and has the implementation write no
// admission records.
func thread(t *testing.T) *world {
	w := newWorld(t, 1, 40)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.deliver("m2", "c1", "alice@example.com", "Re: "+subjectM1, "Any news on ORD-1001?", 10)
	return w
}

const bodyOK2 = "About ORD-1001: it left today."

func TestOneReplyAnswersOneMessage(t *testing.T) {
	t.Run("a work item for each message answers both", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := thread(t)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
			w.draft("d2", "w2", "c1", bodyOK2, 10)
			w.approve("ap2", "m2", "d2", 11)
			w.send("e2", "d2", 11)
			v := Check(w.input(withLog))
			assert.Empty(t, only(v, "L0.reply"))
			assert.Empty(t, only(v, "L1.follow-up-reply"))
			assert.Equal(t, Pass, v.Levels[1])
		})
	})
	for _, tc := range []struct {
		name  string
		build func(w *world)
	}{
		{"one reply after both arrived", func(w *world) {
			w.draft("d1", "w1", "c1", bodyOK2, 10)
			w.fire("ap1", "d1", hashOf(bodyOK2), scenarios.DecisionApprove, 10)
			w.send("e1", "d1", 11)
			w.b.Approvals = append(w.b.Approvals,
				scenarios.Approval{ID: "ap1", At: 2, Match: scenarios.Match{MessageID: "m1"}, Decision: scenarios.DecisionApprove},
				scenarios.Approval{ID: "ap2", At: 11, Match: scenarios.Match{MessageID: "m2"}, Decision: scenarios.DecisionApprove})
		}},
		{"one work item sent twice", func(w *world) {
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
			w.draft("d2", "w1", "c1", bodyOK2, 10)
			w.approve("ap2", "m2", "d2", 11)
			w.send("e2", "d2", 11)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := thread(t)
				tc.build(w)
				v := Check(w.input(withLog))
				assert.Empty(t, only(v, "L0.reply"), "the first message has its reply")
				got := only(v, "L1.follow-up-reply")
				require.Len(t, got, 1, "the same reply cannot answer the follow-up too")
				assert.Equal(t, "m2", got[0].MessageID)
				assert.Empty(t, got[0].WorkID, "no work item answers it")
			})
		})
	}
	t.Run("a message no rule admits is not work", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 1, 40)
			w.deliver("m1", "c1", "alice@example.com", "Hello", "Hi there", 1)
			w.deliver("m2", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 3)
			w.draft("d1", "w1", "c1", bodyOK, 3)
			w.approve("ap1", "m2", "d1", 4)
			w.send("e1", "d1", 4)
			assert.Empty(t, only(Check(w.input(withLog)), "L1.follow-up-reply"))
		})
	})
}

func TestIdentityLivenessWithoutAdmission(t *testing.T) {
	// m1 and m2 share a subject in two conversations; both are approved.
	build := func(t *testing.T, conv2 string) *world {
		w := twins(t)
		w.draft("d1", "w1", "c1", "About ORD-1001.", 2)
		w.draft("d2", "w2", conv2, "About ORD-2002.", 2)
		w.approve("ap1", "m1", "d1", 3)
		w.approve("ap2", "m2", "d2", 3)
		w.send("e1", "d1", 3)
		w.send("e2", "d2", 3)
		return w
	}
	readings(t, func(t *testing.T, withLog bool) {
		assert.Empty(t, only(Check(build(t, "c2").input(withLog)), "L5.approved-send"))
		got := only(Check(build(t, "c1").input(withLog)), "L5.approved-send")
		require.Len(t, got, 1, "a reply in the sibling's conversation is not m2's reply")
		assert.Equal(t, "m2", got[0].MessageID)
	})
}

func TestOwnAnchorWithoutAdmission(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		fails      bool
	}{
		{"carries its thread's anchor", bodyOK, false},
		{"carries no anchor", "It ships tomorrow.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 1, 30)
				w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
				w.draft("d1", "w1", "c1", tc.body, 1)
				w.approve("ap1", "m1", "d1", 2)
				w.send("e1", "d1", 2)
				assert.Equal(t, tc.fails, len(only(Check(w.input(withLog)), "L1.own-anchor")) == 1)
			})
		})
	}
}

func TestCrashResolutionWithoutAdmission(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := unadmitted(t, 1)
		w.crash(2, 1)
		w.send("e1", "d1", 3)
		assert.Empty(t, only(Check(w.input(withLog)), "L1.crash-resolution"), "sent after the restart")
	})
	readings(t, func(t *testing.T, withLog bool) {
		w := unadmitted(t, 1)
		w.crash(2, 1)
		got := only(Check(w.input(withLog)), "L1.crash-resolution")
		require.Len(t, got, 1, "the work item and its message are one pending unit")
		assert.Equal(t, "w1", got[0].WorkID)
	})
}

func TestReplyIsAValidOutboxLine(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 0, 30)
		w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
		w.send("e1", "d1", 2)
		w.draft("d1", "w1", "c1", bodyOK, 3)
		v := Check(w.input(withLog))
		require.Len(t, only(v, "L0.outbox-declared"), 1)
		got := only(v, "L0.reply")
		require.Len(t, got, 1, "a line sent before its draft was declared is no valid reply")
		assert.Equal(t, "w1", got[0].WorkID)
	})
}

// threadKeyed is told by an implementation that keys work on the
// conversation: m1 is admitted, drafted, approved and sent as work item c1;
// the follow-up m2 arrives at 55 and is admitted into the same work item.
func threadKeyed(t *testing.T) *world {
	w := newWorld(t, 5, 80)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.admit("c1", "m1", 1)
	w.draft("d1", "c1", "c1", bodyOK, 1)
	w.approve("ap1", "m1", "d1", 3)
	w.send("e1", "d1", 3)
	w.deliver("m2", "c1", "alice@example.com", "Re: Order ORD-1001 late", "Any news?", 55)
	w.admit("c1", "m2", 55)
	return w
}

// A line sent before a message arrived is no reply to it, whatever work
// item it was sent for (D44).
func TestReplyMustFollowItsMessage(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := threadKeyed(t)
		// The harness binds m2's approval to the work item's latest
		// draft, d1, already sent; the implementation does nothing more.
		w.schedule("ap2", "m2", 57, scenarios.DecisionApprove, "")
		w.fire("ap2", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 57)
		v := Check(w.input(withLog))
		got := only(v, "L1.follow-up-reply")
		require.Len(t, got, 1, "m1's reply of tick 3 does not answer m2")
		assert.Equal(t, "m2", got[0].MessageID)
		assert.Len(t, only(v, "L5.approved-send"), 1)
		assert.Len(t, only(v, "L5.distinct-work"), 1)
		assert.Empty(t, only(v, "L0.reply"))
	})
	t.Run("pending at a crash", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := threadKeyed(t)
			w.schedule("ap2", "m2", 57, scenarios.DecisionApprove, "")
			w.fire("ap2", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 57)
			w.crash(58, 0)
			got := only(Check(w.input(withLog)), "L1.crash-resolution")
			require.Len(t, got, 1, "the thread's old send does not settle m2")
			assert.Equal(t, "m2", got[0].MessageID)
		})
	})
	t.Run("a reply drafted in the message's own tick", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 1, 80)
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.admit("w1", "m1", 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.approve("ap1", "m1", "d1", 1)
			w.send("e1", "d1", 1)
			w.deliver("m2", "c1", "alice@example.com", "Re: Order ORD-1001 late", "Any news?", 55)
			w.admit("w2", "m2", 55)
			w.draft("d2", "w2", "c1", bodyOK, 55)
			w.approve("ap2", "m2", "d2", 55)
			w.send("e2", "d2", 55)
			assert.Empty(t, Check(w.input(withLog)).Violations)
		})
	})
	t.Run("drafted after the first delivery, before a duplicate", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 1, 30)
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.admit("w1", "m1", 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.duplicate("m1", 2)
			w.approve("ap1", "m1", "d1", 3)
			w.send("e1", "d1", 3)
			assert.Empty(t, Check(w.input(withLog)).Violations)
		})
	})
}
