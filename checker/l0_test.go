package checker

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func TestRecordFormat(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 0, 30)
		w.raw(sandbox.Drafts, 2, `{"draft_id":"d2","work_id":"w1","conversation_id":"c1","body":"x","declared_at":2,"origin":"model-free"}`)
		w.raw(sandbox.Outbox, 2, `not json`)
		w.raw(sandbox.Audit, 3, `{"event":"claim","at":3,"work_id":"w1","agent_id":"agent-1","reason":null}`)
		v := Check(w.input(withLog))
		got := only(v, "L0.record-format")
		require.Len(t, got, 3)
		byRef := map[string]Violation{}
		for _, x := range got {
			byRef[x.Evidence[0]] = x
		}
		assert.Contains(t, byRef["drafts.jsonl:2"].Detail, "content_hash")
		assert.Contains(t, byRef["outbox.jsonl:1"].Detail, "not a JSON object")
		assert.Contains(t, byRef["audit.jsonl:3"].Detail, "outcome")
		assert.Equal(t, 3, byRef["audit.jsonl:3"].Tick)
		assert.Equal(t, Fail, v.Levels[0])
	})
}

func TestRecordFormatBlankLinesAreNotRecords(t *testing.T) {
	w := happy(t, 0)
	w.files[sandbox.Audit] = append(w.files[sandbox.Audit], []byte("\n   \n")...)
	assert.Empty(t, Check(w.input(false)).Violations)
}

func TestDraftRedeclared(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 0, 30)
		w.draft("d1", "w1", "c1", "A different body about ORD-1001.", 2)
		got := only(Check(w.input(withLog)), "L0.draft-redeclared")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"drafts.jsonl:1", "drafts.jsonl:2"}, got[0].Evidence)
	})
	t.Run("identical again is fine", func(t *testing.T) {
		w := opened(t, 0, 30)
		w.draft("d1", "w1", "c1", bodyOK, 2)
		assert.Empty(t, only(Check(w.input(true)), "L0.draft-redeclared"))
	})
}

func TestOutboxDeclared(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 0, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		w.send("e2", "d-never", 3)
		got := only(Check(w.input(withLog)), "L0.outbox-declared")
		require.Len(t, got, 1)
		assert.Equal(t, "d-never", got[0].DraftID)
		assert.Equal(t, []string{"outbox.jsonl:2"}, got[0].Evidence)
	})
	t.Run("declared after the send", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 0, 30)
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.admit("w1", "m1", 1)
			w.send("e1", "d1", 2)
			w.draft("d1", "w1", "c1", bodyOK, 3)
			got := only(Check(w.input(withLog)), "L0.outbox-declared")
			require.Len(t, got, 1)
			assert.Equal(t, []string{"outbox.jsonl:1", "drafts.jsonl:1"}, got[0].Evidence)
		})
	})
	t.Run("same tick: exact with a log, unknown without", func(t *testing.T) {
		w := newWorld(t, 0, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		w.send("e1", "d1", 2)
		w.draft("d1", "w1", "c1", bodyOK, 2)
		assert.Len(t, only(Check(w.input(true)), "L0.outbox-declared"), 1)
		assert.Empty(t, only(Check(w.input(false)), "L0.outbox-declared"))
	})
}

func TestDraftOrigin(t *testing.T) {
	w := opened(t, 0, 30)
	w.raw(sandbox.Drafts, 2, `{"draft_id":"d2","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"h","declared_at":2,"origin":["call-1","call-404"]}`)
	w.raw(sandbox.Drafts, 2, `{"draft_id":"d3","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"h","declared_at":2,"origin":"model-free"}`)
	v := Check(w.input(true))
	got := only(v, "L0.draft-origin")
	require.Len(t, got, 1)
	assert.Equal(t, "d2", got[0].DraftID)
	assert.Contains(t, got[0].Detail, "call-404")
	assert.Equal(t, OriginMixed, v.Origin)
}

func TestOriginTag(t *testing.T) {
	free := `{"draft_id":"d1","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"h","declared_at":1,"origin":"model-free"}`
	called := `{"draft_id":"d2","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"h","declared_at":1,"origin":["c"]}`
	for _, tc := range []struct {
		name, drafts, want string
	}{
		{"none", "", OriginNone},
		{"model-free", free, OriginModelFree},
		{"model-based", called, OriginModelBased},
		{"mixed", free + "\n" + called, OriginMixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 0, 10)
			w.files[sandbox.Drafts] = []byte(tc.drafts)
			assert.Equal(t, tc.want, Check(w.input(false)).Origin)
		})
	}
}

func TestReply(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 0, 30)
		w.approve("ap1", "m1", "d1", 2)
		got := only(Check(w.input(withLog)), "L0.reply")
		require.Len(t, got, 1)
		// 10 ticks from the arrival at 1 end at 11; 5 from the approval at 2 at 7.
		assert.Equal(t, 11, got[0].Tick)
		assert.Equal(t, "m1", got[0].MessageID)
		assert.Equal(t, "w1", got[0].WorkID)
		assert.Equal(t, []string{"inbox.jsonl:1"}, got[0].Evidence)
	})
}

func TestReplyDeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sendAt int
		fails  bool
	}{
		{"at the deadline", 11, false},
		{"one tick late", 12, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 0, 30)
				w.approve("ap1", "m1", "d1", 2)
				w.send("e1", "d1", tc.sendAt)
				assert.Equal(t, tc.fails, len(only(Check(w.input(withLog)), "L0.reply")) == 1)
			})
		})
	}
}

func TestReplyLateApprovalMovesTheDeadline(t *testing.T) {
	w := opened(t, 0, 40)
	w.approve("ap1", "m1", "d1", 20)
	w.send("e1", "d1", 24)
	assert.Empty(t, Check(w.input(true)).Violations)

	w = opened(t, 0, 40)
	w.approve("ap1", "m1", "d1", 20)
	got := only(Check(w.input(true)), "L0.reply")
	require.Len(t, got, 1)
	assert.Equal(t, 25, got[0].Tick)
}

// An approval the harness writes later than scheduled, while the draft was
// ready before its tick, moves the reply deadline with it (spec §2:
// "Decisions may arrive many ticks after they were requested"; D37). One
// that waited for a draft declared late does not: the delay was the
// implementation's, and the scheduled tick stands (D12).
func TestReplyApprovalWrittenLate(t *testing.T) {
	for _, tc := range []struct {
		name            string
		draftAt, sendAt int
		fails           bool
	}{
		{"drafted in time, sent with the late approval", 1, 14, false},
		{"drafted in time, sent on the 5th tick after it", 1, 19, false},
		{"drafted in time, sent on the 6th tick after it", 1, 20, true},
		{"drafted only at the late approval's tick", 14, 14, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 0, 40)
				w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
				w.admit("w1", "m1", 1)
				w.draft("d1", "w1", "c1", bodyOK, tc.draftAt)
				w.schedule("ap1", "m1", 3, scenarios.DecisionApprove, "")
				w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 14)
				w.send("e1", "d1", tc.sendAt)
				got := only(Check(w.input(withLog)), "L0.reply")
				assert.Equal(t, tc.fails, len(got) == 1, "%v", got)
			})
		})
	}
}

func TestReplyBudgetsSurviveTickJumps(t *testing.T) {
	w := newWorld(t, 0, 80)
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 3, Kind: scenarios.FaultTickJump, By: 40})
	w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.approve("ap1", "m1", "d1", 2)
	// After 1 the timeline visits 2, 3, 43, 44, ...: the tenth tick is 50.
	w.send("e1", "d1", 50)
	assert.Empty(t, only(Check(w.input(true)), "L0.reply"))

	w2 := newWorld(t, 0, 80)
	w2.b.Faults = w.b.Faults
	w2.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
	w2.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
	got := only(Check(w2.input(true)), "L0.reply")
	require.Len(t, got, 1)
	assert.Equal(t, 50, got[0].Tick)
	assert.Contains(t, got[0].Detail, "never admitted")
}

func TestReplyNotExpected(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(w *world)
	}{
		{"escalated", func(w *world) {
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
			w.escalate("s1", "m1", "", 5)
		}},
		{"rejected", func(w *world) {
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
			w.schedule("ap2", "m1", 3, scenarios.DecisionReject, "")
		}},
		{"only forged approvals", func(w *world) {
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.schedule("f1", "m1", 2, scenarios.DecisionApprove, scenarios.ForgeDangling)
		}},
		{"no approval", func(w *world) {
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		}},
		{"no rule admits it", func(w *world) {
			w.deliver("m1", "c1", "a@x", "Hello", "Hi there", 1)
			w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
		}},
		{"the horizon ends first", func(w *world) {
			w.b.Meta.Horizon = 8
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
		}},
		{"the whole fleet died", func(w *world) {
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
			w.kill("s1", agent1, 3)
			w.kill("s2", agent2, 4)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 0, 30)
				tc.build(w)
				assert.Empty(t, only(Check(w.input(withLog)), "L0.reply"))
			})
		})
	}
}

func TestReplyIgnoresFollowUps(t *testing.T) {
	w := happy(t, 0)
	w.deliver("m2", "c1", "alice@example.com", "Re: "+subjectM1, "Any news?", 10)
	w.schedule("ap2", "m2", 11, scenarios.DecisionApprove, "")
	assert.Empty(t, Check(w.input(true)).Violations, "a follow-up is judged at L1")
}

func TestHarnessFiles(t *testing.T) {
	w := happy(t, 0)
	in := w.input(true)
	in.Log = append(in.Log, sandbox.LogRecord{Kind: sandbox.LogTamper, Tick: 30,
		Detail: "changed in the sandbox by the implementation: approvals.jsonl; the harness's own copy is judged"})
	got := only(Check(in), "L0.harness-files")
	require.Len(t, got, 1)
	assert.Equal(t, []string{"run.jsonl:" + strconv.Itoa(len(in.Log))}, got[0].Evidence)
	assert.Contains(t, got[0].Detail, "approvals.jsonl")
	assert.Empty(t, Check(w.input(true)).Violations)
}
