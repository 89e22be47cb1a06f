package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// otherHarness is a sandbox another harness wrote for a bundle, by hand:
// every harness line is one the bundle allows, but not the one amr's engine
// would have written. m1 is delivered late, after m2, and duplicated; the
// approval is decided two ticks after its scheduled tick and redelivered; the
// forgeries use names of their own; the escalation lands two ticks late;
// the agent death of m1's agent names an agent the harness chose; mode.json's
// changed_at and rules.json's layout are the harness's own.
func otherHarness(t *testing.T) *world {
	w := newWorld(t, 4, 30)
	w.b.Fleet = []string{agent1, agent2, "agent-3"}
	m1 := scenarios.Delivery{ID: "m1", ConversationID: "c1", From: "a@x", Subject: subjectM1, Body: "Where is ORD-1001?", At: 1}
	m2 := scenarios.Delivery{ID: "m2", ConversationID: "c2", From: "b@x", Subject: "Order ORD-2002", Body: "And ORD-2002?", At: 2}
	w.b.Inbox = append(w.b.Inbox, m1, m2)
	w.b.Faults = append(w.b.Faults,
		scenarios.Fault{At: 4, Kind: scenarios.FaultDuplicate, MessageID: "m1"},
		scenarios.Fault{At: 7, Kind: scenarios.FaultRedeliver, ApprovalID: "ap1"},
		scenarios.Fault{At: 12, Kind: scenarios.FaultPosture, Posture: "maintenance"})
	w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
	w.schedule("f1", "m2", 3, scenarios.DecisionApprove, scenarios.ForgeDangling)
	w.schedule("f2", "m1", 3, scenarios.DecisionApprove, scenarios.ForgeHashMismatch)
	w.b.Signals = append(w.b.Signals,
		scenarios.Signal{ID: "s1", At: 3, Type: scenarios.OperatorEscalation, Target: scenarios.Match{MessageID: "m2"}},
		scenarios.Signal{ID: "s2", At: 8, Type: scenarios.AgentDeath, Target: scenarios.Match{MessageID: "m1"}})

	for _, d := range []scenarios.Delivery{m2, m1, m1} {
		w.appendLine(sandbox.Inbox, mustLine(t, sandbox.Message(d)))
	}
	w.admit("w1", "m1", 2)
	w.admit("w2", "m2", 2)
	w.draft("d1", "w1", "c1", bodyOK, 2)
	w.draft("d2", "w2", "c2", "About ORD-2002: soon.", 2)
	h1 := hashOf(bodyOK)
	for _, a := range []sandbox.ApprovalRecord{
		{ApprovalID: "f2", DraftID: "d1", ContentHash: "sha256:0000", Decision: scenarios.DecisionApprove, DecidedAt: 3},
		{ApprovalID: "f1", DraftID: "their-forgery-17", ContentHash: "sha256:ffff", Decision: scenarios.DecisionApprove, DecidedAt: 3},
		{ApprovalID: "ap1", DraftID: "d1", ContentHash: h1, Decision: scenarios.DecisionApprove, DecidedAt: 4},
		{ApprovalID: "ap1", DraftID: "d1", ContentHash: h1, Decision: scenarios.DecisionApprove, DecidedAt: 4},
	} {
		w.appendLine(sandbox.Approvals, mustLine(t, a))
	}
	w.send("e1", "d1", 4)
	w.resolve("w1", sandbox.OutcomeCompleted, "sent", 4)
	for _, s := range []sandbox.SignalRecord{
		{SignalID: "s1", SignalType: scenarios.OperatorEscalation, Target: "w2", At: 5},
		{SignalID: "s2", SignalType: scenarios.AgentDeath, Target: "agent-3", At: 9},
	} {
		w.appendLine(sandbox.Signals, mustLine(t, s))
	}
	w.resolve("w2", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, 5)
	w.files[sandbox.Mode] = []byte(`{"changed_at": 15, "posture": "maintenance"}`)
	w.files[sandbox.Rules] = bytes.ReplaceAll(scenarios.RulesBytes(w.b.Rules), []byte("\n"), nil)
	return w
}

func TestHarnessFilesAnotherHarnessMayWrite(t *testing.T) {
	w := otherHarness(t)
	v := Check(w.input(false))
	assert.Empty(t, only(v, "L0.harness-files"))
	assert.Equal(t, Pass, v.Levels[0], "%v", v.Violations)
	assert.Equal(t, Pass, v.Levels[2], "%v", v.Violations)
	assert.Equal(t, Pass, v.Levels[4], "%v", v.Violations)
	in := w.input(false)
	h := history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files}))
	assert.True(t, Guard(v, h).Agree)
	assert.Zero(t, h.Count(history.H5UnauthorizedEffect, ""), "the late approval authorizes the send for the history too")
}

// tamperings each change one harness file of a legal sandbox after the
// run, as a hostile implementation or a careless hand could.
var tamperings = []struct {
	name   string
	file   string
	edit   func(w *world, data []byte) []byte
	detail string // a phrase of the finding, with and without the log
	// strict lists what else fails without a log: an approval line that is
	// not the harness's authorizes nothing, and the one the harness wrote
	// is not put back (D30).
	strict []string
}{
	{"emptied signals", sandbox.Signals, func(*world, []byte) []byte { return nil }, "s1", nil},
	{"an extra approve line", sandbox.Approvals, func(w *world, data []byte) []byte {
		return appendJSON(data, sandbox.ApprovalRecord{ApprovalID: "ap-extra", DraftID: "d2",
			ContentHash: hashOf("About ORD-2002: soon."), Decision: scenarios.DecisionApprove, DecidedAt: 4})
	}, "approval ap-extra", nil},
	{"a changed decision", sandbox.Approvals, func(w *world, data []byte) []byte {
		return bytes.Replace(data, []byte(`"decision":"reject"`), []byte(`"decision":"approve"`), 1)
	}, "decision", nil},
	{"an approval decided before its tick", sandbox.Approvals, func(w *world, data []byte) []byte {
		return bytes.Replace(data, []byte(`"decided_at":2`), []byte(`"decided_at":1`), 1)
	}, "approval ap1", []string{"L2.forged-approval-acted"}},
	{"an approval line removed", sandbox.Approvals, func(w *world, data []byte) []byte {
		return data[bytes.IndexByte(data, '\n')+1:]
	}, "approval ap1", []string{"L2.approval-binding"}},
	{"a changed body", sandbox.Inbox, func(w *world, data []byte) []byte {
		return bytes.Replace(data, []byte("Where is ORD-1001?"), []byte("Where is ORD-2002?"), 1)
	}, "body", nil},
	{"a delivery removed", sandbox.Inbox, func(w *world, data []byte) []byte {
		return data[:bytes.IndexByte(data, '\n')+1]
	}, "m2", nil},
	{"an invented delivery", sandbox.Inbox, func(w *world, data []byte) []byte {
		return appendJSON(data, sandbox.Message{ID: "m9", ConversationID: "c9", From: "x@x", Subject: "order", Body: "hi", At: 3})
	}, "m9", nil},
	{"an escalation retargeted", sandbox.Signals, func(w *world, data []byte) []byte {
		return bytes.Replace(data, []byte(`"target":"w1"`), []byte(`"target":"w2"`), 1)
	}, "target", nil},
	{"an invented escalation", sandbox.Signals, func(w *world, data []byte) []byte {
		return appendJSON(data, sandbox.SignalRecord{SignalID: "s9", SignalType: scenarios.OperatorEscalation, Target: "w2", At: 3})
	}, "s9", nil},
	{"the wrong posture", sandbox.Mode, func(*world, []byte) []byte {
		return []byte(`{"posture":"vip-only","changed_at":0}` + "\n")
	}, "vip-only", nil},
	{"the wrong clock", sandbox.Clock, func(*world, []byte) []byte { return []byte(`{"tick":7}` + "\n") }, "tick 7", nil},
	{"other rules", sandbox.Rules, func(*world, []byte) []byte { return []byte("[]\n") }, sandbox.Rules, nil},
	{"an unreadable approval line", sandbox.Approvals, func(w *world, data []byte) []byte {
		return append(data, "{not json\n"...)
	}, sandbox.Approvals, nil},
}

func appendJSON(data []byte, v any) []byte {
	line, _ := sandbox.MarshalLine(v)
	return append(append(append([]byte(nil), data...), line...), '\n')
}

// tamperable is a legal story with something in every harness file: two
// messages, m1 approved at 2 and sent, m2 rejected at 3 and escalated.
func tamperable(t *testing.T) *world {
	w := newWorld(t, 4, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
	w.deliver("m2", "c2", "b@x", "Order ORD-2002", "And ORD-2002?", 1)
	w.admit("w1", "m1", 1)
	w.admit("w2", "m2", 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.draft("d2", "w2", "c2", "About ORD-2002: soon.", 1)
	w.state(1, []item{{"w1", "drafted", agent1}, {"w2", "drafted", agent2}})
	w.approve("ap1", "m1", "d1", 2)
	w.send("e1", "d1", 2)
	w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
	w.state(2, []item{{"w1", sandbox.OutcomeCompleted, agent1}, {"w2", "drafted", agent2}})
	w.schedule("ap2", "m2", 3, scenarios.DecisionReject, "")
	w.fire("ap2", "d2", hashOf("About ORD-2002: soon."), scenarios.DecisionReject, 3)
	w.resolve("w2", sandbox.OutcomeAbandoned, "rejected", 3)
	w.state(3, []item{{"w1", sandbox.OutcomeCompleted, agent1}, {"w2", sandbox.OutcomeAbandoned, agent2}})
	w.escalate("s1", "m1", "w1", 4)
	return w
}

func TestHarnessFilesTampered(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		clean := Check(tamperable(t).input(withLog))
		require.Empty(t, clean.Violations)
		for _, tc := range tamperings {
			t.Run(tc.name, func(t *testing.T) {
				w := tamperable(t)
				in := w.input(withLog)
				in.Files[tc.file] = tc.edit(w, in.Files[tc.file])
				v := Check(in)
				got := only(v, "L0.harness-files")
				require.NotEmpty(t, got, "%v", v.Violations)
				assert.Equal(t, Fail, v.Levels[0])
				var details []string
				for _, x := range got {
					details = append(details, x.Detail)
					assert.NotEmpty(t, x.Evidence)
				}
				assert.Contains(t, strings.Join(details, " "), tc.detail)
				var strict []string
				if !withLog {
					strict = tc.strict
				}
				for _, x := range v.Violations {
					if x.Invariant != "L0.harness-files" && !contains(strict, x.Invariant) {
						t.Errorf("a tampered harness file changed the judgement of the implementation: %s %s", x.Invariant, x.Detail)
					}
				}
				for _, id := range strict {
					assert.NotEmpty(t, only(v, id), id)
				}
				g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log})))
				assert.True(t, g.Agree, g.String())
			})
		}
	})
}

// The plain sentences name what is missing and why the bundle proves it.
func TestHarnessFilesSentences(t *testing.T) {
	w := tamperable(t)
	in := w.input(false)
	in.Files[sandbox.Signals] = nil
	got := only(Check(in), "L0.harness-files")
	require.Len(t, got, 1)
	assert.Equal(t, "signals.jsonl has no line for escalation s1, which the bundle schedules at tick 4; its target w1 was admitted at tick 1.", got[0].Detail)
	assert.Equal(t, []string{"bundle:signals/s1"}, got[0].Evidence)
	assert.Equal(t, 4, got[0].Tick)

	in = w.input(true)
	in.Files[sandbox.Approvals] = bytes.Replace(in.Files[sandbox.Approvals], []byte(`"decision":"reject"`), []byte(`"decision":"approve"`), 1)
	got = only(Check(in), "L0.harness-files")
	require.Len(t, got, 1)
	assert.Equal(t, `approvals.jsonl:2 changes approval ap2 (reject of draft d2) as the harness wrote it at tick 3 (run.jsonl:8): decision is "approve", the harness wrote "reject".`, got[0].Detail)
	assert.Equal(t, []string{"approvals.jsonl:2", "run.jsonl:8"}, got[0].Evidence)
}

// A line in the sandbox that the harness did not write authorizes nothing:
// a send whose only approval is such a line is unauthorized.
func TestTamperedApprovalAuthorizesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(w *world, data []byte) []byte
	}{
		{"an extra approve line", func(w *world, data []byte) []byte {
			return appendJSON(data, sandbox.ApprovalRecord{ApprovalID: "ap-extra", DraftID: "d2",
				ContentHash: hashOf("About ORD-2002: soon."), Decision: scenarios.DecisionApprove, DecidedAt: 4})
		}},
		{"a reject turned into an approve", func(w *world, data []byte) []byte {
			return bytes.Replace(data, []byte(`"decision":"reject"`), []byte(`"decision":"approve"`), 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := tamperable(t)
				w.send("e2", "d2", 5)
				in := w.input(withLog)
				in.Files[sandbox.Approvals] = tc.edit(w, in.Files[sandbox.Approvals])
				v := Check(in)
				got := append(only(v, "L2.approval-binding"), only(v, "L2.forged-approval-acted")...)
				require.Len(t, got, 1, "%v", v.Violations)
				assert.Equal(t, "outbox.jsonl:2", got[0].Evidence[0])
				g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log})))
				assert.True(t, g.Agree, g.String())
			})
		})
	}
}

// A send after an escalation whose line was removed still fails L4: the
// bundle proves the escalation was written. Without a log it is placed at
// the earliest tick the harness could have written it, so a send in that
// tick counts as after it.
func TestSendAfterRemovedEscalation(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := escalated(t, 4)
		w.approve("ap1", "m1", "d1", 6)
		w.send("e1", "d1", 6)
		in := w.input(withLog)
		in.Files[sandbox.Signals] = nil
		v := Check(in)
		got := only(v, "L4.send-after-escalation")
		require.Len(t, got, 1, "%v", v.Violations)
		if withLog {
			assert.Equal(t, []string{"outbox.jsonl:1", "signals.jsonl:1"}, got[0].Evidence)
		} else {
			assert.Equal(t, []string{"outbox.jsonl:1", "bundle:signals/s1"}, got[0].Evidence)
		}
		assert.Equal(t, Fail, v.Levels[0])
		g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log})))
		assert.True(t, g.Agree, g.String())
	})
	t.Run("admitted after the escalation was due", func(t *testing.T) {
		w := newWorld(t, 4, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
		w.b.Signals = append(w.b.Signals, scenarios.Signal{ID: "s1", At: 1, Type: scenarios.OperatorEscalation,
			Target: scenarios.Match{MessageID: "m1"}})
		w.admit("w1", "m1", 3)
		w.draft("d1", "w1", "c1", bodyOK, 3)
		w.approve("ap1", "m1", "d1", 3)
		w.send("e1", "d1", 3)
		v := Check(w.input(false))
		got := only(v, "L4.send-after-escalation")
		require.Len(t, got, 1, "%v", v.Violations)
		assert.Contains(t, got[0].Detail, "escalation at tick 3")
		assert.Len(t, only(v, "L0.harness-files"), 1)
	})
	t.Run("never admitted: nothing proves the escalation was written", func(t *testing.T) {
		w := newWorld(t, 4, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
		w.escalate("s1", "m1", "", 3)
		assert.Empty(t, only(Check(w.input(false)), "L0.harness-files"))
	})
	t.Run("admitted on the last tick: the escalation was not due yet", func(t *testing.T) {
		w := newWorld(t, 4, 5)
		w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
		w.escalate("s1", "m1", "", 3)
		w.admit("w1", "m1", 5)
		assert.Empty(t, only(Check(w.input(false)), "L0.harness-files"))
	})
}

// An approval whose work item had a draft in time must be in the file;
// one whose work item never drafted could not fire.
func TestMissingApproval(t *testing.T) {
	w := opened(t, 2, 30)
	w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
	got := only(Check(w.input(false)), "L0.harness-files")
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Detail, "approvals.jsonl has no line for approval ap1")
	assert.Equal(t, []string{"bundle:approvals/ap1", "drafts.jsonl:1"}, got[0].Evidence)

	w = newWorld(t, 2, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.schedule("ap1", "m1", 2, scenarios.DecisionApprove, "")
	assert.Empty(t, only(Check(w.input(false)), "L0.harness-files"))
}

// A forgery is any approval line that is not valid (D33): another harness
// may fire a hash-mismatch forgery before the draft exists, or give a
// dangling one a declared draft's id with another hash. A forged approval's
// line that binds a declared draft with its own hash is not a forgery: the
// harness did not write it, and it authorizes nothing.
func TestForgeryAnyInvalidLine(t *testing.T) {
	for _, tc := range []struct {
		name, forge, draftID, hash string
		at                         int
		explained                  bool
	}{
		{"hash mismatch before any draft", scenarios.ForgeHashMismatch, "d1", "sha256:ffff", 1, true},
		{"hash mismatch naming an id never declared", scenarios.ForgeHashMismatch, "their-id", hashOf(bodyOK), 3, true},
		{"dangling naming a declared draft with another hash", scenarios.ForgeDangling, "d1", "md5:0", 3, true},
		{"hash mismatch carrying the draft's own hash", scenarios.ForgeHashMismatch, "d1", hashOf(bodyOK), 3, false},
		{"dangling binding the declared draft", scenarios.ForgeDangling, "d1", hashOf(bodyOK), 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2, 30)
			w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
			w.admit("w1", "m1", 1)
			w.draft("d1", "w1", "c1", bodyOK, 2)
			w.schedule("f1", "m1", tc.at, scenarios.DecisionApprove, tc.forge)
			w.appendLine(sandbox.Approvals, mustLine(t, sandbox.ApprovalRecord{ApprovalID: "f1", DraftID: tc.draftID,
				ContentHash: tc.hash, Decision: scenarios.DecisionApprove, DecidedAt: tc.at}))
			w.send("e1", "d1", 4)
			in := w.input(false)
			v := Check(in)
			g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files})))
			assert.True(t, g.Agree, g.String())
			// Whatever the line, it never authorizes the send.
			assert.Len(t, append(only(v, "L2.approval-binding"), only(v, "L2.forged-approval-acted")...), 1, "%v", v.Violations)
			if tc.explained {
				assert.Empty(t, only(v, "L0.harness-files"), "%v", v.Violations)
				return
			}
			got := only(v, "L0.harness-files")
			require.Len(t, got, 1, "%v", v.Violations)
			assert.Contains(t, got[0].Detail, "it is a forgery but binds draft d1 with its own hash")
		})
	}
}

// Without a run log an inbox line stamped later than its message's tick,
// and otherwise the bundle's, is a late delivery: the message arrived at
// the line's tick (D35). Here it is stamped 8 for a message scheduled at 1;
// the rules admit refunds only from tick 7, so the admission at 8 is
// warranted only because the message arrived late. A line stamped before its
// tick, or after the last one, is still a finding, and the message is
// judged at the bundle's tick.
func TestInboxLineStampedLate(t *testing.T) {
	refunds := []scenarios.Rule{{ID: "refunds", Admit: true, When: scenarios.Conditions{SubjectContains: str("refund")}}}
	for _, tc := range []struct {
		name      string
		scheduled int
		stamped   int
		finding   bool
	}{
		{"stamped with the tick it was delivered", 1, 8, false},
		{"stamped before its tick", 9, 8, true},
		{"stamped after the last tick", 1, 31, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2, 30)
			w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 7, Kind: scenarios.FaultRules, Rules: refunds})
			d := scenarios.Delivery{ID: "m1", ConversationID: "c1", From: "a@x", Subject: "Refund ORD-1001", Body: "ORD-1001?", At: tc.scheduled}
			w.b.Inbox = append(w.b.Inbox, d)
			line := sandbox.Message(d)
			line.At = tc.stamped
			w.appendLine(sandbox.Inbox, mustLine(t, line))
			w.admitHash("w1", "m1", scenarios.RulesHash(scenarios.RulesBytes(refunds)), 9)
			in := w.input(false)
			v := Check(in)
			g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files})))
			assert.True(t, g.Agree, g.String())
			if !tc.finding {
				assert.Empty(t, v.Violations)
				return
			}
			assert.Len(t, only(v, "L0.harness-files"), 1, "%v", v.Violations)
		})
	}
}

// Delivery is at least once (spec §2): without a run log, more copies of a
// message's line than the bundle's duplicates are no finding (D35); fewer
// still are, and so is a copy whose content differs.
func TestInboxExtraCopies(t *testing.T) {
	w := newWorld(t, 2, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
	d, _ := w.b.Message("m1")
	later := sandbox.Message(d)
	later.At = 4
	w.appendLine(sandbox.Inbox, mustLine(t, sandbox.Message(d)))
	w.appendLine(sandbox.Inbox, mustLine(t, later))
	w.admit("w1", "m1", 1)
	assert.Empty(t, Check(w.input(false)).Violations)

	changed := sandbox.Message(d)
	changed.Body = "Where is ORD-2002?"
	w.appendLine(sandbox.Inbox, mustLine(t, changed))
	assert.Len(t, only(Check(w.input(false)), "L0.harness-files"), 1)

	w = newWorld(t, 2, 30)
	w.deliver("m1", "c1", "a@x", subjectM1, "Where is ORD-1001?", 1)
	w.duplicate("m1", 3)
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultDuplicate, MessageID: "m1"})
	w.admit("w1", "m1", 1)
	got := only(Check(w.input(false)), "L0.harness-files")
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Detail, "has 2 lines for message m1; the bundle delivers it 3 times")
}

// mode.json and the clock are records, not bytes: a byte order mark and a
// whole tick spelled 30.0 say what {"tick":30} says; a tick that is not a
// whole number, or another one, is a finding.
func TestFixtureFilesAnyJSONSpelling(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		for clock, finding := range map[string]bool{
			"\ufeff{\"tick\": 30.0}\r\n": false, `{"tick":3e1,"wall":1}`: false,
			`{"tick":30.5}`: true, `{"tick":"30"}`: true, `{"tick":29.0}`: true,
		} {
			in := happy(t, 2).input(withLog)
			in.Files[sandbox.Clock] = []byte(clock)
			in.Files[sandbox.Mode] = append([]byte("\ufeff"), in.Files[sandbox.Mode]...)
			got := only(Check(in), "L0.harness-files")
			if finding {
				assert.Len(t, got, 1, clock)
			} else {
				assert.Empty(t, got, clock)
			}
		}
	})
}
