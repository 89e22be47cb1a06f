package checker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Small pools, so generated lines refer to each other often.
var (
	poolIDs      = []string{"m1", "m2", "m3", "w1", "w2", "d1", "d2", "e1", "ap1", "f1", "s1", agent1, agent2, ""}
	poolEvents   = []string{"admission", "claim", "resolution", "approval_ignored", "note"}
	poolOutcomes = []string{"claimed", "won", "stood_down", "completed", "abandoned", "operator_escalation", "?"}
)

func genID(t *rapid.T, label string) string { return rapid.SampledFrom(poolIDs).Draw(t, label) }

// genBundle draws a small bundle: any top level, a horizon, maybe a jump,
// approvals, signals and faults naming the pooled messages.
func genBundle(t *rapid.T) *scenarios.Bundle {
	b := newWorld(nil, 0, 0).b
	b.Meta.TopLevel = rapid.IntRange(-1, 7).Draw(t, "top")
	b.Meta.Horizon = rapid.IntRange(0, 60).Draw(t, "horizon")
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "messages"); i < n; i++ {
		b.Inbox = append(b.Inbox, scenarios.Delivery{ID: fmt.Sprintf("m%d", i+1), ConversationID: genID(t, "conv"),
			From: genID(t, "from"), Subject: rapid.SampledFrom([]string{"Order ORD-1001", "hi", ""}).Draw(t, "subject"),
			At: rapid.IntRange(0, 70).Draw(t, "at")})
	}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "approvals"); i < n; i++ {
		b.Approvals = append(b.Approvals, scenarios.Approval{ID: genID(t, "approval"), At: rapid.IntRange(0, 70).Draw(t, "at"),
			Match:    scenarios.Match{MessageID: genID(t, "match"), WorkID: rapid.SampledFrom([]string{"", "w1"}).Draw(t, "work")},
			Decision: rapid.SampledFrom([]string{"approve", "reject"}).Draw(t, "decision"),
			Forge:    rapid.SampledFrom([]string{"", scenarios.ForgeDangling, scenarios.ForgeHashMismatch}).Draw(t, "forge")})
	}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "signals"); i < n; i++ {
		b.Signals = append(b.Signals, scenarios.Signal{ID: genID(t, "signal"), At: rapid.IntRange(0, 70).Draw(t, "at"),
			Type:   rapid.SampledFrom([]string{scenarios.OperatorEscalation, scenarios.AgentDeath, "X"}).Draw(t, "type"),
			Target: scenarios.Match{MessageID: genID(t, "target"), AgentID: genID(t, "agent")}})
	}
	for i, n := 0, rapid.IntRange(0, 4).Draw(t, "faults"); i < n; i++ {
		f := scenarios.Fault{At: rapid.IntRange(-2, 70).Draw(t, "at"), Kind: rapid.SampledFrom(scenarios.FaultKinds).Draw(t, "kind"),
			AfterWrites: rapid.IntRange(0, 3).Draw(t, "after"), By: rapid.IntRange(-1, 50).Draw(t, "by"),
			Posture: rapid.SampledFrom(scenarios.Postures).Draw(t, "posture")}
		if f.Kind == scenarios.FaultRules {
			f.Rules = []scenarios.Rule{{ID: "r", Admit: true, When: scenarios.Conditions{ThreadLengthMax: intp(1)}}}
		}
		b.Faults = append(b.Faults, f)
	}
	return b
}

// genRecord draws one line for a file: a plausible record from the pools, or
// bytes that are not one.
func genRecord(t *rapid.T, file string) string {
	tick := rapid.IntRange(-1, 70).Draw(t, "tick")
	var v map[string]any
	switch rapid.IntRange(0, 5).Draw(t, "shape") {
	case 0:
		return string(rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "bytes"))
	case 1:
		return `{"event":` + fmt.Sprint(tick)
	}
	switch file {
	case sandbox.Drafts:
		v = map[string]any{"draft_id": genID(t, "d"), "work_id": genID(t, "w"), "conversation_id": genID(t, "c"),
			"body": rapid.SampledFrom([]string{"ORD-1001", "ORD-2002", "x"}).Draw(t, "body"), "content_hash": genID(t, "h"),
			"declared_at": tick, "origin": rapid.SampledFrom([]any{"model-free", []string{"call-1"}, []string{}, 3}).Draw(t, "origin")}
	case sandbox.Outbox:
		v = map[string]any{"effect_id": genID(t, "e"), "draft_id": genID(t, "d"), "sent_at": tick}
	case sandbox.Audit:
		v = map[string]any{"event": rapid.SampledFrom(poolEvents).Draw(t, "event"), "at": tick, "work_id": genID(t, "w"),
			"message_id": genID(t, "m"), "rules_hash": genID(t, "r"), "agent_id": genID(t, "a"),
			"outcome": rapid.SampledFrom(poolOutcomes).Draw(t, "outcome"), "reason": genID(t, "reason"),
			"approval_id": genID(t, "ap"), "approval_ids": []string{genID(t, "ap")}}
	case sandbox.Approvals:
		v = map[string]any{"approval_id": genID(t, "ap"), "draft_id": genID(t, "d"), "content_hash": genID(t, "h"),
			"decision": rapid.SampledFrom([]string{"approve", "reject", "maybe"}).Draw(t, "decision"), "decided_at": tick}
	case sandbox.Signals:
		v = map[string]any{"signal_id": genID(t, "s"), "signal_type": rapid.SampledFrom([]string{scenarios.OperatorEscalation, scenarios.AgentDeath}).Draw(t, "type"),
			"target": genID(t, "target"), "at": tick}
	case sandbox.Inbox:
		v = map[string]any{"id": genID(t, "m"), "conversation_id": genID(t, "c"), "from": genID(t, "f"),
			"subject": "Order ORD-1001", "body": "b", "at": tick}
	default:
		v = map[string]any{"call_id": "call-1", "at": tick}
	}
	line, _ := json.Marshal(v)
	return string(line)
}

func genFile(t *rapid.T, file string) []byte {
	var lines []string
	for i, n := 0, rapid.IntRange(0, 8).Draw(t, "lines"); i < n; i++ {
		lines = append(lines, genRecord(t, file))
	}
	return []byte(strings.Join(lines, "\n"))
}

func genState(t *rapid.T) []byte {
	return []byte(rapid.SampledFrom([]string{
		"", "{", `{"work_items":[],"agents":[],"assignments":[]}`,
		`{"work_items":[{"work_id":"w1","status":"completed","assigned_agent":"agent-1"}],"agents":[{"id":"agent-1","alive":true}],"assignments":[{"work_id":"w1","agent_id":"agent-2"}]}`,
		`{"work_items":[{"work_id":"w2","status":"x","assigned_agent":null}],"agents":[{"id":"agent-2"}],"assignments":[]}`,
	}).Draw(t, "state"))
}

// genLog draws a run log that may or may not agree with the files.
func genLog(t *rapid.T) []sandbox.LogRecord {
	if rapid.Bool().Draw(t, "nolog") {
		return nil
	}
	var log []sandbox.LogRecord
	files := append([]string{sandbox.State, "x"}, sandbox.ImplLogs...)
	for i, n := 0, rapid.IntRange(0, 12).Draw(t, "records"); i < n; i++ {
		r := sandbox.LogRecord{Tick: rapid.IntRange(-1, 70).Draw(t, "tick"),
			Kind: rapid.SampledFrom([]string{sandbox.LogTickEnd, sandbox.LogCrash, sandbox.LogDeliver, sandbox.LogApprove, sandbox.LogSignal, sandbox.LogRewrite}).Draw(t, "kind"),
			Line: rapid.IntRange(-1, 9).Draw(t, "line"), AfterWrites: rapid.IntRange(0, 2).Draw(t, "after"),
			Forced: rapid.Bool().Draw(t, "forced"), Lines: map[string]int{}}
		for _, f := range sandbox.ImplLogs {
			r.Lines[f] = rapid.IntRange(-1, 9).Draw(t, "count")
		}
		r.Writes = rapid.SliceOfN(rapid.SampledFrom(files), 0, 6).Draw(t, "writes")
		if rapid.Bool().Draw(t, "hasState") {
			r.State = genState(t)
		}
		if r.Kind == sandbox.LogRewrite {
			rw := &sandbox.LogRewriteInfo{File: rapid.SampledFrom(files).Draw(t, "file")}
			rw.Lost = rapid.SliceOfN(rapid.SampledFrom([]string{"", "{", genRecord(t, sandbox.Outbox)}), 0, 3).Draw(t, "lost")
			rw.Fresh, rw.Kept = rapid.IntRange(-1, 3).Draw(t, "fresh"), rapid.IntRange(-1, 3).Draw(t, "kept")
			r.LogRewriteInfo = rw
		}
		log = append(log, r)
	}
	return log
}

// Check never panics, whatever the files, the log and the bundle hold, and
// its answer is deterministic and well formed.
func TestCheckNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := Input{Bundle: genBundle(t), Files: map[string][]byte{}, Log: genLog(t)}
		for _, f := range []string{sandbox.Inbox, sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.Approvals, sandbox.Signals, sandbox.ModelCalls} {
			in.Files[f] = genFile(t, f)
		}
		in.Files[sandbox.State] = genState(t)
		v := Check(in)
		again := Check(in)
		a, _ := json.Marshal(v)
		b, _ := json.Marshal(again)
		require.Equal(t, string(a), string(b))
		top := clampLevel(in.Bundle.Meta.TopLevel)
		for _, x := range v.Violations {
			require.LessOrEqual(t, x.Level, top)
			_, ok := Lookup(x.Invariant)
			require.True(t, ok, x.Invariant)
			require.NotEmpty(t, x.Evidence, x.Invariant)
			require.Equal(t, Fail, v.Levels[x.Level])
		}
	})
}

// FuzzCheck feeds arbitrary bytes as each file the implementation writes,
// judged against the common story's bundle and harness files.
func FuzzCheck(f *testing.F) {
	w := happy(f, MaxLevel)
	f.Add(w.files[sandbox.Drafts], w.files[sandbox.Outbox], w.files[sandbox.Audit], w.files[sandbox.State], true)
	f.Add([]byte("{"), []byte("\n\n"), []byte(`{"event":"claim","at":1}`), []byte("null"), false)
	f.Fuzz(func(t *testing.T, drafts, outbox, audit, state []byte, withLog bool) {
		in := w.input(withLog)
		in.Files[sandbox.Drafts], in.Files[sandbox.Outbox], in.Files[sandbox.Audit] = drafts, outbox, audit
		in.Files[sandbox.State] = state
		v := Check(in)
		for _, x := range v.Violations {
			if _, ok := Lookup(x.Invariant); !ok {
				t.Fatalf("unknown invariant %q", x.Invariant)
			}
		}
	})
}
