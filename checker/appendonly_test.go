package checker

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/sim/sandbox"
)

// takeBack rewrites an implementation log at tick the way an implementation
// that breaks append-only would, and logs the rewrite record the engine
// writes for it: from line from on, lost lines are taken out and fresh ones
// put in their place, the old lines after them kept.
func (w *world) takeBack(file string, tick, from, lost int, fresh ...string) {
	for _, x := range w.writes {
		require.LessOrEqual(w.t, x.tick, tick, "writes must be made in time order")
	}
	old := fileLines(w.files[file])
	require.LessOrEqual(w.t, from-1+lost, len(old))
	rw := &sandbox.LogRewriteInfo{File: file, Kept: len(old) - (from - 1) - lost}
	rec := sandbox.LogRecord{Kind: sandbox.LogRewrite, Tick: tick, Line: from, LogRewriteInfo: rw}
	for _, l := range old[from-1 : from-1+lost] {
		rw.Lost = append(rw.Lost, string(l))
	}
	if rw.Kept > 0 {
		rw.Fresh = len(fresh)
	}
	for _, x := range w.writes {
		if x.tick == tick {
			rec.Written++
		}
	}
	var now [][]byte
	now = append(now, old[:from-1]...)
	for _, f := range fresh {
		now = append(now, []byte(f))
	}
	now = append(now, old[from-1+lost:]...)
	w.files[file] = nil
	for _, l := range now {
		w.appendLine(file, l)
	}
	w.harness = append(w.harness, rec)
	// Each fresh line is a line the harness sees for the first time.
	for range fresh {
		w.writes = append(w.writes, implWrite{tick: tick, file: file})
	}
}

// firstRewrite is the run log reference of the first rewrite record of a log.
func firstRewrite(t *testing.T, log []sandbox.LogRecord) string {
	for i, r := range log {
		if r.Kind == sandbox.LogRewrite {
			return runLogRef(i)
		}
	}
	t.Fatal("no rewrite record")
	return ""
}

func effectLine(t testing.TB, id, draft string, at int) string {
	return string(mustLine(t, sandbox.Effect{EffectID: id, DraftID: draft, SentAt: at}))
}

// The oracles agree on a run whose implementation took lines back.
func requireAgree(t *testing.T, in Input) {
	t.Helper()
	hv := history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log}))
	g := Guard(Check(in), hv)
	require.True(t, g.Agree, g.String())
}

func TestAppendOnly(t *testing.T) {
	t.Run("appending only", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			assert.Empty(t, only(Check(happy(t, 6).input(withLog)), "L0.append-only"))
		})
	})
	t.Run("an unapproved send taken back still counts", func(t *testing.T) {
		w := opened(t, 2, 30)
		w.send("e1", "d1", 2)
		w.takeBack(sandbox.Outbox, 3, 1, 1)
		in := w.input(true)
		v := Check(in)
		rw := firstRewrite(t, in.Log)
		got := only(v, "L0.append-only")
		require.Len(t, got, 1)
		assert.Equal(t, []string{rw}, got[0].Evidence)
		assert.Equal(t, 3, got[0].Tick)
		assert.Equal(t, Fail, v.Levels[0])
		binding := only(v, "L2.approval-binding")
		require.Len(t, binding, 1, "the erased send is judged")
		assert.Equal(t, []string{rw}, binding[0].Evidence, "cited where it survives")
		assert.Equal(t, 2, binding[0].Tick, "at the tick the harness saw it")
		requireAgree(t, in)

		// Without the run log nothing of it can be seen.
		v = Check(w.input(false))
		assert.Empty(t, only(v, "L0.append-only"))
		assert.Empty(t, only(v, "L2.approval-binding"))
	})
	t.Run("a send rewritten in place", func(t *testing.T) {
		// Sent unapproved at 2; once approved at 4 the line is rewritten
		// to say it was sent at 4.
		w := opened(t, 2, 30)
		w.send("e1", "d1", 2)
		w.approve("ap1", "m1", "d1", 4)
		w.takeBack(sandbox.Outbox, 4, 1, 1, effectLine(t, "e1", "d1", 4))
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 4)
		in := w.input(true)
		v := Check(in)
		rw := firstRewrite(t, in.Log)
		assert.Len(t, only(v, "L0.append-only"), 1)
		binding := only(v, "L2.approval-binding")
		require.Len(t, binding, 1)
		assert.Equal(t, []string{rw}, binding[0].Evidence)
		dup := only(v, "L1.duplicate-effect")
		require.Len(t, dup, 1, "the line written again is a second send")
		assert.Equal(t, []string{rw, "outbox.jsonl:1"}, dup[0].Evidence)
		requireAgree(t, in)
	})
	t.Run("a send after escalation taken back", func(t *testing.T) {
		w := opened(t, 4, 30)
		w.escalate("s1", "m1", "w1", 3)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 4)
		w.takeBack(sandbox.Outbox, 6, 1, 1)
		w.resolve("w1", sandbox.OutcomeAbandoned, "operator_escalation", 6)
		in := w.input(true)
		v := Check(in)
		rw := firstRewrite(t, in.Log)
		late := only(v, "L4.send-after-escalation")
		require.Len(t, late, 1)
		assert.Equal(t, rw, late[0].Evidence[0])
		assert.Len(t, only(v, "L0.append-only"), 1)
		requireAgree(t, in)
	})
	t.Run("a line put before lines written", func(t *testing.T) {
		w := opened(t, 2, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		w.takeBack(sandbox.Outbox, 3, 1, 0, effectLine(t, "e0", "d1", 1))
		in := w.input(true)
		v := Check(in)
		got := only(v, "L0.append-only")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "put before")
		dup := only(v, "L1.duplicate-effect")
		require.Len(t, dup, 1)
		assert.Equal(t, []string{"outbox.jsonl:2", "outbox.jsonl:1"}, dup[0].Evidence,
			"the first send is the file's second line now, the one put before it its first")
		assert.Equal(t, 3, dup[0].Tick, "the line put before was written last")
		requireAgree(t, in)
	})
	t.Run("a draft taken back is still declared", func(t *testing.T) {
		w := opened(t, 2, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		w.takeBack(sandbox.Drafts, 3, 1, 1)
		in := w.input(true)
		v := Check(in)
		assert.Equal(t, []string{"L0.append-only"}, ids(v))
		requireAgree(t, in)
		// Without the log the send has no declared draft at all.
		assert.Contains(t, ids(Check(w.input(false))), "L0.outbox-declared")
	})
	t.Run("the sandbox shorter than the log counted", func(t *testing.T) {
		// Edited after the run, or rewritten after the harness last looked.
		w := happy(t, 2)
		in := w.input(true)
		in.Files[sandbox.Outbox] = nil
		v := Check(in)
		got := only(v, "L0.append-only")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "1 line(s) fewer")
		last := -1
		for i, r := range in.Log {
			if r.Kind == sandbox.LogTickEnd && r.Lines[sandbox.Outbox] == 1 && last < 0 {
				last = i
			}
		}
		assert.Equal(t, []string{runLogRef(last)}, got[0].Evidence)
		assert.Empty(t, only(Check(w.input(true)), "L0.append-only"), "the whole sandbox is fine")
	})
	t.Run("lines after a rewrite keep their own numbers", func(t *testing.T) {
		w := opened(t, 2, 30)
		w.raw(sandbox.Outbox, 2, `{"effect_id":`)
		w.takeBack(sandbox.Outbox, 3, 1, 1)
		w.raw(sandbox.Outbox, 4, `not json`)
		in := w.input(true)
		v := Check(in)
		var refs []string
		for _, x := range only(v, "L0.record-format") {
			refs = append(refs, x.Evidence...)
		}
		assert.ElementsMatch(t, []string{firstRewrite(t, in.Log), "outbox.jsonl:1"}, refs)
	})
}

func TestAppendOnlyBadRunLogs(t *testing.T) {
	w := happy(t, 6)
	in := w.input(true)
	bad := []sandbox.LogRecord{
		{Kind: sandbox.LogRewrite, Tick: 2, Line: 0, LogRewriteInfo: &sandbox.LogRewriteInfo{File: sandbox.Outbox, Lost: []string{"x"}}},
		{Kind: sandbox.LogRewrite, Tick: 2, Line: 7, LogRewriteInfo: &sandbox.LogRewriteInfo{File: sandbox.Outbox, Kept: -3}},
		{Kind: sandbox.LogRewrite, Tick: 2, Line: 1, LogRewriteInfo: &sandbox.LogRewriteInfo{File: sandbox.Outbox, Lost: []string{"a", "b", "c"}, Kept: 9, Fresh: 1 << 40}},
		{Kind: sandbox.LogTickEnd, Tick: 3, Lines: map[string]int{sandbox.Outbox: 1 << 40, sandbox.Audit: -5}},
		{Kind: sandbox.LogRewrite, Tick: 3, Line: 2, LogRewriteInfo: &sandbox.LogRewriteInfo{File: sandbox.Audit, Fresh: 1 << 40, Kept: 1}},
	}
	log := append(append([]sandbox.LogRecord(nil), in.Log[:len(in.Log)-1]...), bad...)
	in.Log = append(log, in.Log[len(in.Log)-1])
	v := Check(in)
	assert.NotEmpty(t, only(v, "L0.append-only"), "every rewrite record is reported")
	for _, a := range build(in).appendLogs {
		assert.LessOrEqual(t, bytes.Count(a.data, []byte("\n")), 16, "no line is made up")
	}
}
