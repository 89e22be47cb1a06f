package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/seeds"
)

// lineCase is one line of a JSONL file and the error it must give, if any.
type lineCase struct {
	name  string
	line  string
	field string // expected error field; "" with msg "" means the line parses
	msg   string
}

// checkLineCases parses each case as line 2 of a file (after one blank
// line) and checks the located error or the absence of one.
func checkLineCases[T any](t *testing.T, file string, parse func([]byte) ([]Line[T], []LineError), cases []lineCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs, errs := parse([]byte("\n" + tc.line + "\n"))
			if tc.msg == "" {
				require.Empty(t, errs)
				require.Len(t, recs, 1)
				assert.Equal(t, 2, recs[0].N)
				return
			}
			require.Empty(t, recs)
			require.Len(t, errs, 1)
			assert.Equal(t, LineError{File: file, Line: 2, Field: tc.field, Msg: errs[0].Msg}, errs[0])
			assert.Contains(t, errs[0].Msg, tc.msg)
		})
	}
}

func TestParseLinesNumbering(t *testing.T) {
	data := "{\"effect_id\":\"e1\",\"draft_id\":\"d1\",\"sent_at\":1}\r\n\n   \nnot json\n{\"effect_id\":\"e2\",\"draft_id\":\"d2\",\"sent_at\":2}"
	recs, errs := ParseOutbox([]byte(data))
	require.Len(t, recs, 2)
	assert.Equal(t, Line[Effect]{N: 1, Rec: Effect{EffectID: "e1", DraftID: "d1", SentAt: 1}}, recs[0])
	assert.Equal(t, Line[Effect]{N: 5, Rec: Effect{EffectID: "e2", DraftID: "d2", SentAt: 2}}, recs[1], "a last line without newline still counts")
	require.Len(t, errs, 1)
	assert.Equal(t, LineError{File: Outbox, Line: 4, Msg: "not a JSON object"}, errs[0])
	assert.Equal(t, "outbox.jsonl:4: not a JSON object", errs[0].Error())
	recs, errs = ParseOutbox(nil)
	assert.Empty(t, recs)
	assert.Empty(t, errs)
}

func TestLineErrorString(t *testing.T) {
	assert.Equal(t, "audit.jsonl:3: at: must be a number", LineError{File: Audit, Line: 3, Field: "at", Msg: "must be a number"}.Error())
}

func TestParseInbox(t *testing.T) {
	recs, errs := ParseInbox([]byte(`{"id":"m1","conversation_id":"c1","from":"a@x","subject":"","body":"hi","at":3,"extra":true}`))
	require.Empty(t, errs)
	assert.Equal(t, Message{ID: "m1", ConversationID: "c1", From: "a@x", Body: "hi", At: 3}, recs[0].Rec)
	checkLineCases(t, Inbox, ParseInbox, []lineCase{
		{"valid", `{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":0}`, "", ""},
		{"array", `[1]`, "", "not a JSON object"},
		{"null", `null`, "", "not a JSON object"},
		{"string", `"x"`, "", "not a JSON object"},
		{"missing id", `{"conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":0}`, "id", "required field is missing"},
		{"empty id", `{"id":"","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":0}`, "id", "must not be empty"},
		{"numeric id", `{"id":1,"conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":0}`, "id", "must be a string"},
		{"missing subject", `{"id":"m1","conversation_id":"c1","from":"a@x","body":"b","at":0}`, "subject", "required field is missing"},
		{"negative tick", `{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":-1}`, "at", "non-negative whole number"},
		{"fractional tick", `{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":1.5}`, "at", "non-negative whole number"},
		{"tick as string", `{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":"1"}`, "at", "non-negative whole number"},
		{"huge tick", `{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":99999999999999999999}`, "at", "non-negative whole number"},
		{"first problem wins", `{"id":"","conversation_id":"","from":"a@x","subject":"s","body":"b","at":0}`, "id", "must not be empty"},
	})
}

func TestParseDrafts(t *testing.T) {
	base := `"draft_id":"d1","work_id":"w1","conversation_id":"c1","body":"b","content_hash":"sha256:ab","declared_at":4`
	recs, errs := ParseDrafts([]byte(`{` + base + `,"origin":["call-1","call-2"]}` + "\n" + `{` + base + `,"origin":"model-free"}` + "\n" + `{` + base + `,"origin":"call-9"}`))
	require.Empty(t, errs)
	require.Len(t, recs, 3)
	assert.Equal(t, Origin{CallIDs: []string{"call-1", "call-2"}}, recs[0].Rec.Origin)
	assert.Equal(t, Origin{ModelFree: true}, recs[1].Rec.Origin)
	assert.Equal(t, Origin{CallIDs: []string{"call-9"}}, recs[2].Rec.Origin)
	assert.Equal(t, Draft{DraftID: "d1", WorkID: "w1", ConversationID: "c1", Body: "b", ContentHash: "sha256:ab", DeclaredAt: 4,
		Origin: Origin{ModelFree: true}}, recs[1].Rec)
	checkLineCases(t, Drafts, ParseDrafts, []lineCase{
		{"missing origin", `{` + base + `}`, "origin", "required field is missing"},
		{"empty origin", `{` + base + `,"origin":""}`, "origin", "origin is empty"},
		{"empty origin list", `{` + base + `,"origin":[]}`, "origin", "empty list"},
		{"numeric origin", `{` + base + `,"origin":5}`, "origin", "must be"},
		{"null origin", `{` + base + `,"origin":null}`, "origin", "origin is empty"},
		{"missing content hash", `{"draft_id":"d1","work_id":"w1","conversation_id":"c1","body":"b","declared_at":4,"origin":"model-free"}`, "content_hash", "required field is missing"},
		{"empty work id", `{"draft_id":"d1","work_id":"","conversation_id":"c1","body":"b","content_hash":"h","declared_at":4,"origin":"model-free"}`, "work_id", "must not be empty"},
		{"bad declared_at", `{"draft_id":"d1","work_id":"w","conversation_id":"c1","body":"b","content_hash":"h","declared_at":null,"origin":"model-free"}`, "declared_at", "whole number"},
	})
}

func TestOriginJSON(t *testing.T) {
	for _, tc := range []struct {
		o    Origin
		want string
	}{
		{Origin{ModelFree: true}, `"model-free"`},
		{Origin{CallIDs: []string{"a", "b"}}, `["a","b"]`},
		{Origin{}, `[]`},
	} {
		data, err := json.Marshal(tc.o)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(data))
	}
}

func TestParseOutboxSignalsApprovals(t *testing.T) {
	checkLineCases(t, Outbox, ParseOutbox, []lineCase{
		{"valid", `{"effect_id":"e1","draft_id":"d1","sent_at":9}`, "", ""},
		{"missing draft", `{"effect_id":"e1","sent_at":9}`, "draft_id", "required field is missing"},
		{"missing sent_at", `{"effect_id":"e1","draft_id":"d1"}`, "sent_at", "required field is missing"},
	})
	checkLineCases(t, Signals, ParseSignals, []lineCase{
		{"valid", `{"signal_id":"s1","signal_type":"AGENT_DEATH","target":"agent-1","at":2}`, "", ""},
		{"target object", `{"signal_id":"s1","signal_type":"AGENT_DEATH","target":{"agent_id":"a"},"at":2}`, "target", "must be a string"},
		{"empty type", `{"signal_id":"s1","signal_type":"","target":"w","at":2}`, "signal_type", "must not be empty"},
	})
	checkLineCases(t, Approvals, ParseApprovals, []lineCase{
		{"valid", `{"approval_id":"a1","draft_id":"d1","content_hash":"h","decision":"approve","decided_at":5}`, "", ""},
		{"missing hash", `{"approval_id":"a1","draft_id":"d1","decision":"approve","decided_at":5}`, "content_hash", "required field is missing"},
		{"missing decided_at", `{"approval_id":"a1","draft_id":"d1","content_hash":"h","decision":"approve"}`, "decided_at", "required field is missing"},
	})
}

func TestParseAudit(t *testing.T) {
	recs, errs := ParseAudit([]byte(strings.Join([]string{
		`{"event":"admission","at":1,"work_id":"w1","message_id":"m1","rules_hash":"abc"}`,
		`{"event":"claim","at":2,"work_id":"w1","agent_id":"agent-1","outcome":"won","reason":null}`,
		`{"event":"resolution","at":3,"work_id":"w1","outcome":"abandoned","reason":"operator_escalation","note":"extra"}`,
		`{"event":"thinking","at":3,"detail":{"any":"thing"}}`,
	}, "\n")))
	require.Empty(t, errs)
	require.Len(t, recs, 4)
	assert.Equal(t, AuditRecord{Event: EventAdmission, At: 1, WorkID: "w1", MessageID: "m1", RulesHash: "abc"}, withoutFields(recs[0].Rec))
	assert.Equal(t, AuditRecord{Event: EventClaim, At: 2, WorkID: "w1", AgentID: "agent-1", Outcome: ClaimWon}, withoutFields(recs[1].Rec))
	assert.Equal(t, AuditRecord{Event: EventResolution, At: 3, WorkID: "w1", Outcome: OutcomeAbandoned, Reason: ReasonOperatorEscalation}, withoutFields(recs[2].Rec))
	assert.JSONEq(t, `"extra"`, string(auditField(t, recs[2].Rec, "note")))
	assert.Equal(t, AuditRecord{Event: "thinking", At: 3}, withoutFields(recs[3].Rec))
	assert.JSONEq(t, `{"any":"thing"}`, string(auditField(t, recs[3].Rec, "detail")))

	checkLineCases(t, Audit, ParseAudit, []lineCase{
		{"free-form", `{"event":"note","at":0}`, "", ""},
		{"missing event", `{"at":0}`, "event", "required field is missing"},
		{"missing at", `{"event":"note"}`, "at", "required field is missing"},
		{"admission without rules_hash", `{"event":"admission","at":1,"work_id":"w1","message_id":"m1"}`, "rules_hash", "required field is missing"},
		{"admission without message", `{"event":"admission","at":1,"work_id":"w1","rules_hash":"h"}`, "message_id", "required field is missing"},
		{"claim with a bad outcome", `{"event":"claim","at":1,"work_id":"w1","agent_id":"a","outcome":"lost","reason":null}`, "outcome", `"lost" is not one of`},
		{"claim without reason", `{"event":"claim","at":1,"work_id":"w1","agent_id":"a","outcome":"claimed"}`, "reason", "required field is missing"},
		{"claim with a numeric reason", `{"event":"claim","at":1,"work_id":"w1","agent_id":"a","outcome":"claimed","reason":3}`, "reason", "string or null"},
		{"resolution with a bad outcome", `{"event":"resolution","at":1,"work_id":"w1","outcome":"done","reason":null}`, "outcome", "is not one of"},
		{"resolution without work", `{"event":"resolution","at":1,"outcome":"completed","reason":null}`, "work_id", "required field is missing"},
	})
}

func withoutFields(r AuditRecord) AuditRecord {
	r.line = nil
	return r
}

func auditField(t *testing.T, r AuditRecord, name string) []byte {
	t.Helper()
	raw, ok := r.Field(name)
	require.True(t, ok, name)
	return raw
}

// Field and Fields read the line as a map of its members would: the last
// of a repeated name, escaped values verbatim, on the fast path and on a
// line only encoding/json reads; a record made in code has no members.
func TestAuditFieldsAreTheLinesMembers(t *testing.T) {
	for _, line := range []string{
		`{"event":"note","at":1,"x":"first","y":{"z":[1,2]},"x":"last"}`,
		`{"event":"note","at":1,"x":"first","y":{"z":[1,2]},"x":"last","w":"\u00e9"}`,
		"{\"event\":\"note\",\"at\":1,\"x\":\"first\",\"y\":{\"z\":[1,2]},\"x\":\"last\",\"k\u00e9\":true}",
	} {
		recs, errs := ParseAudit([]byte(line))
		require.Empty(t, errs, line)
		var want map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(line), &want))
		got := recs[0].Rec.Fields()
		require.Len(t, got, len(want), line)
		for k, v := range want {
			assert.JSONEq(t, string(v), string(got[k]), "%s in %s", k, line)
			one, ok := recs[0].Rec.Field(k)
			require.True(t, ok, k)
			assert.JSONEq(t, string(v), string(one), k)
		}
		_, ok := recs[0].Rec.Field("absent")
		assert.False(t, ok)
		assert.Equal(t, line, string(recs[0].Rec.Line()))
	}
	made := AuditRecord{Event: "note"}
	assert.Nil(t, made.Fields())
	_, ok := made.Field("event")
	assert.False(t, ok)
}

// The records keep their lines in storage of their own: a caller that
// reuses its buffer does not change them.
func TestAuditRecordsDoNotAliasTheCallersBuffer(t *testing.T) {
	buf := []byte(`{"event":"note","at":1,"x":"aa"}` + "\n")
	recs, errs := ParseAudit(buf)
	require.Empty(t, errs)
	copy(buf, bytes.Repeat([]byte{'#'}, len(buf)))
	x, ok := recs[0].Rec.Field("x")
	require.True(t, ok)
	assert.Equal(t, `"aa"`, string(x))
}

func TestParseModelCalls(t *testing.T) {
	checkLineCases(t, ModelCalls, ParseModelCalls, []lineCase{
		{"valid", `{"call_id":"call-1","at":3,"prompt":"p","anchor":"","reply":"r"}`, "", ""},
		{"only the call id", `{"call_id":"c1"}`, "", ""},
		{"id instead of call_id", `{"id":"c1"}`, "", ""},
		{"optional fields of other types", `{"call_id":"c1","at":"soon","prompt":7,"anchor":null,"reply":[]}`, "", ""},
		{"missing call id", `{"at":3,"prompt":"p","anchor":"","reply":"r"}`, "call_id", "required field is missing"},
		{"empty call id", `{"call_id":""}`, "call_id", "must not be empty"},
		{"numeric call id", `{"call_id":7}`, "call_id", "must be a string"},
		{"call_id wins over id", `{"call_id":7,"id":"c1"}`, "call_id", "must be a string"},
		{"numeric id", `{"id":7}`, "id", "must be a string"},
		{"not JSON", `{"call_id":"c1"`, "", "not a JSON object"},
	})
	recs, errs := ParseModelCalls([]byte(`{"call_id":"c1"}` + "\n" + `{"id":"c2","at":4,"prompt":"p","anchor":"A","reply":"r"}` + "\n" +
		`{"call_id":"c3","id":"x","at":-1}`))
	require.Empty(t, errs)
	assert.Equal(t, []Line[ModelCall]{{N: 1, Rec: ModelCall{CallID: "c1"}},
		{N: 2, Rec: ModelCall{CallID: "c2", At: 4, Prompt: "p", Anchor: "A", Reply: "r"}},
		{N: 3, Rec: ModelCall{CallID: "c3"}}}, recs)
}

func TestParseState(t *testing.T) {
	s, err := ParseState([]byte(`{"work_items":[{"work_id":"w1","status":"drafting","assigned_agent":"agent-1"},{"work_id":"w2","status":"new","assigned_agent":null}],
"agents":[{"id":"agent-1","alive":true}],"assignments":[{"work_id":"w1","agent_id":"agent-1"}],"extra":1}`))
	require.Nil(t, err)
	agent := "agent-1"
	assert.Equal(t, Snapshot{
		WorkItems:   []WorkItemState{{WorkID: "w1", Status: "drafting", AssignedAgent: &agent}, {WorkID: "w2", Status: "new"}},
		Agents:      []AgentState{{ID: "agent-1", Alive: true}},
		Assignments: []Assignment{{WorkID: "w1", AgentID: "agent-1"}},
	}, s)

	tests := []struct {
		name, data, field, msg string
	}{
		{"not JSON", `{`, "", "not a JSON object"},
		{"a list", `[]`, "", "not a JSON object"},
		{"null", `null`, "", "not a JSON object"},
		{"missing agents", `{"work_items":[],"assignments":[]}`, "agents", "required field is missing"},
		{"work_items not a list", `{"work_items":{},"agents":[],"assignments":[]}`, "work_items", "list of objects"},
		{"work item without status", `{"work_items":[{"work_id":"w1"}],"agents":[],"assignments":[]}`, "work_items[0].status", "required field is missing"},
		{"work item without assigned agent", `{"work_items":[{"work_id":"w1","status":"s"}],"agents":[],"assignments":[]}`, "work_items[0].assigned_agent", "required field is missing"},
		{"assigned agent not a string", `{"work_items":[{"work_id":"w1","status":"s","assigned_agent":7}],"agents":[],"assignments":[]}`, "work_items[0].assigned_agent", "must be a string"},
		{"agent without alive", `{"work_items":[],"agents":[{"id":"a"}],"assignments":[]}`, "agents[0].alive", "boolean"},
		{"alive not a boolean", `{"work_items":[],"agents":[{"id":"a","alive":"yes"}],"assignments":[]}`, "agents[0].alive", "boolean"},
		{"second assignment broken", `{"work_items":[],"agents":[],"assignments":[{"work_id":"w","agent_id":"a"},{"work_id":"w"}]}`, "assignments[1].agent_id", "required field is missing"},
		{"null entry", `{"work_items":[null],"agents":[],"assignments":[]}`, "work_items[0].work_id", "required field is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseState([]byte(tc.data))
			require.NotNil(t, err)
			assert.Equal(t, State, err.File)
			assert.Equal(t, 1, err.Line)
			assert.Equal(t, tc.field, err.Field)
			assert.Contains(t, err.Msg, tc.msg)
		})
	}
}

func TestSnapshotHolder(t *testing.T) {
	a, empty := "agent-1", ""
	s := Snapshot{
		WorkItems: []WorkItemState{{WorkID: "w1", AssignedAgent: &a}, {WorkID: "w2"}, {WorkID: "w3", AssignedAgent: &empty}, {WorkID: "w4"}},
		Assignments: []Assignment{{WorkID: "w1", AgentID: "agent-9"}, {WorkID: "w2", AgentID: "agent-2"},
			{WorkID: "w3", AgentID: "agent-3"}, {WorkID: "w4", AgentID: ""}},
	}
	for work, want := range map[string]string{
		"w1": "agent-1", // assigned_agent comes first
		"w2": "agent-2", // null assigned_agent: the assignments say
		"w3": "agent-3", // an empty name names no one
		"w4": "",
		"w5": "",
	} {
		assert.Equal(t, want, s.Holder(work), work)
	}
}

func TestParseRunLog(t *testing.T) {
	s := seeds.OfEngine(7)
	recs := []LogRecord{
		{Kind: LogStart, LogStartInfo: &LogStartInfo{Bundle: "l0-respond", Impl: "reference", Seeds: s, Params: map[string]string{"runs": "5"}}},
		{Kind: LogDeliver, Tick: 1, ID: "m1", Line: 1, Scheduled: new(int)},
		{Kind: LogTickEnd, Tick: 1, Writes: []string{Drafts, State}, Lines: map[string]int{Drafts: 1}, State: json.RawMessage(`{"work_items":[]}`)},
		{Kind: LogEnd, Tick: 9},
	}
	var data []byte
	for _, r := range recs {
		line, err := MarshalLine(r)
		require.NoError(t, err)
		data = append(append(data, line...), '\n')
	}
	got, err := ParseRunLog(data)
	require.NoError(t, err)
	assert.Equal(t, recs, got)
	assert.Contains(t, string(data), `"engine_seed":"7"`, "a seed is written as a string")

	// A seed written as a number is read too, exactly; a bad one is an error.
	got, err = ParseRunLog([]byte(`{"kind":"start","tick":0,"engine_seed":18446744073709551615}` + "\n"))
	require.NoError(t, err)
	require.NotNil(t, got[0].Start().Engine)
	assert.Equal(t, seeds.Seed(18446744073709551615), *got[0].Start().Engine)
	_, err = ParseRunLog([]byte(`{"kind":"start","tick":0,"engine_seed":"-7"}` + "\n"))
	assert.Error(t, err)

	for _, tc := range []struct {
		name, data string
		line       int
		field      string
	}{
		{"not JSON", "{\"kind\":\"start\",\"tick\":0}\nnope\n", 2, ""},
		{"no kind", "\n{\"tick\":0}\n", 2, "kind"},
		{"wrong type", "{\"kind\":\"deliver\",\"tick\":\"one\"}\n", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRunLog([]byte(tc.data))
			var le LineError
			require.True(t, errors.As(err, &le), "%v", err)
			assert.Equal(t, RunLogFile, le.File)
			assert.Equal(t, tc.line, le.Line)
			assert.Equal(t, tc.field, le.Field)
		})
	}
}

func TestMarshalLine(t *testing.T) {
	line, err := MarshalLine(Message{ID: "m<1>", Body: "a & b"})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"m<1>","conversation_id":"","from":"","subject":"","body":"a & b","at":0}`, string(line))
}

// A tick is a whole number in any JSON spelling (RFC 8259 §6 has one number
// type): 3.0 and 30e-1 are 3. A fraction, a negative number, a value past
// 2^40, a huge exponent and anything but a number are not ticks.
func TestTickValue(t *testing.T) {
	for raw, want := range map[string]int{"3": 3, " 3 ": 3, "3.0": 3, "3.000": 3, "3e0": 3, "3E+0": 3, "30e-1": 3, "1.1e1": 11,
		"0": 0, "0.0": 0, "-0": 0, "-0.0": 0, "1099511627776": 1 << 40} {
		got, ok := TickValue(json.RawMessage(raw))
		assert.True(t, ok, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, raw := range []string{"3.5", "-1", "-1.0", "1099511627777", "1.099511627777e12", "1e65", "1e-65", "1e99999999999",
		`"3"`, "true", "null", "3.", ".5", "NaN", "3 4", ""} {
		_, ok := TickValue(json.RawMessage(raw))
		assert.False(t, ok, raw)
	}
	recs, errs := ParseOutbox([]byte(`{"effect_id":"e1","draft_id":"d1","sent_at":3.0}` + "\n" + `{"effect_id":"e2","draft_id":"d2","sent_at":3.5}`))
	require.Len(t, recs, 1)
	assert.Equal(t, 3, recs[0].Rec.SentAt)
	require.Len(t, errs, 1)
	assert.Equal(t, "sent_at", errs[0].Field)
}

// RFC 8259 §8.1 lets a parser ignore a byte order mark: one at the start
// of a file is not part of its first line; one anywhere else is.
func TestByteOrderMark(t *testing.T) {
	line := `{"effect_id":"e1","draft_id":"d1","sent_at":1}`
	recs, errs := ParseOutbox([]byte("\ufeff" + line + "\n\ufeff" + line + "\n"))
	require.Len(t, recs, 1)
	assert.Equal(t, 1, recs[0].N)
	require.Len(t, errs, 1)
	assert.Equal(t, 2, errs[0].Line)

	s, err := ParseState([]byte("\ufeff" + `{"work_items":[],"agents":[],"assignments":[]}`))
	require.Nil(t, err)
	assert.Empty(t, s.WorkItems)
}
