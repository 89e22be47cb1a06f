package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

const (
	admissionLine = `{"event":"admission","at":1,"work_id":"w-1","message_id":"m1","rules_hash":"sha256:x"}`
	claimLine     = `{"event":"claim","at":2,"work_id":"w-1","agent_id":"a","outcome":"won","reason":null}`
	noteLine      = `{"event":"note","at":3,"text":"free-form"}`
	brokenLine    = `{"event":"admission","at":4}`
)

func TestLogIndexFollowsAppends(t *testing.T) {
	x := NewLogIndex(ParseAudit)
	var data []byte
	steps := []string{admissionLine + "\n", "\n", brokenLine + "\n", `not json` + "\n", claimLine + "\n", noteLine + "\n"}
	for i, s := range steps {
		data = append(data, s...)
		lines, errs := x.Update(data)
		wantLines, wantErrs := ParseAudit(data)
		require.Equal(t, wantLines, lines, "after step %d", i)
		require.Equal(t, wantErrs, errs, "after step %d", i)
	}
	lines, errs := x.Update(data)
	require.Len(t, lines, 3)
	assert.Equal(t, 6, lines[2].N)
	require.Len(t, errs, 2)
	assert.Equal(t, []int{3, 4}, []int{errs[0].Line, errs[1].Line})
}

func TestLogIndexUnterminatedLastLine(t *testing.T) {
	x := NewLogIndex(ParseAudit)
	data := []byte(admissionLine + "\n" + claimLine[:20])
	lines, errs := x.Update(data)
	require.Len(t, lines, 1)
	require.Len(t, errs, 1)
	assert.Equal(t, 2, errs[0].Line)

	// The partial line completes: it is read as a record now, not as the
	// error it was.
	data = append(data, claimLine[20:]...)
	lines, errs = x.Update(data)
	require.Len(t, lines, 2)
	assert.Empty(t, errs)
	assert.Equal(t, 2, lines[1].N)
	assert.Equal(t, ClaimWon, lines[1].Rec.Outcome)
}

func TestLogIndexRewriteFallsBack(t *testing.T) {
	tests := []struct {
		name   string
		before string
		after  string
	}{
		{"truncated", admissionLine + "\n" + claimLine + "\n", admissionLine + "\n"},
		{"emptied", admissionLine + "\n", ""},
		{"rewritten same length", admissionLine + "\n", `{"event":"admission","at":1,"work_id":"w-2","message_id":"m1","rules_hash":"sha256:x"}` + "\n"},
		{"rewritten longer", admissionLine + "\n", noteLine + "\n" + claimLine + "\n"},
		{"line removed in the middle", admissionLine + "\n" + noteLine + "\n" + claimLine + "\n", admissionLine + "\n" + claimLine + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := NewLogIndex(ParseAudit)
			x.Update([]byte(tc.before))
			lines, errs := x.Update([]byte(tc.after))
			wantLines, wantErrs := ParseAudit([]byte(tc.after))
			assert.Equal(t, wantLines, lines)
			assert.Equal(t, wantErrs, errs)
		})
	}
}

// The index must agree with a full parse after any sequence of appends,
// partial writes, truncations and rewrites, whether the content grows in
// place (as Memory's appends do) or arrives as a fresh copy each time.
func TestLogIndexMatchesFullParse(t *testing.T) {
	pieces := []string{admissionLine, claimLine, noteLine, brokenLine, `[1]`, ``, `  `, `{"event":`, `"claim"}`, "\n"}
	rapid.Check(t, func(t *rapid.T) {
		x := NewLogIndex(ParseAudit)
		fresh := rapid.Bool().Draw(t, "fresh copies")
		var data []byte
		for i := range rapid.IntRange(1, 30).Draw(t, "ops") {
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1, 2: // append a line
				data = append(data, rapid.SampledFrom(pieces).Draw(t, "line")...)
				data = append(data, '\n')
			case 3: // append without a newline
				data = append(data, rapid.SampledFrom(pieces).Draw(t, "partial")...)
			case 4: // truncate
				cut := rapid.IntRange(0, len(data)).Draw(t, "cut")
				data = append([]byte(nil), data[:cut]...)
			case 5: // rewrite one byte in place in a copy
				if len(data) > 0 {
					data = append([]byte(nil), data...)
					data[rapid.IntRange(0, len(data)-1).Draw(t, "at")] = rapid.SampledFrom([]byte("{}\n x\"")).Draw(t, "byte")
				}
			}
			in := data
			if fresh {
				in = append([]byte(nil), data...)
			}
			lines, errs := x.Update(in)
			wantLines, wantErrs := ParseAudit(in)
			require.Equal(t, wantLines, lines, "after op %d on %q", i, in)
			require.Equal(t, wantErrs, errs, "after op %d on %q", i, in)
		}
	})
}
