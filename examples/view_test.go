package examples

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

// parseRecords is the caches' parser of generic audit records.
var parseRecords = parsedBy(sandbox.ParseAudit)

// recsOf is what a fresh instance reads from a file: every line's record.
func recsOf(data []byte) []sandbox.AuditRecord {
	return parseRecords(nil, data)
}

const (
	noteA = `{"event":"note","at":1,"n":"a"}`
	noteB = `{"event":"note","at":2,"n":"b"}`
	noteC = `{"event":"note","at":3,"n":"c"}`
)

func TestLogCacheTrustsItsOwnLinesOnlyWhenTheFileHoldsThem(t *testing.T) {
	tests := []struct {
		name string
		// file is the content after this instance appended noteB to
		// noteA's line.
		file string
	}{
		{"as written", noteA + "\n" + noteB + "\n"},
		{"and more after", noteA + "\n" + noteB + "\n" + noteC + "\n"},
		{"rewritten", noteC + "\n" + noteB + "\n"},
		{"truncated", noteA + "\n"},
		{"not written", noteA + "\n" + noteC + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c logCache[sandbox.AuditRecord]
			require.Len(t, c.load([]byte(noteA+"\n"), parseRecords, nil), 1)
			var view []sandbox.AuditRecord
			require.True(t, addLine(&view, &c, []byte(noteB), nil, parseRecords))
			assert.Equal(t, recsOf([]byte(noteA+"\n"+noteB+"\n")), view, "the view shows the new line")
			assert.Equal(t, recsOf([]byte(tc.file)), c.load([]byte(tc.file), parseRecords, nil))
		})
	}
}

func TestLogCacheAfterAnUnterminatedLine(t *testing.T) {
	for _, tail := range []string{`{"event":"no`, noteC} {
		var c logCache[sandbox.AuditRecord]
		partial := noteA + "\n" + tail
		view := c.load([]byte(partial), parseRecords, nil)
		// The appended line continues the unterminated one in the file,
		// which the cache must not take for a line of its own; the view
		// still shows what this instance read, then its line.
		before := append([]sandbox.AuditRecord(nil), view...)
		require.True(t, addLine(&view, &c, []byte(noteB), nil, parseRecords))
		assert.Equal(t, append(before, recsOf([]byte(noteB))...), view, tail)
		file := partial + noteB + "\n"
		assert.Equal(t, recsOf([]byte(file)), c.load([]byte(file), parseRecords, nil), tail)
	}
}

// Whatever happens to the file between loads, a load returns what a fresh
// read returns.
func TestLogCacheMatchesAFreshRead(t *testing.T) {
	lines := []string{noteA, noteB, noteC, `not json`, ``, `{"event":"admission","at":1}`}
	rapid.Check(t, func(t *rapid.T) {
		var c logCache[sandbox.AuditRecord]
		var file []byte
		for range rapid.IntRange(1, 20).Draw(t, "ops") {
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0: // this instance appends a line
				line := rapid.SampledFrom(lines[:3]).Draw(t, "own")
				var view []sandbox.AuditRecord
				view = c.load(file, parseRecords, nil)
				require.True(t, addLine(&view, &c, []byte(line), nil, parseRecords))
				file = append(file, line+"\n"...)
			case 1: // someone else appends a line
				file = append(file, rapid.SampledFrom(lines).Draw(t, "other")+"\n"...)
			case 2: // a partial line
				file = append(file, `{"event":`...)
			case 3: // a rewrite
				file = append([]byte(nil), file[:rapid.IntRange(0, len(file)).Draw(t, "cut")]...)
			case 4:
				require.Equal(t, recsOf(file), c.load(file, parseRecords, nil))
			}
		}
		require.Equal(t, recsOf(file), c.load(file, parseRecords, nil))
	})
}

// In process the shortcuts are taken: a step reads the store's own bytes,
// and a step over the files of the last idle step returns without deriving.
// A changed file is never skipped.
func TestInProcessShortcutsAreTaken(t *testing.T) {
	h := newHarness(t, Reference(), []string{"agent-1"}, supportRules())
	h.at(1, order("m1", "c1", "a@x", "ORD-1"))
	r := &responder{p: reference{}}
	env := &sandbox.Env{Files: h.mem, Model: h.model, Seed: h.seed}
	require.NoError(t, r.Step(env))
	require.NotNil(t, r.settled, "a step with nothing to do settles")
	inbox := slices.Index(inputs, sandbox.Inbox)
	assert.Same(t, unsafe.SliceData(h.mem.View(sandbox.Inbox)), unsafe.SliceData(r.settled[inbox]),
		"the step read the store's bytes without copying")

	audit := len(h.audit())
	r.world = world{} // a skipped step derives nothing
	require.NoError(t, r.Step(env))
	assert.Nil(t, r.world.v, "a step over the settled files derived")
	assert.Len(t, h.audit(), audit)

	h.appendLine(sandbox.Inbox, sandbox.Message{ID: "m2", ConversationID: "c2", From: "b@x",
		Subject: "Order ORD-2", Body: "Where is it?", At: 1})
	require.NoError(t, r.Step(env))
	assert.Greater(t, len(h.audit()), audit, "a step over a changed inbox was skipped")

	plain := &responder{p: reference{}}
	require.NoError(t, plain.Step(&sandbox.Env{Files: &crashStore{mem: h.mem, trace: &h.trace, taken: &h.taken},
		Model: h.model, Seed: h.seed}))
	require.NotNil(t, plain.settled)
	assert.NotSame(t, unsafe.SliceData(h.mem.View(sandbox.Inbox)), unsafe.SliceData(plain.settled[inbox]),
		"a store without View is read by copy")
}

func TestSharedLogIsTakenOnlyForTheBytesItParsed(t *testing.T) {
	file := []byte(noteA + "\n" + noteB + "\n")
	tests := []struct {
		name  string
		data  string
		taken bool
	}{
		{"the same file", noteA + "\n" + noteB + "\n", true},
		{"grown since", noteA + "\n" + noteB + "\n" + noteC + "\n", true},
		{"grown by a torn line", noteA + "\n" + noteB + "\n" + noteC[:9], true},
		{"shorter", noteA + "\n", false},
		{"other bytes", noteA + "\n" + noteC + "\n", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var shared sharedLog[sandbox.AuditRecord]
			var first logCache[sandbox.AuditRecord]
			first.load(file, parseRecords, &shared)
			// A copy of the bytes, so the check looks at them, not at
			// where they lie.
			data := []byte(tc.data)
			parsed := 0
			parse := func(recs []sandbox.AuditRecord, b []byte) []sandbox.AuditRecord {
				parsed += len(b)
				return parseRecords(recs, b)
			}
			var fresh logCache[sandbox.AuditRecord]
			got := fresh.load(data, parse, &shared)
			assert.Equal(t, recsOf(data), got)
			want := len(data)
			if tc.taken {
				want -= len(file)
			}
			assert.Equal(t, want, parsed, "bytes parsed")
		})
	}
}

func TestSharedLogRecordsAreNotWrittenThrough(t *testing.T) {
	var shared sharedLog[sandbox.AuditRecord]
	file := []byte(noteA + "\n")
	var a, b logCache[sandbox.AuditRecord]
	a.load(file, parseRecords, &shared)
	b.load(file, parseRecords, &shared)
	rec := recsOf([]byte(noteB + "\n"))[0]
	require.True(t, a.appended([]byte(noteB), rec))
	require.True(t, b.appended([]byte(noteC), recsOf([]byte(noteC + "\n"))[0]))
	assert.Equal(t, recsOf([]byte(noteA+"\n"+noteB+"\n")), a.recs)
	assert.Equal(t, recsOf([]byte(noteA+"\n"+noteC+"\n")), b.recs)
	assert.Equal(t, recsOf(file), shared.load().recs)
}

func TestSharedLogHoldsTheLinesAnInstanceWrote(t *testing.T) {
	var shared sharedLog[sandbox.AuditRecord]
	var a logCache[sandbox.AuditRecord]
	a.load([]byte(noteA+"\n"), parseRecords, &shared)
	require.True(t, a.appended([]byte(noteB), recsOf([]byte(noteB + "\n"))[0]))
	file := []byte(noteA + "\n" + noteB + "\n")
	a.load(file, parseRecords, &shared)
	got := shared.load()
	assert.Equal(t, file, got.raw)
	assert.Equal(t, recsOf(file), got.recs)
}

func TestSharedLogGoesWithTheLastCacheHoldingIt(t *testing.T) {
	var shared sharedLog[sandbox.AuditRecord]
	c := &logCache[sandbox.AuditRecord]{}
	c.load([]byte(noteA+"\n"), parseRecords, &shared)
	runtime.GC()
	require.NotNil(t, shared.load(), "held by a live cache")
	runtime.KeepAlive(c)
	c = nil
	runtime.GC()
	assert.Nil(t, shared.load(), "no cache holds it")
}

// A message store's pointers keep what was added as it grows past its
// chunks, and a reset store takes new messages in the same room.
func TestMsgStorePointersHold(t *testing.T) {
	var s msgStore
	for round := 0; round < 2; round++ {
		var ps []*sandbox.Message
		for i := 0; i < 3*msgChunk+7; i++ {
			ps = append(ps, s.add(sandbox.Message{ID: fmt.Sprintf("m%d-%d", round, i), At: i}))
		}
		for i, p := range ps {
			require.Equal(t, sandbox.Message{ID: fmt.Sprintf("m%d-%d", round, i), At: i}, *p)
		}
		s.reset()
		// 16+32+64+128 hold 240, then chunks of 256: 3*256+7 need seven.
		require.Len(t, s.chunks, 7, "the room is kept")
		for k, c := range s.chunks {
			require.Len(t, c, min(msgFirstChunk<<k, msgChunk), "chunk %d", k)
		}
	}
}
