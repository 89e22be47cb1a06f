package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Every edit rebuilds the version it was made for, and is no longer than
// the change (plus what aligning to characters costs).
func TestStateEditRebuildsEachVersion(t *testing.T) {
	versions := []string{
		`{"work_items":[]}`,
		`{"work_items":[{"work_id":"w1","status":"pending"}]}`,
		`{"work_items":[{"work_id":"w1","status":"completed"}]}`,
		`{"work_items":[{"work_id":"w1","status":"completed"},{"work_id":"w2","status":"pending"}]}`,
		`{"note":"héllo","work_items":[]}`,
		`{"note":"hèllo","work_items":[]}`,
		`{"note":"h😀llo"}`,
		`{}`,
		`{}`,
	}
	var prev []byte
	for _, v := range versions {
		edit, ok := NewStateEdit(prev, []byte(v))
		require.True(t, ok)
		text := 0
		for _, h := range edit.Hunks {
			text += len(h.Text)
		}
		assert.LessOrEqual(t, text, len(v))
		got, err := edit.Apply(prev)
		require.NoError(t, err, v)
		assert.Equal(t, v, string(got))
		prev = got
	}
	edit, _ := NewStateEdit([]byte(versions[2]), []byte(versions[3]))
	require.Len(t, edit.Hunks, 1)
	assert.Equal(t, `,{"work_id":"w2","status":"pending"}`, edit.Hunks[0].Text, "an appended item is all the edit holds")
}

// Changes in two places far apart (an item appended to each of two lists)
// are two small hunks, not one that copies everything between them.
func TestStateEditKeepsWhatLiesBetweenChanges(t *testing.T) {
	list := func(prefix string, n int) string {
		var items []string
		for i := 0; i < n; i++ {
			items = append(items, fmt.Sprintf(`{"id":"%s%d","x":%d}`, prefix, i, i))
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	prev := `{"a":` + list("a", 200) + `,"b":` + list("b", 200) + `}`
	next := `{"a":` + list("a", 201) + `,"b":` + list("b", 201) + `}`
	edit, ok := NewStateEdit([]byte(prev), []byte(next))
	require.True(t, ok)
	require.Len(t, edit.Hunks, 2)
	for _, h := range edit.Hunks {
		assert.Less(t, len(h.Text), 40)
	}
	got, err := edit.Apply([]byte(prev))
	require.NoError(t, err)
	assert.Equal(t, next, string(got))
}

// Any pair of versions rebuilds exactly, however they differ: edits past
// the diff's bound fall back to one hunk.
func TestStateEditRebuildsRandomVersions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{`{"w":1}`, `"s":"a"`, `"é"`, `[]`, `{}`, `"x":2`, `"😀"`}
	gen := func() []byte {
		var parts []string
		for n := r.IntN(600); n > 0; n-- {
			parts = append(parts, words[r.IntN(len(words))])
		}
		return []byte("[" + strings.Join(parts, ",") + "]")
	}
	prev := gen()
	for i := 0; i < 300; i++ {
		next := gen()
		if i%2 == 0 { // a small change of prev
			next = append([]byte(nil), prev...)
			at := r.IntN(len(next))
			next = append(next[:at], append([]byte(`,"x":2,`), next[at:]...)...)
			if !utf8.Valid(next) {
				continue
			}
		}
		edit, ok := NewStateEdit(prev, next)
		require.True(t, ok)
		got, err := edit.Apply(prev)
		require.NoError(t, err)
		require.Equal(t, string(next), string(got))
		prev = next
	}
}

// An edit that does not fit, or does not rebuild what its hash says, is an
// error, never a wrong version.
func TestStateEditRefusesAWrongBase(t *testing.T) {
	edit, ok := NewStateEdit([]byte(`{"a":1,"b":2}`), []byte(`{"a":1,"b":3}`))
	require.True(t, ok)
	_, err := edit.Apply([]byte(`{"a":9,"b":2}`))
	assert.ErrorContains(t, err, "hashes to")
	_, err = edit.Apply([]byte(`{}`))
	assert.ErrorContains(t, err, "does not fit")
}

// Text that is not valid UTF-8 cannot travel in a JSON string byte for
// byte: no edit is offered, and the caller keeps the full copy.
func TestStateEditDeclinesInvalidUTF8(t *testing.T) {
	_, ok := NewStateEdit(nil, []byte("{\"a\":\"\xff\"}"))
	assert.False(t, ok)
}

// ParseRunLog reads both forms, the full copies of older logs and edits,
// and names the line of an edit that does not rebuild.
func TestParseRunLogReplaysStateEdits(t *testing.T) {
	e1, _ := NewStateEdit(nil, []byte(`{"work_items":[]}`))
	e2, _ := NewStateEdit([]byte(`{"work_items":[]}`), []byte(`{"work_items":[{"work_id":"w1"}]}`))
	line := func(r LogRecord) string {
		data, err := json.Marshal(r)
		require.NoError(t, err)
		return string(data)
	}
	good := strings.Join([]string{
		line(LogRecord{Kind: LogStart}),
		line(LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e1}),
		line(LogRecord{Kind: LogTickEnd, Tick: 2, StateEdit: &e2}),
		line(LogRecord{Kind: LogTickEnd, Tick: 3, State: json.RawMessage(`{"old":true}`)}),
	}, "\n") + "\n"
	recs, err := ParseRunLog([]byte(good))
	require.NoError(t, err)
	var replay StateReplay
	var got []string
	for _, r := range recs {
		v, changed, err := replay.Next(r)
		require.NoError(t, err)
		if changed {
			got = append(got, string(v))
		}
	}
	assert.Equal(t, []string{`{"work_items":[]}`, `{"work_items":[{"work_id":"w1"}]}`, `{"old":true}`}, got)

	bad := strings.Join([]string{
		line(LogRecord{Kind: LogStart}),
		line(LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e2}),
	}, "\n") + "\n"
	_, err = ParseRunLog([]byte(bad))
	assert.ErrorContains(t, err, "run.jsonl:2: state_edit:")
}

// CompactJSON writes what json.Compact writes, and refuses what it refuses,
// on drawn JSON spaced out, broken, nested deep and holding escapes.
func TestCompactJSONIsJSONCompact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := []string{`{`, `}`, `[`, `]`, `,`, `:`, `"a"`, `"b c"`, `"\"\\"`, `"\u00e9"`, `"é"`, `1`, `-0.5e3`, `01`,
			`true`, `null`, `nul`, ` `, "\n", "\t", `"`, `\`, "\x01"}
		var sb strings.Builder
		if rapid.Bool().Draw(t, "well-formed") {
			sb.WriteString(drawJSON(t, 0))
		} else {
			for _, p := range rapid.SliceOfN(rapid.SampledFrom(parts), 0, 20).Draw(t, "parts") {
				sb.WriteString(p)
			}
		}
		data := []byte(sb.String())
		var want bytes.Buffer
		wantErr := json.Compact(&want, data)
		got, ok := CompactJSON(data)
		require.Equal(t, wantErr == nil, ok, "%q", data)
		if ok {
			require.Equal(t, want.String(), string(got), "%q", data)
		}
	})
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	got, ok := CompactJSON([]byte(deep))
	require.True(t, ok, "nesting past the scanner's bound is still JSON")
	require.Equal(t, deep, string(got))
}

// drawJSON draws a well-formed value, spaced out or not.
func drawJSON(t *rapid.T, depth int) string {
	sp := func() string { return rapid.SampledFrom([]string{"", "", " ", "\n", "\t", "\r"}).Draw(t, "space") }
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth > 3 {
		kind %= 3
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{`"x"`, `"a b"`, `"\"q\""`, `"\\"`, `"ü"`, `"\u0041"`}).Draw(t, "string")
	case 1:
		return rapid.SampledFrom([]string{`0`, `-1`, `2.5`, `1e9`, `-0.0E-2`}).Draw(t, "number")
	case 2:
		return rapid.SampledFrom([]string{`true`, `false`, `null`}).Draw(t, "literal")
	case 3, 4:
		var items []string
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "items"); i < n; i++ {
			items = append(items, sp()+drawJSON(t, depth+1)+sp())
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		var fields []string
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "fields"); i < n; i++ {
			fields = append(fields, sp()+fmt.Sprintf(`"k%d"`, i)+sp()+":"+sp()+drawJSON(t, depth+1)+sp())
		}
		return sp() + "{" + strings.Join(fields, ",") + "}" + sp()
	}
}
