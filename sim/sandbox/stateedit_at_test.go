package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// versions replays recs and returns every version they give.
func versions(t *testing.T, recs []LogRecord) ([]string, error) {
	t.Helper()
	var replay StateReplay
	var got []string
	for _, r := range recs {
		v, changed, err := replay.Next(r)
		if err != nil {
			return got, err
		}
		if changed {
			got = append(got, string(v))
		}
	}
	return got, nil
}

func logLine(t *testing.T, r LogRecord) string {
	t.Helper()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	return string(data)
}

// A BOM and a blank line move every edit's offset in the file: the held
// edits still read their own bytes.
func editLog(t *testing.T) []byte {
	v0, v1, v2 := []byte(`{"work_items":[]}`), []byte(`{"work_items":[{"work_id":"w1"}]}`), []byte(`{"work_items":[{"work_id":"w1"},{"work_id":"w2"}]}`)
	e1, _ := NewStateEdit(nil, v0)
	e2, _ := NewStateEdit(v0, v1)
	e3, _ := NewStateEdit(v1, v2)
	return []byte("\xEF\xBB\xBF" + strings.Join([]string{
		logLine(t, LogRecord{Kind: LogStart}),
		logLine(t, LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e1}),
		"",
		logLine(t, LogRecord{Kind: LogTickEnd, Tick: 2, StateEdit: &e2}),
		logLine(t, LogRecord{Kind: LogTickEnd, Tick: 3, State: json.RawMessage(v1)}),
		logLine(t, LogRecord{Kind: LogTickEnd, Tick: 4, StateEdit: &e3}),
	}, "\n") + "\n")
}

// ParseRunLogAt holds no hunk text, and its records replay to the
// versions ParseRunLog's do.
func TestParseRunLogAtReplaysAsParseRunLog(t *testing.T) {
	data := editLog(t)
	held, err := ParseRunLog(data)
	require.NoError(t, err)
	lazy, err := ParseRunLogAt(data, bytes.NewReader(data))
	require.NoError(t, err)
	for _, r := range lazy {
		if r.StateEdit == nil {
			continue
		}
		assert.Nil(t, r.StateEdit.Hunks)
		require.NotNil(t, r.StateEdit.at)
		// The member alone is read back, not the whole line.
		at := r.StateEdit.at
		member := string(data[at.member.off : at.member.off+int64(at.member.n)])
		assert.True(t, strings.HasPrefix(member, `{"hunks":[`) && strings.HasSuffix(member, `"}`), member)
		line := string(data[at.line.off : at.line.off+int64(at.line.n)])
		assert.True(t, strings.HasPrefix(line, `{"kind":"tick_end"`) && strings.HasSuffix(line, `}`), line)
	}
	want, err := versions(t, held)
	require.NoError(t, err)
	got, err := versions(t, lazy)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Len(t, got, 4)
}

// A run log changed after it was read gives an error, never another
// version: each rebuilt version is held to the hash first read.
func TestParseRunLogAtCatchesAChangedLog(t *testing.T) {
	data := editLog(t)
	lazy, err := ParseRunLogAt(data, bytes.NewReader(data))
	require.NoError(t, err)
	changed := bytes.Replace(data, []byte(`w2`), []byte(`w3`), 1)
	require.NotEqual(t, data, changed)
	lazy2, err := ParseRunLogAt(data, bytes.NewReader(changed))
	require.NoError(t, err)
	_, err = versions(t, lazy2)
	assert.ErrorIs(t, err, errLogChanged)
	_, err = versions(t, lazy2[:4])
	assert.NoError(t, err, "the versions before the changed edit still rebuild")

	short := data[:len(data)-40]
	lazy3, err := ParseRunLogAt(data, bytes.NewReader(short))
	require.NoError(t, err)
	_, err = versions(t, lazy3)
	assert.ErrorIs(t, err, errLogChanged)
	_, err = versions(t, lazy)
	assert.NoError(t, err)
}

// A line whose state_edit member alone does not rebuild the version (the
// full decode merges a member of another case into it) is decoded again
// as a whole, as the first read did.
func TestParseRunLogAtFallsBackToTheLine(t *testing.T) {
	e, _ := NewStateEdit(nil, []byte(`{"work_items":[]}`))
	hunks, err := json.Marshal(e.Hunks)
	require.NoError(t, err)
	line := `{"kind":"tick_end","tick":1,"STATE_EDIT":{"hunks":` + string(hunks) + `,"hash":"` + e.Hash + `"},"state_edit":{"hash":"` + e.Hash + `"}}`
	data := []byte(logLine(t, LogRecord{Kind: LogStart}) + "\n" + line + "\n")
	held, err := ParseRunLog(data)
	require.NoError(t, err)
	want, err := versions(t, held)
	require.NoError(t, err)
	require.Equal(t, []string{`{"work_items":[]}`}, want)
	lazy, err := ParseRunLogAt(data, bytes.NewReader(data))
	require.NoError(t, err)
	require.NotNil(t, lazy[1].StateEdit.at)
	require.Positive(t, lazy[1].StateEdit.at.member.n)
	assert.False(t, lazy[1].StateEdit.at.exact, "a member that does not decode as the line did is never trusted by its bytes")
	got, err := versions(t, lazy)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// ParseRunLogAt refuses what ParseRunLog refuses, with the same error.
func TestParseRunLogAtErrorsAsParseRunLog(t *testing.T) {
	e2, _ := NewStateEdit([]byte(`{"work_items":[]}`), []byte(`{"work_items":[{"work_id":"w1"}]}`))
	for _, data := range []string{
		logLine(t, LogRecord{Kind: LogStart}) + "\n" + logLine(t, LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e2}) + "\n",
		logLine(t, LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e2}) + "\n{\"tick\":2}\n",
		"{\"kind\":\"start\"}\nnot json\n",
	} {
		_, want := ParseRunLog([]byte(data))
		require.Error(t, want)
		_, got := ParseRunLogAt([]byte(data), strings.NewReader(data))
		assert.Equal(t, want, got)
	}
}

// ReadRunLog gives the records ParseRunLogAt gives of the same bytes, held
// edits pointing at the same places, whatever the lines' lengths against
// its read buffer and however the file ends.
func TestReadRunLogReadsAsParseRunLogAt(t *testing.T) {
	base := editLog(t)
	long := logLine(t, LogRecord{Kind: LogTickEnd, Tick: 5, Detail: strings.Repeat("x", 3<<20)})
	for name, data := range map[string][]byte{
		"edits":            base,
		"no final newline": bytes.TrimSuffix(base, []byte("\n")),
		"crlf":             bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n")),
		"long line":        append(append(append([]byte{}, base...), long...), "\n"+logLine(t, LogRecord{Kind: LogEnd, Tick: 6})+"\n"...),
		"long last line":   append(append([]byte{}, base...), long...),
		"blank lines":      append([]byte("\n\n"), base[3:]...),
		"empty":            {},
	} {
		want, err := ParseRunLogAt(data, bytes.NewReader(data))
		require.NoError(t, err, name)
		got, err := ReadRunLog(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
		wantV, err := versions(t, want)
		require.NoError(t, err, name)
		gotV, err := versions(t, got)
		require.NoError(t, err, name)
		assert.Equal(t, wantV, gotV, name)
	}
	// Only the size given is read.
	got, err := ReadRunLog(bytes.NewReader(append(append([]byte{}, base...), "not json\n"...)), int64(len(base)))
	require.NoError(t, err)
	want, err := ParseRunLog(base)
	require.NoError(t, err)
	assert.Len(t, got, len(want))
}

// ReadRunLog refuses what ParseRunLog refuses, with the same error: a line
// nested too deep comes first wherever it is, then the first line that does
// not decode, then an edit that does not replay.
func TestReadRunLogErrorsAsParseRunLog(t *testing.T) {
	e2, _ := NewStateEdit([]byte(`{"work_items":[]}`), []byte(`{"work_items":[{"work_id":"w1"}]}`))
	deep := `{"kind":"tick_end","detail":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "}"
	noReplay := logLine(t, LogRecord{Kind: LogStart}) + "\n" + logLine(t, LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e2}) + "\n"
	for _, data := range []string{
		noReplay,
		noReplay + "not json\n",
		logLine(t, LogRecord{Kind: LogTickEnd, Tick: 1, StateEdit: &e2}) + "\n{\"tick\":2}\n",
		"{\"kind\":\"start\"}\nnot json\n",
		"{\"kind\":\"start\"}\nnot json\n" + deep + "\n",
		"\xEF\xBB\xBF" + deep,
	} {
		_, want := ParseRunLog([]byte(data))
		require.Error(t, want)
		_, got := ReadRunLog(strings.NewReader(data), int64(len(data)))
		assert.Equal(t, want, got, data)
	}
}

// The words a run log repeats on many records (a tick_end's writes, the
// kinds, the decisions) are one string each across the records, and a
// record's writes take no more room than they hold.
func TestRunLogRecordsShareTheirRepeatedWords(t *testing.T) {
	var lines []string
	for i := 0; i < 3; i++ {
		lines = append(lines, logLine(t, LogRecord{Kind: LogApprove, Tick: i, ID: "a", Decision: "reject"}),
			logLine(t, LogRecord{Kind: LogTickEnd, Tick: i, Writes: []string{Audit, Drafts, Audit, Audit, Outbox, "private/x"}}))
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	recs, err := ReadRunLog(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	want, err := ParseRunLog(data)
	require.NoError(t, err)
	require.Equal(t, want, recs)
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	for _, r := range recs {
		switch r.Kind {
		case LogApprove:
			assert.True(t, same(r.Kind, recs[0].Kind))
			assert.True(t, same(r.Decision, recs[0].Decision))
		case LogTickEnd:
			assert.True(t, same(r.Kind, recs[1].Kind))
			assert.Equal(t, len(r.Writes), cap(r.Writes))
			for i, w := range r.Writes[:5] {
				assert.True(t, same(w, recs[1].Writes[i]), w)
			}
			assert.Equal(t, "private/x", r.Writes[5])
		}
	}
	assert.False(t, same(recs[1].Writes[0], recs[1].Writes[1]))
	assert.True(t, same(recs[1].Writes[0], recs[1].Writes[2]))
}

// chainLog is a run log of edits one after another, each adding a work
// item of the same length, so a changed item keeps every offset.
func chainLog(t *testing.T, n int) ([]byte, []string) {
	lines := []string{logLine(t, LogRecord{Kind: LogStart})}
	var want []string
	var prev []byte
	for i := range n {
		items := make([]string, i+1)
		for j := range items {
			items[j] = fmt.Sprintf(`{"work_id":"w%d"}`, j)
		}
		next := []byte(`{"work_items":[` + strings.Join(items, ",") + `]}`)
		e, _ := NewStateEdit(prev, next)
		lines = append(lines, logLine(t, LogRecord{Kind: LogTickEnd, Tick: i + 1, StateEdit: &e}))
		want, prev = append(want, string(next)), next
	}
	return []byte(strings.Join(lines, "\n") + "\n"), want
}

// An edit replayed on the version of the held edit it was first replayed
// after, its member reading back as first read, is not hashed again; any
// other way of coming to it is.
func TestHeldEditAfterItsOwnVersionIsNotHashedAgain(t *testing.T) {
	data, want := chainLog(t, 6)
	lazy, err := ParseRunLogAt(data, bytes.NewReader(data))
	require.NoError(t, err)
	for i, r := range lazy[1:] {
		at := r.StateEdit.at
		require.NotNil(t, at)
		assert.True(t, at.exact)
		if i == 0 {
			assert.Nil(t, at.after, "the first edit follows no held edit")
		} else {
			assert.Same(t, lazy[i].StateEdit.at, at.after)
		}
	}
	got, err := versions(t, lazy)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// A hash changed in memory shows which path an edit took: replayed
	// in order, the rebuilt bytes are those first hashed; applied on their
	// own, they are held to the hash.
	lazy[3].StateEdit.Hash = strings.Repeat("0", 64)
	got, err = versions(t, lazy)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	_, err = lazy[3].StateEdit.Apply([]byte(want[1]))
	assert.ErrorIs(t, err, errLogChanged)

	// A replay that skips a version applies the next edit to another
	// version, which the hash refuses.
	skipped := append(append([]LogRecord(nil), lazy[:3]...), lazy[4:]...)
	_, err = versions(t, skipped)
	assert.ErrorIs(t, err, errLogChanged)
}

// A held edit changed on disk in the middle of a run of edits gives the
// error it gave when every version was hashed again.
func TestHeldEditChangedAfterItsOwnVersionErrorsAsBefore(t *testing.T) {
	data, _ := chainLog(t, 6)
	lazy, err := ParseRunLogAt(data, bytes.NewReader(data))
	require.NoError(t, err)
	i := bytes.LastIndex(data, []byte(`w3\"`))
	require.Positive(t, i)
	changed := bytes.Clone(data)
	changed[i+1] = '7'
	lazy2, err := ParseRunLogAt(data, bytes.NewReader(changed))
	require.NoError(t, err)
	got, err := versions(t, lazy2)
	require.ErrorIs(t, err, errLogChanged)
	assert.Len(t, got, 3, "the versions before the changed edit still rebuild")
	// Every edit applied alone, each version hashed: the error is the same.
	prev := []byte(got[2])
	_, want := lazy2[4].StateEdit.Apply(prev)
	assert.Equal(t, "state_edit: "+want.Error(), err.Error())
	_, err = versions(t, lazy)
	assert.NoError(t, err)
}
