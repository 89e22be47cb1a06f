package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func lines(ls ...string) []byte {
	if len(ls) == 0 {
		return nil
	}
	return []byte(strings.Join(ls, "\n") + "\n")
}

func TestAppendLogFindsWhatChanged(t *testing.T) {
	cases := []struct {
		name   string
		before []byte
		now    []byte
		want   *rewrite // nil: only appended
		added  int
		hist   []byte
	}{
		{"appended", lines("a", "b"), lines("a", "b", "c"), nil, 1, lines("a", "b", "c")},
		{"a partial line is not written yet", lines("a"), []byte("a\nb"), nil, 0, lines("a")},
		{"the same again", lines("a", "b"), lines("a", "b"), nil, 0, lines("a", "b")},
		{"truncated", lines("a", "b", "c"), lines("a"),
			&rewrite{line: 2, lost: [][]byte{[]byte("b"), []byte("c")}, truncated: true}, 0, lines("a", "b", "c")},
		{"emptied", lines("a"), nil, &rewrite{line: 1, lost: [][]byte{[]byte("a")}, truncated: true}, 0, lines("a")},
		{"a line changed in place", lines("a", "b", "c"), lines("a", "B", "c"),
			&rewrite{line: 2, lost: [][]byte{[]byte("b")}, fresh: 1, kept: 1}, 1, lines("a", "b", "c", "B")},
		{"changed, then appended", lines("a", "b", "c"), lines("A", "b", "c", "d"),
			&rewrite{line: 1, lost: [][]byte{[]byte("a")}, fresh: 1, kept: 2}, 2, lines("a", "b", "c", "A", "d")},
		{"a middle line removed", lines("a", "b", "c", "d"), lines("a", "c", "d", "e"),
			&rewrite{line: 2, lost: [][]byte{[]byte("b")}, kept: 2}, 1, lines("a", "b", "c", "d", "e")},
		{"a line put before", lines("a", "b"), lines("x", "a", "b"),
			&rewrite{line: 1, lost: [][]byte{}, fresh: 1, kept: 2}, 1, lines("a", "b", "x")},
		{"replaced by other lines", lines("a", "b"), lines("x", "y", "z"),
			&rewrite{line: 1, lost: [][]byte{[]byte("a"), []byte("b")}}, 3, lines("a", "b", "x", "y", "z")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &appendLog{}
			_, n := l.whole(c.before, false)
			before := n
			rw, added := l.whole(c.now, false)
			assert.Equal(t, c.want, rw)
			assert.Equal(t, c.added, added)
			assert.Equal(t, string(c.hist), string(l.history()))
			assert.Equal(t, before+added, l.total, "every line seen counts once")
		})
	}
}

func TestAppendLogAfterARewriteKeepsGrowing(t *testing.T) {
	l := &appendLog{}
	l.whole(lines("a", "b"), false)
	rw, _ := l.whole(lines("a"), false)
	require.NotNil(t, rw)
	assert.Equal(t, 1, l.more([]byte("c\nd")), "the partial d is not written yet")
	assert.Equal(t, "a\nc\n", string(l.cur))
	assert.Equal(t, "c\n", string(l.lastLine()))
	assert.Equal(t, lines("a", "b", "c"), l.history())
	assert.Equal(t, 3, l.total)
}

// unsender is an in-process implementation that declares a draft and sends
// it, unapproved, at tick 1, and takes the send back at tick 2 as erase
// does to the outbox's content.
func unsender(erase func(old []byte) []byte) sandbox.Factory {
	return func() sandbox.Implementation {
		done := map[int]bool{}
		return stepFunc(func(env *sandbox.Env) error {
			tick, err := sandbox.ReadClock(env.Files)
			if err != nil || done[tick] {
				return err
			}
			done[tick] = true
			switch tick {
			case 1:
				if err := env.Files.Append(sandbox.Drafts, []byte(unsentDraft)); err != nil {
					return err
				}
				return env.Files.Append(sandbox.Outbox, []byte(unsentEffect))
			case 2:
				old, _ := env.Files.Read(sandbox.Outbox)
				return env.Files.Write(sandbox.Outbox, erase(old))
			}
			return nil
		})
	}
}

const (
	unsentDraft  = `{"draft_id":"d1","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"sha256:x","declared_at":1,"origin":"model-free"}`
	unsentEffect = `{"effect_id":"e1","draft_id":"d1","sent_at":1}`
)

// judgeBoth judges a run with both oracles and requires them to agree.
func judgeBoth(t *testing.T, b *scenarios.Bundle, res *Result) checker.Verdict {
	t.Helper()
	in := checker.Input{Bundle: b, Files: res.Files.Files(), Log: res.Log}
	v := checker.Check(in)
	hv := history.Check(history.Compile(history.Input{Bundle: b, Files: in.Files, Log: in.Log}))
	g := checker.Guard(v, hv)
	require.True(t, g.Agree, g.String())
	return v
}

func l2Toy() *scenarios.Bundle {
	b := toyBundle()
	b.Meta.TopLevel = 2
	b.Meta.Horizon = 4
	b.Approvals = nil
	return b
}

func TestAnUnsendIsOnRecordAndStillJudged(t *testing.T) {
	cases := map[string]func([]byte) []byte{
		"truncated": func([]byte) []byte { return nil },
		"rewritten": func(old []byte) []byte {
			return []byte(strings.Replace(string(old), `"sent_at":1`, `"sent_at":2`, 1))
		},
	}
	for name, erase := range cases {
		t.Run(name, func(t *testing.T) {
			b := l2Toy()
			res := run(t, b, unsender(erase), 1)
			rws := kinds(res, sandbox.LogRewrite)
			require.Len(t, rws, 1)
			assert.Equal(t, sandbox.Outbox, rws[0].Rewrite().File)
			assert.Equal(t, 2, rws[0].Tick)
			assert.Equal(t, []string{unsentEffect}, rws[0].Rewrite().Lost, "the lost line, verbatim")
			assert.Equal(t, 1, rws[0].Line)
			for _, r := range kinds(res, sandbox.LogTickEnd) {
				if r.Tick >= 1 {
					assert.GreaterOrEqual(t, r.Lines[sandbox.Outbox], 1, "a line seen stays counted")
				}
			}
			v := judgeBoth(t, b, res)
			ids := map[string]bool{}
			for _, x := range v.Violations {
				ids[x.Invariant] = true
			}
			assert.True(t, ids["L0.append-only"])
			assert.True(t, ids["L2.approval-binding"], "the erased send had no approval")
		})
	}
}

func TestASendTakenBackInTheSameStepIsSeen(t *testing.T) {
	b := l2Toy()
	sent := false
	res := run(t, b, func() sandbox.Implementation {
		return stepFunc(func(env *sandbox.Env) error {
			tick, _ := sandbox.ReadClock(env.Files)
			if tick != 1 || sent {
				return nil
			}
			sent = true
			if err := env.Files.Append(sandbox.Drafts, []byte(unsentDraft)); err != nil {
				return err
			}
			if err := env.Files.Append(sandbox.Outbox, []byte(unsentEffect)); err != nil {
				return err
			}
			return env.Files.Write(sandbox.Outbox, nil)
		})
	}, 1)
	rws := kinds(res, sandbox.LogRewrite)
	require.Len(t, rws, 1)
	assert.Equal(t, 2, rws[0].Written, "after the draft and the send")
	assert.Empty(t, res.Files.View(sandbox.Outbox))
	v := judgeBoth(t, b, res)
	var got []string
	for _, x := range v.Violations {
		got = append(got, x.Invariant)
	}
	assert.Contains(t, got, "L0.append-only")
	assert.Contains(t, got, "L2.approval-binding")
}

// A draft taken back is still declared: an approval due after it binds it.
func TestApprovalsBindDraftsTakenBack(t *testing.T) {
	b := l2Toy()
	b.Approvals = []scenarios.Approval{{ID: "ap1", At: 3, Match: scenarios.Match{WorkID: "w1"}, Decision: "approve"}}
	b.Normalize()
	res := run(t, b, func() sandbox.Implementation {
		done := map[int]bool{}
		return stepFunc(func(env *sandbox.Env) error {
			tick, _ := sandbox.ReadClock(env.Files)
			if done[tick] {
				return nil
			}
			done[tick] = true
			switch tick {
			case 1:
				return env.Files.Append(sandbox.Drafts, []byte(unsentDraft))
			case 2:
				return env.Files.Write(sandbox.Drafts, nil)
			}
			return nil
		})
	}, 1)
	approves := kinds(res, sandbox.LogApprove)
	require.Len(t, approves, 1)
	assert.Equal(t, "d1", approves[0].DraftID)
	assert.Len(t, kinds(res, sandbox.LogRewrite), 1)
}

// Writing a log whole is appending when every line written before is still
// in place.
func TestWritingALogWholeThatKeepsItsLinesIsAnAppend(t *testing.T) {
	b := l2Toy()
	res := run(t, b, unsender(func(old []byte) []byte {
		return append(append([]byte(nil), old...), `{"effect_id":"e2","draft_id":"d1","sent_at":2}`+"\n"...)
	}), 1)
	assert.Empty(t, kinds(res, sandbox.LogRewrite))
	for _, x := range judgeBoth(t, b, res).Violations {
		assert.NotEqual(t, "L0.append-only", x.Invariant, x.Detail)
	}
	ends := kinds(res, sandbox.LogTickEnd)
	assert.Equal(t, []string{sandbox.Outbox}, ends[2].Writes, "the line the write added is listed")
}

// An implementation that only appends leaves no rewrite record, and its
// run log counts exactly its lines.
func TestAppendingOnlyLeavesNoRewrite(t *testing.T) {
	res := run(t, toyBundle(), func() sandbox.Implementation { return toy{} }, 1)
	assert.Empty(t, kinds(res, sandbox.LogRewrite))
	ends := kinds(res, sandbox.LogTickEnd)
	last := ends[len(ends)-1]
	for _, name := range sandbox.ImplLogs {
		assert.Equal(t, countLines(res.Files.View(name)), last.Lines[name], name)
	}
}

// linePool holds the lines a random implementation writes, per log.
var linePool = map[string][]string{
	sandbox.Drafts: {unsentDraft,
		`{"draft_id":"d2","work_id":"w-m1","conversation_id":"c1","body":"b","content_hash":"sha256:y","declared_at":2,"origin":"model-free"}`},
	sandbox.Outbox: {unsentEffect, `{"effect_id":"e2","draft_id":"d2","sent_at":2}`, `{"effect_id":"e1","draft_id":"d1","sent_at":5}`},
	sandbox.Audit: {`{"event":"admission","at":1,"work_id":"w-m1","message_id":"m1","rules_hash":"x"}`,
		`{"event":"note","at":2}`, `{"event":"resolution","at":3,"work_id":"w-m1","outcome":"completed","reason":"sent"}`},
}

// logOp is one change a random implementation makes to one of its logs.
type logOp struct {
	file      string
	kind      int // 0 append, 1 truncate, 2 drop a line, 3 change a line, 4 insert a line, 5 write it again, 6 append by writing
	at, which int
}

func (op logOp) apply(s sandbox.Store) error {
	old, _ := s.Read(op.file)
	ls := splitLines(complete(old))
	line := []byte(linePool[op.file][op.which%len(linePool[op.file])])
	at := 0
	if len(ls) > 0 {
		at = op.at % (len(ls) + 1)
	}
	switch op.kind {
	case 0:
		return s.Append(op.file, line)
	case 1:
		ls = ls[:at]
	case 2:
		if at < len(ls) {
			ls = append(ls[:at:at], ls[at+1:]...)
		}
	case 3:
		if at < len(ls) {
			ls[at] = line
		}
	case 4:
		ls = append(ls[:at:at], append([][]byte{line}, ls[at:]...)...)
	case 6:
		ls = append(ls, line)
	}
	var data []byte
	for _, l := range ls {
		data = append(append(data, l...), '\n')
	}
	return s.Write(op.file, data)
}

// Whatever an implementation does to its logs, every line the harness saw
// is in the file or in a rewrite record, each rewrite is one violation, the
// lost lines are lines it wrote, and the two oracles agree.
func TestEveryLineSeenIsKept(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := l2Toy()
		b.Meta.Horizon = 6
		plan := map[int][]logOp{}
		for tick := 0; tick <= b.Meta.Horizon; tick++ {
			for i, n := 0, rapid.IntRange(0, 4).Draw(rt, "ops"); i < n; i++ {
				plan[tick] = append(plan[tick], logOp{file: rapid.SampledFrom(sandbox.ImplLogs).Draw(rt, "file"),
					kind: rapid.IntRange(0, 6).Draw(rt, "kind"), at: rapid.IntRange(0, 5).Draw(rt, "at"),
					which: rapid.IntRange(0, 2).Draw(rt, "which")})
			}
		}
		written := map[string]bool{}
		for _, ls := range linePool {
			for _, l := range ls {
				written[l] = true
			}
		}
		res, err := Run(b, func() sandbox.Implementation {
			done := map[int]bool{}
			return stepFunc(func(env *sandbox.Env) error {
				tick, _ := sandbox.ReadClock(env.Files)
				if done[tick] {
					return nil
				}
				done[tick] = true
				for _, op := range plan[tick] {
					if err := op.apply(env.Files); err != nil {
						return err
					}
				}
				return nil
			})
		}, Options{Seed: 1})
		require.NoError(rt, err)
		rewrites := kinds(res, sandbox.LogRewrite)
		lost := map[string]int{}
		for _, r := range rewrites {
			lost[r.Rewrite().File] += len(r.Rewrite().Lost)
			for _, l := range r.Rewrite().Lost {
				require.True(rt, written[l], "a lost line the implementation never wrote: %q", l)
			}
		}
		ends := kinds(res, sandbox.LogTickEnd)
		for _, name := range sandbox.ImplLogs {
			final := countLines(res.Files.View(name))
			require.Equal(rt, ends[len(ends)-1].Lines[name], final+lost[name], "%s: every line seen is in the file or in the run log", name)
		}
		in := checker.Input{Bundle: b, Files: res.Files.Files(), Log: res.Log}
		v := checker.Check(in)
		n := 0
		for _, x := range v.Violations {
			if x.Invariant == "L0.append-only" {
				n++
			}
		}
		require.Equal(rt, len(rewrites), n, "one violation per rewrite, no line missing")
		hv := history.Check(history.Compile(history.Input{Bundle: b, Files: in.Files, Log: in.Log}))
		g := checker.Guard(v, hv)
		require.True(rt, g.Agree, g.String())
	})
}
