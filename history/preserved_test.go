package history_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// weak-unsend sends drafts before their approval and takes the lines back
// at once: the history still holds each of those sends, at the tick the
// harness saw it, sourced to the run log's rewrite record.
func TestCompileKeepsLinesTakenBack(t *testing.T) {
	b := published(t)["l2-govern"]
	res := play(t, b, "weak-unsend", 1)
	h := compile(res, b, true)
	bySrc := map[string][]history.Op{}
	for _, op := range h.Ops {
		bySrc[op.Src()] = append(bySrc[op.Src()], op)
	}
	rewrites := 0
	for i, r := range res.Log {
		if r.Kind != sandbox.LogRewrite {
			continue
		}
		rewrites++
		require.Len(t, r.Rewrite().Lost, 1)
		ops := bySrc[fmt.Sprintf("run.jsonl:%d", i+1)]
		require.Len(t, ops, 1, "the send taken back at run.jsonl:%d", i+1)
		assert.Equal(t, history.OpSend, ops[0].Type)
		assert.Equal(t, r.Tick, ops[0].Tick, "sent and taken back in one step")
		assert.Contains(t, r.Rewrite().Lost[0], ops[0].R().EffectID)
	}
	require.Positive(t, rewrites)
	outbox, _ := sandbox.ParseOutbox(res.Files.View(sandbox.Outbox))
	for _, l := range outbox {
		assert.Len(t, bySrc[fmt.Sprintf("outbox.jsonl:%d", l.N)], 1, "line %d", l.N)
	}
	for _, op := range compile(res, b, false).Ops {
		assert.False(t, strings.HasPrefix(op.Src(), sandbox.RunLogFile), "without the log only the files count")
	}
}

// A line put before lines already written is numbered after them, and
// every operation names where its line is now.
func TestCompileNumbersLinesInTheOrderWritten(t *testing.T) {
	b := &scenarios.Bundle{Format: scenarios.Format, Meta: scenarios.Meta{Name: "l-test", TopLevel: 1, Horizon: 3}}
	e := func(id string) string { return fmt.Sprintf(`{"effect_id":%q,"draft_id":"d1","sent_at":1}`, id) }
	files := map[string][]byte{sandbox.Outbox: []byte(e("e0") + "\n" + e("e1") + "\n" + e("e2") + "\n")}
	log := []sandbox.LogRecord{
		{Kind: sandbox.LogStart},
		{Kind: sandbox.LogTickEnd, Tick: 0, Lines: map[string]int{sandbox.Outbox: 1}, Writes: []string{sandbox.Outbox}},
		{Kind: sandbox.LogRewrite, Tick: 1, Line: 1, LogRewriteInfo: &sandbox.LogRewriteInfo{File: sandbox.Outbox, Fresh: 1, Kept: 1}},
		{Kind: sandbox.LogTickEnd, Tick: 1, Lines: map[string]int{sandbox.Outbox: 3}, Writes: []string{sandbox.Outbox, sandbox.Outbox}},
		{Kind: sandbox.LogEnd, Tick: 1},
	}
	h := history.Compile(history.Input{Bundle: b, Files: files, Log: log})
	var got []string
	for _, op := range h.Ops {
		if op.Type == history.OpSend {
			got = append(got, fmt.Sprintf("%s@%d=%s", op.R().EffectID, op.Tick, op.Src()))
		}
	}
	assert.Equal(t, []string{"e1@0=outbox.jsonl:2", "e0@1=outbox.jsonl:1", "e2@1=outbox.jsonl:3"}, got)
}

// Whatever a run log's rewrite records and line counts say, compiling
// never panics and never makes up more operations than the artifacts hold
// lines for.
func TestCompileBoundsRewriteRecords(t *testing.T) {
	b := published(t)["l2-govern"]
	base := play(t, b, "weak-unsend", 1)
	rapid.Check(t, func(rt *rapid.T) {
		files := map[string][]byte{}
		for name, data := range base.Files.Files() {
			files[name] = append([]byte(nil), data...)
		}
		if rapid.Bool().Draw(rt, "truncate outbox") {
			files[sandbox.Outbox] = files[sandbox.Outbox][:rapid.IntRange(0, len(files[sandbox.Outbox])).Draw(rt, "cut")]
		}
		lines := 0
		log := append([]sandbox.LogRecord(nil), base.Log...)
		for k := rapid.IntRange(0, 6).Draw(rt, "edits"); k > 0; k-- {
			i := rapid.IntRange(0, len(log)-1).Draw(rt, "at")
			r := log[i]
			switch rapid.IntRange(0, 1).Draw(rt, "what") {
			case 0:
				r.Kind = sandbox.LogRewrite
				rw := &sandbox.LogRewriteInfo{File: rapid.SampledFrom(sandbox.ImplLogs).Draw(rt, "file")}
				r.Line = rapid.IntRange(-2, 40).Draw(rt, "line")
				rw.Lost = rapid.SliceOfN(rapid.SampledFrom([]string{"", "{", `{"effect_id":"x","draft_id":"d","sent_at":1}`}), 0, 4).Draw(rt, "lost")
				rw.Fresh = rapid.IntRange(-2, 1<<30).Draw(rt, "fresh")
				rw.Kept = rapid.IntRange(-2, 1<<30).Draw(rt, "kept")
				r.LogRewriteInfo = rw
				if rapid.Bool().Draw(rt, "no rewrite fields") {
					// A hand-made log may name a rewrite and give none of
					// its fields.
					r.LogRewriteInfo = nil
				}
			case 1:
				r.Kind = sandbox.LogTickEnd
				r.Lines = map[string]int{sandbox.Outbox: rapid.IntRange(-2, 60).Draw(rt, "count")}
			}
			log[i] = r
		}
		for _, r := range log {
			if r.Kind == sandbox.LogRewrite {
				lines += len(r.Rewrite().Lost)
			}
		}
		for _, name := range []string{sandbox.Drafts, sandbox.Outbox, sandbox.Audit} {
			lines += strings.Count(string(files[name]), "\n") + 1
		}
		h := history.Compile(history.Input{Bundle: b, Files: files, Log: log})
		_ = history.Check(h)
		impl := 0
		for _, op := range h.Ops {
			if op.Actor == history.ActorImpl && op.Type != history.OpState {
				impl++
			}
		}
		require.LessOrEqual(rt, impl, lines)
	})
}
