package sandbox

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/hostile"
)

// The parsers judge what an implementation wrote, so any bytes must give
// records or located errors, never a panic. Every non-blank line yields
// exactly one of the two, errors name the file and an existing line, and a
// record written back out parses to itself.

// checkParse checks a JSONL parser's result against its input.
func checkParse[T any](t *testing.T, file string, data []byte, recs []Line[T], errs []LineError) {
	t.Helper()
	// A byte order mark at the start is dropped, as the parsers drop it:
	// a file holding only one has no line.
	lines := bytes.Split(trimBOM(data), []byte("\n"))
	seen := map[int]bool{}
	for _, e := range errs {
		require.Equal(t, file, e.File)
		require.GreaterOrEqual(t, e.Line, 1, e.Error())
		require.LessOrEqual(t, e.Line, len(lines), e.Error())
		require.NotEmpty(t, e.Msg)
		require.False(t, seen[e.Line], "line %d reported twice", e.Line)
		seen[e.Line] = true
	}
	for _, r := range recs {
		require.GreaterOrEqual(t, r.N, 1)
		require.LessOrEqual(t, r.N, len(lines))
		require.False(t, seen[r.N], "line %d is both a record and an error", r.N)
		seen[r.N] = true
	}
	for i, l := range lines {
		require.Equal(t, len(bytes.TrimSpace(l)) > 0, seen[i+1], "line %d", i+1)
	}
}

// roundTrip writes each record as one line and parses it back.
func roundTrip[T any](t *testing.T, recs []Line[T], parse func([]byte) ([]Line[T], []LineError)) {
	t.Helper()
	for _, r := range recs {
		line, err := MarshalLine(r.Rec)
		require.NoError(t, err)
		back, errs := parse(line)
		require.Empty(t, errs, string(line))
		require.Len(t, back, 1)
		require.Equal(t, r.Rec, back[0].Rec)
	}
}

func FuzzParseInbox(f *testing.F) {
	f.Add([]byte(`{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":1}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseInbox(data)
		checkParse(t, Inbox, data, recs, errs)
		roundTrip(t, recs, ParseInbox)
	})
}

func FuzzParseDrafts(f *testing.F) {
	f.Add([]byte(`{"draft_id":"d1","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"sha256:ab","declared_at":2,"origin":["call-1"]}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseDrafts(data)
		checkParse(t, Drafts, data, recs, errs)
		roundTrip(t, recs, ParseDrafts)
	})
}

func FuzzParseOutbox(f *testing.F) {
	f.Add([]byte(`{"effect_id":"e1","draft_id":"d1","sent_at":3}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseOutbox(data)
		checkParse(t, Outbox, data, recs, errs)
		roundTrip(t, recs, ParseOutbox)
	})
}

func FuzzParseSignals(f *testing.F) {
	f.Add([]byte(`{"signal_id":"s1","signal_type":"AGENT_DEATH","target":"agent-1","at":4}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseSignals(data)
		checkParse(t, Signals, data, recs, errs)
		roundTrip(t, recs, ParseSignals)
	})
}

func FuzzParseApprovals(f *testing.F) {
	f.Add([]byte(`{"approval_id":"a1","draft_id":"d1","content_hash":"sha256:ab","decision":"approve","decided_at":5}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseApprovals(data)
		checkParse(t, Approvals, data, recs, errs)
		roundTrip(t, recs, ParseApprovals)
	})
}

func FuzzParseModelCalls(f *testing.F) {
	f.Add([]byte(`{"call_id":"call-1","at":1,"prompt":"p","anchor":"ORD-1","reply":"r"}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseModelCalls(data)
		checkParse(t, ModelCalls, data, recs, errs)
		roundTrip(t, recs, ParseModelCalls)
	})
}

func FuzzParseAudit(f *testing.F) {
	f.Add([]byte(`{"event":"admission","at":1,"work_id":"w1","message_id":"m1","rules_hash":"ab"}` + "\n" +
		`{"event":"claim","at":1,"work_id":"w1","agent_id":"agent-1","outcome":"won","reason":null}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := ParseAudit(data)
		checkParse(t, Audit, data, recs, errs)
		// Free-form fields live in Fields, so the typed part is what must
		// survive being written back out.
		for _, r := range recs {
			line, err := MarshalLine(r.Rec)
			require.NoError(t, err)
			if (r.Rec.Event == EventClaim || r.Rec.Event == EventResolution) && r.Rec.Reason == "" {
				// reason is required there; an empty one is written as null.
				line = append(line[:len(line)-1], `,"reason":null}`...)
			}
			back, errs := ParseAudit(line)
			require.Empty(t, errs, string(line))
			require.Len(t, back, 1)
			require.Equal(t, withoutFields(r.Rec), withoutFields(back[0].Rec))
		}
	})
}

func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"work_items":[{"work_id":"w1","status":"drafting","assigned_agent":"agent-1"}],"agents":[{"id":"agent-1","alive":true}],"assignments":[{"work_id":"w1","agent_id":"agent-1"}]}`))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, perr := ParseState(data)
		if perr != nil {
			require.Equal(t, State, perr.File)
			require.Equal(t, 1, perr.Line)
			require.NotEmpty(t, perr.Msg)
			return
		}
		line, err := MarshalLine(s)
		require.NoError(t, err)
		back, perr := ParseState(line)
		require.Nil(t, perr, string(line))
		require.Equal(t, s, back)
	})
}

func FuzzParseRunLog(f *testing.F) {
	f.Add([]byte(`{"kind":"start","tick":0,"bundle":"l0-respond","seed":1}` + "\n" + `{"kind":"tick_end","tick":0,"lines":{"drafts.jsonl":1},"state":{"a":1}}` + "\n"))
	addHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ParseRunLog(data)
		if err != nil {
			var le LineError
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, RunLogFile, le.File)
			require.GreaterOrEqual(t, le.Line, 1)
			require.LessOrEqual(t, le.Line, bytes.Count(data, []byte("\n"))+1)
			return
		}
		var out []byte
		for _, r := range recs {
			require.NotEmpty(t, r.Kind)
			line, err := MarshalLine(r)
			require.NoError(t, err)
			out = append(append(out, line...), '\n')
		}
		back, err := ParseRunLog(out)
		require.NoError(t, err)
		require.Len(t, back, len(recs))
		var again []byte
		for _, r := range back {
			line, err := MarshalLine(r)
			require.NoError(t, err)
			again = append(append(again, line...), '\n')
		}
		require.Equal(t, string(out), string(again))
	})
}

// addHostile seeds a target with the hostile corpus's shapes.
func addHostile(f *testing.F) {
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
}
