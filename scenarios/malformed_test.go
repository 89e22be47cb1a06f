package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A malformed case says where its one problem must be reported, in each
// form: the file (for the directory form), a needle whose line is the
// expected line, and the field path.
type where struct {
	file   string // directory form only: the file name in the bundle directory
	needle string // compact text on the expected line; "" means no line
	nth    int    // which occurrence of the needle; 0 means the first
	field  string
	noLine bool // the problem names a file, not a line (a missing file)
}

type semanticCase struct {
	name      string
	mutate    func(b *Bundle)
	json, dir where
	msg       string
}

// semanticCases break the meaning of the base bundle; each names where the
// problem must be reported in each form.
func semanticCases() []semanticCase {
	return []semanticCase{
		{"duplicate message id", func(b *Bundle) { b.Inbox[2].ID = "m1" },
			where{needle: `"id":"m1"`, nth: 2, field: "inbox[2].id"},
			where{file: FileInbox, needle: `"id":"m1"`, nth: 2, field: "inbox[2].id"}, "duplicate id"},
		{"approval for a missing message", func(b *Bundle) { b.Approvals[1].Match.MessageID = "ghost" },
			where{needle: `"message_id":"ghost"`, field: "approvals[1].match.message_id"},
			where{file: FileApprovals, needle: `"message_id":"ghost"`, field: "approvals[1].match.message_id"}, "not in the inbox"},
		{"delivery beyond the horizon", func(b *Bundle) { b.Inbox[1].At = 999 },
			where{needle: `"at":999`, field: "inbox[1].at"},
			where{file: FileInbox, needle: `"at":999`, field: "inbox[1].at"}, "outside 0..60"},
		{"bad posture", func(b *Bundle) { b.Mode.Posture = "party" },
			where{needle: `"posture":"party"`, field: "mode.posture"},
			where{file: FileMode, needle: `"posture":"party"`, field: "mode.posture"}, "is not one of"},
		{"override of an unknown rule", func(b *Bundle) { b.Rules[2].Overrides = []string{"ghost"} },
			where{needle: `"ghost"`, field: "rules[2].overrides[0]"},
			where{file: FileRules, needle: `"ghost"`, field: "rules[2].overrides[0]"}, "not a rule of this set"},
		{"overlapping tick jumps", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 32, Kind: FaultTickJump, By: 2}) },
			where{needle: `"at":32`, field: "faults[6].at"},
			where{file: FileFaults, needle: `"at":32`, field: "faults[6].at"}, "inside the jump"},
		{"escalation aimed at an agent", func(b *Bundle) { b.Signals[1].Target = Match{AgentID: "agent-1"} },
			where{needle: `"agent_id":"agent-1"`, field: "signals[1].target.agent_id"},
			where{file: FileSignals, needle: `"agent_id":"agent-1"`, field: "signals[1].target.agent_id"}, "not an agent"},
		{"signal with two targets", func(b *Bundle) { b.Signals[0].Target.WorkID = "w-9" },
			where{needle: `"target":{`, field: "signals[0].target"},
			where{file: FileSignals, needle: `"signal_id":"s1"`, field: "signals[0].target"}, "exactly one"},
		{"duplicate before its message", func(b *Bundle) { b.Faults[1].At = 0 },
			where{needle: `"at":0,`, field: "faults[1].at"},
			where{file: FileFaults, needle: `"at":0,`, field: "faults[1].at"}, "before message"},
		{"unadmittable approval", func(b *Bundle) {
			b.Inbox = append(b.Inbox, Delivery{ID: "m4", ConversationID: "c4", From: "bob@example.com", Subject: "Lunch?", At: 21})
			b.Approvals[2].Match = Match{MessageID: "m4"}
			b.Faults[3].Rules = []Rule{{ID: "quiet"}}
		},
			where{needle: `"message_id":"m4"`, field: "approvals[2].match.message_id"},
			where{file: FileApprovals, needle: `"message_id":"m4"`, field: "approvals[2].match.message_id"}, "admitted by no rule set"},
		{"empty fleet", func(b *Bundle) { b.Fleet = []string{} },
			where{needle: `"fleet":[]`, field: "fleet"},
			where{file: FileBundle, needle: `"fleet":[]`, field: "fleet"}, "at least one agent"},
		{"bad top_level", func(b *Bundle) { b.Meta.TopLevel = 9 },
			where{needle: `"top_level":9`, field: "meta.top_level"},
			where{file: FileBundle, needle: `"top_level":9`, field: "meta.top_level"}, "outside 0..6"},
		{"rule without id in a rules fault", func(b *Bundle) { b.Faults[3].Rules[0].ID = "" },
			where{needle: `"id":""`, field: "faults[3].rules[0].id"},
			where{file: FileFaults, needle: `"id":""`, field: "faults[3].rules[0].id"}, "must not be empty"},
		{"redelivery of a missing approval", func(b *Bundle) { b.Faults[2].ApprovalID = "a9" },
			where{needle: `"approval_id":"a9"`, field: "faults[2].approval_id"},
			where{file: FileFaults, needle: `"approval_id":"a9"`, field: "faults[2].approval_id"}, "not in the approvals"},
		{"bad horizon", func(b *Bundle) { b.Meta.Horizon = 0; b.Inbox, b.Approvals, b.Signals, b.Faults = nil, nil, nil, nil },
			where{needle: `"horizon":0`, field: "meta.horizon"},
			where{file: FileBundle, needle: `"horizon":0`, field: "meta.horizon"}, "outside 1..100000"},
	}
}

// TestMalformedSemantics writes each semantic case in both forms and expects
// ValidateFile to point at the exact file, line and field in each.
func TestMalformedSemantics(t *testing.T) {
	for _, tc := range semanticCases() {
		b := baseBundle()
		tc.mutate(b)
		t.Run(tc.name+"/json", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bundle.json")
			require.NoError(t, SaveJSON(b, path))
			_, ps, err := ValidateFile(path)
			require.NoError(t, err)
			expectAt(t, ps, path, tc.json, tc.msg)
		})
		t.Run(tc.name+"/dir", func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, SaveDir(b, dir))
			_, ps, err := ValidateFile(dir)
			require.NoError(t, err)
			expectAt(t, ps, filepath.Join(dir, tc.dir.file), tc.dir, tc.msg)
		})
	}
}

// A syntaxForm is one text edit of the base bundle in one form.
type syntaxForm struct {
	file  string // the file edited: "" for the single-JSON form
	edit  func(string) string
	where where
}

type syntaxCase struct {
	name  string
	forms []syntaxForm
	msg   string
}

// syntaxCases break the text of the base bundle so it does not load, in
// both forms where the break makes sense for the form.
func syntaxCases() []syntaxCase {
	type form = syntaxForm
	return []syntaxCase{
		{"missing comma", []form{
			{"", replace(`"version": 1,`, `"version": 1`), where{needle: `"description"`, field: "meta"}},
			{FileBundle, replace(`"version": 1,`, `"version": 1`), where{needle: `"description"`, field: "meta"}},
			{FileInbox, replace(`"id":"m2",`, `"id":"m2"`), where{needle: `"id":"m2"`, field: "inbox[1]"}},
		}, "invalid JSON"},
		{"truncated", []form{
			{"", cut(`"signals"`, 5), where{needle: `"sign`, field: ""}},
			{FileRules, cut(`"vip"`, 3), where{needle: `"id":"vi`, field: "rules[1].id"}},
			{FileFaults, cut(`"kind":"redeliver"`, 0), where{needle: `{"at":7,`, field: "faults[2]"}},
		}, "invalid JSON"},
		{"empty file", []form{
			{"", func(string) string { return "" }, where{needle: "", field: ""}},
			{FileBundle, func(string) string { return "" }, where{needle: "", field: ""}},
		}, "unexpected end of input"},
		{"not an object", []form{
			{"", func(string) string { return "hello\n" }, where{needle: "hello", field: ""}},
			{FileMode, func(string) string { return "\n\n[1, 2]\n" }, where{needle: "[1,2]", field: "mode"}},
		}, ""},
		{"trailing data", []form{
			{"", func(s string) string { return s + "{\"more\": 1}\n" }, where{needle: `{"more":1}`, field: ""}},
			{FileRules, func(s string) string { return s + "[]\n" }, where{needle: "[]", field: "rules"}},
			{FileInbox, replace(`"at":2}`, `"at":2} {"id":"m9"}`), where{needle: `"id":"m9"`, field: "inbox[1]"}},
		}, ""},
		{"wrong type", []form{
			{"", replace(`"horizon": 60`, `"horizon": "60"`), where{needle: `"horizon":"60"`, field: "meta.horizon"}},
			{FileBundle, replace(`"horizon": 60`, `"horizon": "60"`), where{needle: `"horizon":"60"`, field: "meta.horizon"}},
			{FileInbox, replace(`"at":2}`, `"at":"2"}`), where{needle: `"at":"2"`, field: "inbox[1].at"}},
		}, "wrong type: a string where a whole number is expected"},
		{"wrong type deep in a list", []form{
			{"", replace(`"vip@example.com"`, `7`), where{needle: "7", field: "rules[1].when.from_in[0]"}},
			{FileRules, replace(`"vip@example.com"`, `7`), where{needle: "7", field: "rules[1].when.from_in[0]"}},
			{FileFaults, replace(`"id":"all"`, `"id":["all"]`), where{needle: `"id":["all"]`, field: "faults[3].rules[0].id"}},
		}, "wrong type"},
		{"wrong type of a condition", []form{
			{"", replace(`"subject_contains": "order"`, `"subject_contains": 5`), where{needle: `"subject_contains":5`, field: "rules[0].when.subject_contains"}},
			{FileRules, replace(`"subject_contains": "order"`, `"subject_contains": 5`), where{needle: `"subject_contains":5`, field: "rules[0].when.subject_contains"}},
		}, "wrong type: a number where a string is expected"},
		{"not a whole number", []form{
			{"", replace("\"at\": 1\n", "\"at\": 1.5\n"), where{needle: `"at":1.5`, field: "inbox[0].at"}},
			{FileInbox, replace(`"at":1}`, `"at":1.5}`), where{needle: `"at":1.5`, field: "inbox[0].at"}},
		}, "1.5 where a whole number"},
		{"null where a value is needed", []form{
			{"", replace(`"horizon": 60`, `"horizon": null`), where{needle: `"horizon":null`, field: "meta.horizon"}},
			{FileModel, replace(`"reply_no_anchor": "Which order do you mean?"`, `"reply_no_anchor": null`), where{needle: `"reply_no_anchor":null`, field: "model.reply_no_anchor"}},
		}, "wrong type: null"},
		{"unknown top-level field", []form{
			{"", replace(`"format": "amr.bundle/v1",`, `"format": "amr.bundle/v1",
  "extra": true,`), where{needle: `"extra":true`, field: "extra"}},
			{FileBundle, replace(`"format": "amr.bundle/v1",`, `"format": "amr.bundle/v1",
  "mode": {},`), where{needle: `"mode":{}`, field: "mode"}},
		}, "unknown field"},
		{"unknown nested field", []form{
			{"", replace(`"message_id": "m2"`, `"message_id": "m2",
        "agentid": "agent-1"`), where{needle: `"agentid"`, field: "approvals[1].match.agentid"}},
			{FileApprovals, replace(`"message_id":"m2"`, `"message_id":"m2","agentid":"agent-1"`), where{needle: `"agentid"`, field: "approvals[1].match.agentid"}},
			{FileInbox, replace(`{"id":"m3"`, `{"colour":"red","id":"m3"`), where{needle: `"colour"`, field: "inbox[2].colour"}},
		}, "unknown field"},
		{"key in the wrong case", []form{
			{"", replace(`"approval_id": "a3"`, `"Approval_ID": "a3"`), where{needle: `"Approval_ID"`, field: "approvals[2].Approval_ID"}},
			{FileApprovals, replace(`"approval_id":"a3"`, `"Approval_ID":"a3"`), where{needle: `"Approval_ID"`, field: "approvals[2].Approval_ID"}},
		}, "unknown field"},
		{"duplicate key", []form{
			{"", replace(`"name": "l3-base",`, `"name": "l3-base",
    "name": "l3-other",`), where{needle: `"name":"l3-other"`, field: "meta.name"}},
			{FileBundle, replace(`"name": "l3-base",`, `"name": "l3-base",
    "name": "l3-other",`), where{needle: `"name":"l3-other"`, field: "meta.name"}},
			{FileSignals, replace(`"signal_id":"s2",`, `"signal_id":"s2","at":9,`), where{needle: `"signal_id":"s2"`, field: "signals[1].at"}},
		}, "duplicate key"},
		{"missing required file", []form{
			{FileMode, nil, where{field: "mode", noLine: true}},
			{FileRules, nil, where{field: "rules", noLine: true}},
			{FileModel, nil, where{field: "model", noLine: true}},
		}, "missing file"},
		{"missing bundle.json", []form{
			{FileBundle, nil, where{field: "", noLine: true}},
		}, "needs bundle.json"},
	}
}

func TestMalformedSyntax(t *testing.T) {
	for _, tc := range syntaxCases() {
		for _, f := range tc.forms {
			name := tc.name + "/json"
			if f.file != "" {
				name = tc.name + "/" + f.file
			}
			t.Run(name, func(t *testing.T) {
				path, text := writeEdited(t, f.file, f.edit)
				_, ps, err := ValidateFile(path)
				require.NoError(t, err)
				file := path
				if f.file != "" {
					file = filepath.Join(path, f.file)
				}
				expectAtText(t, ps, file, text, f.where, tc.msg)
			})
		}
	}
}

// writeEdited writes the base bundle in the single-JSON form (file "") or
// the directory form with one file edited (a nil edit removes the file). It
// returns the path to load and the edited text.
func writeEdited(t *testing.T, file string, edit func(string) string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if file == "" {
		data, err := baseBundle().MarshalIndent()
		require.NoError(t, err)
		text := edit(string(data))
		require.NotEqual(t, string(data), text, "the edit changed nothing")
		path := filepath.Join(dir, "bundle.json")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path, text
	}
	require.NoError(t, SaveDir(baseBundle(), dir))
	full := filepath.Join(dir, file)
	if edit == nil {
		require.NoError(t, os.Remove(full))
		return dir, ""
	}
	data, err := os.ReadFile(full)
	require.NoError(t, err)
	text := edit(string(data))
	require.NotEqual(t, string(data), text, "the edit changed nothing")
	require.NoError(t, os.WriteFile(full, []byte(text), 0o644))
	return dir, text
}

// replace returns an edit replacing the first old with new.
func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// cut returns an edit that ends the text n bytes into the first at.
func cut(at string, n int) func(string) string {
	return func(s string) string {
		if i := strings.Index(s, at); i >= 0 {
			return s[:i+n]
		}
		return s
	}
}

func expectAt(t *testing.T, ps Problems, file string, w where, msg string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	expectAtText(t, ps, file, string(data), w, msg)
}

func expectAtText(t *testing.T, ps Problems, file, text string, w where, msg string) {
	t.Helper()
	require.NotEmpty(t, ps, "expected a problem at %s", w.field)
	p := findProblem(t, ps, w.field)
	line := 1
	switch {
	case w.noLine:
		line = 0
	case w.needle != "":
		line = lineOf(t, text, strings.ReplaceAll(w.needle, " ", ""), max(w.nth, 1))
	}
	assert.Equal(t, Pos{File: file, Line: line}, p.Pos, p.String())
	assert.Contains(t, p.Msg, msg)
	assert.False(t, p.Warning)
}
