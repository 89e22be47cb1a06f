package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// postureWorld admits "order" subjects only under the normal posture, and
// switches to maintenance at tick 5.
func postureWorld(t *testing.T) *world {
	w := newWorld(t, 2, 40)
	w.b.Rules = []scenarios.Rule{{ID: "normal-only", Admit: true,
		When: scenarios.Conditions{SubjectContains: str("order"), Posture: str("normal")}}}
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultPosture, Posture: "maintenance"})
	return w
}

func TestAdmissionUnwarranted(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 2, 30)
		w.deliver("m1", "c1", "a@x", "Hello", "Just saying hi.", 1)
		w.admit("w1", "m1", 1)
		got := only(Check(w.input(withLog)), "L2.admission-unwarranted")
		require.Len(t, got, 1)
		assert.Equal(t, "m1", got[0].MessageID)
		assert.Equal(t, []string{"audit.jsonl:1", "inbox.jsonl:1"}, got[0].Evidence)
	})
}

func TestAdmissionAfterPostureChange(t *testing.T) {
	for _, tc := range []struct {
		name          string
		at            int
		admit         bool
		unwarranted   bool
		missing       bool
		missingAtTick int
	}{
		{"before the change, admitted", 2, true, false, false, 0},
		{"before the change, not admitted: decided after it, inside the budget", 2, false, false, false, 0},
		{"inside the allowance, admitted", 7, true, false, false, 0},
		{"inside the allowance, not admitted", 7, false, false, false, 0},
		{"last tick of the allowance, admitted", 10, true, false, false, 0},
		{"after the allowance, admitted", 11, true, true, false, 0},
		{"after the allowance, not admitted", 11, false, false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := postureWorld(t)
				w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", tc.at)
				if tc.admit {
					w.admit("w1", "m1", tc.at)
				}
				v := Check(w.input(withLog))
				assert.Equal(t, tc.unwarranted, len(only(v, "L2.admission-unwarranted")) == 1)
				missing := only(v, "L2.admission-missing")
				require.Equal(t, tc.missing, len(missing) == 1)
				if tc.missing {
					assert.Equal(t, tc.missingAtTick, missing[0].Tick)
				}
			})
		})
	}
}

// Spec §4 L2: "every admission traceable to the rules version (by
// rules_hash) and posture in force when it happened". The implementation
// may decide on a message at any tick of its 5-tick admission budget, under
// the rules in force when it arrived or when it decides (D5). The rules
// admit orders until tick 10, then only refunds.
func TestAdmissionDecidedWithinBudget(t *testing.T) {
	refunds := []scenarios.Rule{{ID: "refunds", Admit: true, When: scenarios.Conditions{SubjectContains: str("refund")}}}
	for _, tc := range []struct {
		name         string
		subject      string
		at, admitted int // admitted 0: no admission
		newHash      bool
		want         []string
	}{
		{"a refund arriving before the change, admitted after it under the new rules", "Refund ORD-1001", 8, 10, true, nil},
		{"the same admission before the change: the new rules were not in force", "Refund ORD-1001", 8, 9, true,
			[]string{"L2.admission-record", "L2.admission-unwarranted"}},
		{"the same admission after the budget ended", "Refund ORD-1001", 4, 10, true,
			[]string{"L2.admission-record", "L2.admission-unwarranted"}},
		{"an order arriving before the change, declined after it", "Order ORD-1001", 8, 0, false, nil},
		{"an order whose budget ends before the change, declined", "Order ORD-1001", 4, 0, false, []string{"L2.admission-missing"}},
		{"an order arriving before the change, admitted after it under the old rules", "Order ORD-1001", 8, 10, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 2, 40)
				w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 10, Kind: scenarios.FaultRules, Rules: refunds})
				w.deliver("m1", "c1", "a@x", tc.subject, "ORD-1001?", tc.at)
				if tc.admitted > 0 {
					hash := w.rulesHash()
					if tc.newHash {
						hash = scenarios.RulesHash(scenarios.RulesBytes(refunds))
					}
					w.admitHash("w1", "m1", hash, tc.admitted)
				}
				in := w.input(withLog)
				v := Check(in)
				got := ids(v)
				if tc.want == nil {
					assert.Empty(t, got, "%v", v.Violations)
				} else {
					assert.Equal(t, tc.want, got, "%v", v.Violations)
				}
				g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log})))
				assert.True(t, g.Agree, g.String())
			})
		})
	}
}

func TestAdmissionMissingWhenLate(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 2, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.admit("w1", "m1", 7)
		got := only(Check(w.input(withLog)), "L2.admission-missing")
		require.Len(t, got, 1)
		assert.Equal(t, 6, got[0].Tick)
	})
}

func TestAdmissionFactsFromHistory(t *testing.T) {
	w := newWorld(t, 2, 40)
	w.b.Rules = []scenarios.Rule{
		{ID: "known-sender", Admit: true, When: scenarios.Conditions{SenderHistoryMin: intp(1)}},
		{ID: "short-thread", Admit: true, When: scenarios.Conditions{SubjectContains: str("order"), ThreadLengthMax: intp(1)}},
	}
	w.deliver("m1", "c1", "a@x", "Hi", "first contact", 1) // no history, not an order: declined
	w.duplicate("m1", 2)                                   // a duplicate is not history
	w.deliver("m2", "c2", "b@x", "Order ORD-1001", "first", 3)
	w.deliver("m3", "c2", "b@x", "Re: Order ORD-1001", "second", 4) // sender history 1: admitted
	w.deliver("m4", "c3", "c@x", "Order ORD-2002", "first", 5)
	w.admit("w2", "m2", 3)
	w.admit("w3", "m3", 4)
	w.admit("w1", "m1", 6)
	v := Check(w.input(true))
	unwarranted := only(v, "L2.admission-unwarranted")
	require.Len(t, unwarranted, 1)
	assert.Equal(t, "m1", unwarranted[0].MessageID)
	missing := only(v, "L2.admission-missing")
	require.Len(t, missing, 1)
	assert.Equal(t, "m4", missing[0].MessageID)
}

func intp(n int) *int { return &n }

func TestAdmissionRecord(t *testing.T) {
	for _, tc := range []struct {
		name   string
		build  func(w *world)
		detail string
	}{
		{"work without admission", func(w *world) {
			w.draft("d9", "w9", "c1", "x", 2)
			w.claim("w9", agent1, sandbox.ClaimWon, 2)
		}, "w9 is in use but has no admission record"},
		{"state lists work without admission", func(w *world) {
			w.state(2, []item{{"w1", "drafted", agent1}, {"w8", "new", ""}})
		}, "w8 is in use"},
		{"message not in the inbox", func(w *world) {
			w.admit("w7", "m404", 2)
		}, "not in inbox.jsonl"},
		{"wrong rules hash", func(w *world) {
			w.deliver("m2", "c2", "b@x", "Order ORD-2002", "?", 2)
			w.admitHash("w2", "m2", "0123456789abcdef", 2)
		}, "rules_hash 0123456789ab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 2, 30)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L2.admission-record")
				require.Len(t, got, 1)
				assert.Contains(t, got[0].Detail, tc.detail)
			})
		})
	}
}

func TestAdmissionRecordBeforeUse(t *testing.T) {
	w := newWorld(t, 2, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.admit("w1", "m1", 2)
	got := only(Check(w.input(true)), "L2.admission-record")
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Detail, "before its admission record")
	assert.Equal(t, []string{"drafts.jsonl:1", "audit.jsonl:1"}, got[0].Evidence)
}

// Within one tick the order of an implementation's writes to different
// files is not judged (D38): a draft written just before its work item's
// admission record, in the same tick, is admitted work. A tick earlier it
// is not.
func TestAdmissionRecordSameTick(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 2, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.draft("d1", "w1", "c1", bodyOK, 1)
		w.claim("w1", agent1, sandbox.ClaimWon, 1)
		w.admit("w1", "m1", 1)
		assert.Empty(t, only(Check(w.input(withLog)), "L2.admission-record"))

		w = newWorld(t, 2, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.draft("d1", "w1", "c1", bodyOK, 1)
		w.admit("w1", "m1", 2)
		assert.Len(t, only(Check(w.input(withLog)), "L2.admission-record"), 1)
	})
}

func TestAdmissionRecordAfterRulesChange(t *testing.T) {
	newRules := []scenarios.Rule{{ID: "support-v2", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}}}
	for _, tc := range []struct {
		name    string
		at      int
		oldHash bool
		fails   bool
	}{
		{"old hash inside the allowance", 7, true, false},
		{"old hash on the last tick of the allowance", 10, true, false},
		{"old hash just after the allowance", 11, true, true},
		{"new hash inside the allowance", 7, false, false},
		{"old hash after the allowance", 12, true, true},
		{"new hash after the allowance", 12, false, false},
		{"new hash before the change", 3, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2, 40)
			old := w.rulesHash()
			w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultRules, Rules: newRules})
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", tc.at)
			hash := scenarios.RulesHash(scenarios.RulesBytes(newRules))
			if tc.oldHash {
				hash = old
			}
			w.admitHash("w1", "m1", hash, tc.at)
			assert.Equal(t, tc.fails, len(only(Check(w.input(true)), "L2.admission-record")) == 1)
		})
	}
}

func TestApprovalBinding(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(w *world)
		want  string
	}{
		{"no approval", func(w *world) {
			w.send("e1", "d1", 2)
		}, "L2.approval-binding"},
		{"approval after the send", func(w *world) {
			w.send("e1", "d1", 2)
			w.approve("ap1", "m1", "d1", 3)
		}, "L2.approval-binding"},
		{"rejected", func(w *world) {
			w.schedule("ap1", "m1", 2, scenarios.DecisionReject, "")
			w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionReject, 2)
			w.send("e1", "d1", 3)
		}, "L2.approval-binding"},
		{"hash mismatch only", func(w *world) {
			w.schedule("f1", "m1", 2, scenarios.DecisionApprove, scenarios.ForgeHashMismatch)
			w.fire("f1", "d1", "sha256:not-the-hash", scenarios.DecisionApprove, 2)
			w.send("e1", "d1", 3)
		}, "L2.forged-approval-acted"},
		{"dangling only", func(w *world) {
			w.schedule("f1", "m1", 2, scenarios.DecisionApprove, scenarios.ForgeDangling)
			w.fire("f1", "draft-forged-f1", hashOf(bodyOK), scenarios.DecisionApprove, 2)
			w.send("e1", "d1", 3)
		}, "L2.forged-approval-acted"},
		{"dangling draft id sent", func(w *world) {
			w.fire("f1", "draft-forged-f1", "sha256:x", scenarios.DecisionApprove, 2)
			w.send("e1", "draft-forged-f1", 3)
		}, "L2.forged-approval-acted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 2, 30)
				tc.build(w)
				v := Check(w.input(withLog))
				got := only(v, tc.want)
				require.Len(t, got, 1, "%v", v.Violations)
				assert.Equal(t, "outbox.jsonl:1", got[0].Evidence[0])
				other := "L2.approval-binding"
				if tc.want == other {
					other = "L2.forged-approval-acted"
				}
				assert.Empty(t, only(v, other), "one violation per send, the more specific id")
			})
		})
	}
}

func TestApprovalBindingSameTick(t *testing.T) {
	// The harness fires before the implementation works: a send in the
	// approval's tick comes after it, with or without a log.
	readings(t, func(t *testing.T, withLog bool) {
		assert.Empty(t, only(Check(happy(t, 2).input(withLog)), "L2.approval-binding"))
	})
}

func TestForgedApprovalCited(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fields map[string]any
		fails  bool
	}{
		{"cited as authority", map[string]any{"event": "send_authorized", "approval_id": "f1"}, true},
		{"cited in a list", map[string]any{"event": "batch", "approval_ids": []string{"ap1", "f1"}}, true},
		{"reported as ignored", map[string]any{"event": "approval_ignored", "approval_id": "f1"}, false},
		{"reported as forged", map[string]any{"event": "forgery_detected", "approval_id": "f1"}, false},
		{"a valid approval cited", map[string]any{"event": "send_authorized", "approval_id": "ap1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := happy(t, 2)
				w.schedule("f1", "m1", 3, scenarios.DecisionApprove, scenarios.ForgeHashMismatch)
				w.fire("f1", "d1", "sha256:wrong", scenarios.DecisionApprove, 3)
				w.auditAt(3, tc.fields)
				got := only(Check(w.input(withLog)), "L2.forged-approval-cited")
				assert.Equal(t, tc.fails, len(got) == 1)
			})
		})
	}
}

func TestApprovalLatency(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 2, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 8)
		got := only(Check(w.input(withLog)), "L2.approval-latency")
		require.Len(t, got, 1)
		assert.Equal(t, 7, got[0].Tick)
		assert.Equal(t, []string{"approvals.jsonl:1", "drafts.jsonl:1"}, got[0].Evidence)
	})
	for _, tc := range []struct {
		name  string
		build func(w *world)
	}{
		{"sent on the last tick", func(w *world) { w.send("e1", "d1", 7) }},
		{"escalated", func(w *world) { w.escalate("s1", "m1", "w1", 4) }},
		{"whole fleet died", func(w *world) { w.kill("s1", agent1, 3); w.kill("s2", agent2, 3) }},
		{"horizon ends first", func(w *world) { w.b.Meta.Horizon = 6 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := opened(t, 2, 30)
			w.approve("ap1", "m1", "d1", 2)
			tc.build(w)
			assert.Empty(t, only(Check(w.input(true)), "L2.approval-latency"))
		})
	}
}

func TestRedeliveryDuplicate(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 2, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 3, Kind: scenarios.FaultRedeliver, ApprovalID: "ap1"})
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
		w.send("e2", "d1", 3)
		v := Check(w.input(withLog))
		got := only(v, "L2.redelivery-duplicate")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"approvals.jsonl:2", "outbox.jsonl:2"}, got[0].Evidence)
		assert.Len(t, only(v, "L1.duplicate-effect"), 1)
	})
	t.Run("redelivered and sent once", func(t *testing.T) {
		w := happy(t, 2)
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
		assert.Empty(t, Check(w.input(true)).Violations)
	})
	// The work item's first redelivered copy is the one cited, however many
	// follow (the lookup by work item keeps the first line, as the scan did).
	t.Run("redelivered twice", func(t *testing.T) {
		w := opened(t, 2, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 4)
		w.send("e2", "d1", 4)
		got := only(Check(w.input(true)), "L2.redelivery-duplicate")
		require.Len(t, got, 1)
		assert.Equal(t, []string{"approvals.jsonl:2", "outbox.jsonl:2"}, got[0].Evidence)
	})
}

// A work id's evidence is its earliest use, whichever file holds it; among
// uses at one stamp (no run log orders a tick's lines) it is the draft's,
// then the audit line's.
func TestAdmissionRecordFirstUse(t *testing.T) {
	w := newWorld(t, 2, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
	w.claim("w1", agent1, sandbox.ClaimWon, 1)
	w.draft("d1", "w1", "c1", bodyOK, 2)
	w.admit("w1", "m1", 3)
	got := only(Check(w.input(true)), "L2.admission-record")
	require.Len(t, got, 1)
	assert.Equal(t, []string{"audit.jsonl:1", "audit.jsonl:2"}, got[0].Evidence)

	w = newWorld(t, 2, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
	w.claim("w1", agent1, sandbox.ClaimWon, 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.admit("w1", "m1", 2)
	got = only(Check(w.input(false)), "L2.admission-record")
	require.Len(t, got, 1)
	assert.Equal(t, []string{"drafts.jsonl:1", "audit.jsonl:2"}, got[0].Evidence)
}
