package history_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func harnessOps(h *history.History, typ history.OpType) []history.Op {
	var out []history.Op
	for _, op := range h.Ops {
		if op.Actor == history.ActorHarness && op.Type == typ {
			op.Index = 0
			op.SetSrc("")
			out = append(out, op)
		}
	}
	return out
}

func edited(files map[string][]byte, name string, data []byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	out[name] = data
	return out
}

// Without a run log, the engine's sandboxes are explained by their bundles:
// every approvals and signals line of every published run, whatever the
// implementation, is in the history, and nothing is put back.
func TestFileOrderKeepsEveryHarnessLineOfTheEngine(t *testing.T) {
	for name, b := range published(t) {
		if b.NeedsRunLog() {
			continue // a stamped line is placed by the run log alone (D72)
		}
		for _, im := range examples.All() {
			res := play(t, b, im.Name, 1)
			h := compile(res, b, false)
			apps, _ := sandbox.ParseApprovals(res.Files.View(sandbox.Approvals))
			sigs, _ := sandbox.ParseSignals(res.Files.View(sandbox.Signals))
			assert.Len(t, harnessOps(h, history.OpApprove), len(apps), "%s/%s", name, im.Name)
			assert.Len(t, harnessOps(h, history.OpSignal), len(sigs), "%s/%s", name, im.Name)
			for _, op := range h.Ops {
				assert.False(t, strings.HasPrefix(op.Src(), "bundle:signals/"), "%s/%s: %s put back", name, im.Name, op.R().SignalID)
			}
		}
	}
}

// With a run log the history holds what the log says the harness wrote,
// however the sandbox's approvals and signals were edited after the run.
func TestRunLogSaysWhatTheHarnessWrote(t *testing.T) {
	b := published(t)["l4-operator-escalation"]
	res := play(t, b, "weak-ignore-escalation", 1)
	clean := history.Compile(history.Input{Bundle: b, Files: res.Files.Files(), Log: res.Log})
	files := edited(res.Files.Files(), sandbox.Signals, nil)
	files[sandbox.Approvals] = bytes.ReplaceAll(files[sandbox.Approvals], []byte(`"decision":"approve"`), []byte(`"decision":"reject"`))
	tampered := history.Compile(history.Input{Bundle: b, Files: files, Log: res.Log})
	require.NotEmpty(t, harnessOps(clean, history.OpSignal))
	require.NotEmpty(t, harnessOps(clean, history.OpApprove))
	assert.Equal(t, harnessOps(clean, history.OpSignal), harnessOps(tampered, history.OpSignal))
	assert.Equal(t, harnessOps(clean, history.OpApprove), harnessOps(tampered, history.OpApprove))
	assert.Equal(t, history.Check(clean).Counts, history.Check(tampered).Counts)
}

// Without a run log an emptied signals.jsonl loses no escalation the bundle
// proves was written: it is put back at the earliest tick the harness could
// have written it, and the effect after it is still after it.
func TestFileOrderPutsBackAProvenEscalation(t *testing.T) {
	b := published(t)["l4-operator-escalation"]
	res := play(t, b, "weak-ignore-escalation", 1)
	clean := history.Check(compile(res, b, false))
	require.Positive(t, clean.Count(history.H4EffectAfterCancellation, history.CauseEscalation))
	h := history.Compile(history.Input{Bundle: b, Files: edited(res.Files.Files(), sandbox.Signals, nil)})
	sigs := harnessOps(h, history.OpSignal)
	require.Len(t, sigs, 1)
	var src string
	for _, op := range h.Ops {
		if op.Type == history.OpSignal {
			src = op.Src()
		}
	}
	assert.Equal(t, "bundle:signals/"+b.Signals[0].ID, src)
	assert.Equal(t, clean.Count(history.H4EffectAfterCancellation, history.CauseEscalation),
		history.Check(h).Count(history.H4EffectAfterCancellation, history.CauseEscalation))
}

// Without a run log a line the bundle does not explain is left out: an
// approve line nobody scheduled authorizes nothing.
func TestFileOrderLeavesOutUnexplainedLines(t *testing.T) {
	b := published(t)["l2-govern"]
	res := play(t, b, "weak-send-without-approval", 1)
	clean := history.Check(compile(res, b, false))
	unauthorized := clean.Count(history.H5UnauthorizedEffect, "")
	require.Positive(t, unauthorized)
	drafts, _ := sandbox.ParseDrafts(res.Files.View(sandbox.Drafts))
	require.NotEmpty(t, drafts)
	var extra []byte
	for _, d := range drafts {
		line, err := sandbox.MarshalLine(sandbox.ApprovalRecord{ApprovalID: "extra-" + d.Rec.DraftID, DraftID: d.Rec.DraftID,
			ContentHash: d.Rec.ContentHash, Decision: "approve", DecidedAt: d.Rec.DeclaredAt})
		require.NoError(t, err)
		extra = append(append(extra, line...), '\n')
	}
	files := edited(res.Files.Files(), sandbox.Approvals, append(append([]byte(nil), res.Files.View(sandbox.Approvals)...), extra...))
	h := history.Compile(history.Input{Bundle: b, Files: files})
	for _, op := range h.Ops {
		assert.False(t, strings.HasPrefix(op.R().ApprovalID, "extra-"), "unexplained line %s is in the history", op.Src)
	}
	assert.Equal(t, unauthorized, history.Check(h).Count(history.H5UnauthorizedEffect, ""))
}

// Without a run log a forged approval's line is kept whenever it is not
// valid, whichever way it is forged (D33), and left out when it binds a
// declared draft with that draft's hash: no forgery does that.
func TestFileOrderKeepsAnyForgery(t *testing.T) {
	b := &scenarios.Bundle{Format: scenarios.Format, Meta: scenarios.Meta{Name: "l2-forgeries", TopLevel: 2, Horizon: 20},
		Fleet: []string{"agent-1"}, Mode: scenarios.Mode{Posture: "normal"},
		Rules: []scenarios.Rule{{ID: "all", Admit: true}},
		Inbox: []scenarios.Delivery{{ID: "m1", ConversationID: "c1", From: "a@x", Subject: "s", At: 1}},
		Approvals: []scenarios.Approval{
			{ID: "f1", At: 1, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve", Forge: scenarios.ForgeHashMismatch},
			{ID: "f2", At: 3, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve", Forge: scenarios.ForgeDangling},
			{ID: "f3", At: 3, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve", Forge: scenarios.ForgeDangling},
		}}
	lines := func(vs ...any) []byte {
		var out []byte
		for _, v := range vs {
			l, err := sandbox.MarshalLine(v)
			require.NoError(t, err)
			out = append(append(out, l...), '\n')
		}
		return out
	}
	files := map[string][]byte{
		sandbox.Inbox: lines(sandbox.Message{ID: "m1", ConversationID: "c1", From: "a@x", Subject: "s", At: 1}),
		sandbox.Audit: lines(sandbox.AuditRecord{Event: "admission", At: 1, WorkID: "w1", MessageID: "m1", RulesHash: "h"}),
		sandbox.Drafts: lines(sandbox.Draft{DraftID: "d1", WorkID: "w1", ConversationID: "c1", Body: "b", ContentHash: "sha256:b",
			DeclaredAt: 2, Origin: sandbox.Origin{ModelFree: true}}),
		sandbox.Approvals: lines(
			// a hash mismatch fired before any draft: it names a draft not yet declared
			sandbox.ApprovalRecord{ApprovalID: "f1", DraftID: "d1", ContentHash: "sha256:x", Decision: "approve", DecidedAt: 1},
			// a dangling one naming the declared draft with another hash
			sandbox.ApprovalRecord{ApprovalID: "f2", DraftID: "d1", ContentHash: "md5:0", Decision: "approve", DecidedAt: 3},
			// a "forgery" that binds the draft with its own hash
			sandbox.ApprovalRecord{ApprovalID: "f3", DraftID: "d1", ContentHash: "sha256:b", Decision: "approve", DecidedAt: 3}),
	}
	h := history.Compile(history.Input{Bundle: b, Files: files})
	var kept []string
	for _, op := range h.Ops {
		if op.Type == history.OpApprove {
			kept = append(kept, op.R().ApprovalID)
		}
	}
	assert.Equal(t, []string{"f1", "f2"}, kept)
}
