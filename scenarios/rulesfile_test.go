package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compactRules is the base bundle's initial rules as one line, the way
// another tool would write rules.json.
const compactRules = `[{"id":"orders","admit":true,"when":{"subject_contains":"order"}},{"when":{"from_in":["vip@example.com"]},"admit":true,"id":"vip"},{"id":"gate","admit":false,"when":{"posture":"maintenance"},"overrides":["orders"]}]`

// dirWithRules saves the base bundle in the directory form with rules.json
// replaced by text.
func dirWithRules(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, SaveDir(baseBundle(), dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileRules), []byte(text), 0o644))
	return dir
}

// A rules.json written by hand is given to the implementation byte for byte,
// whichever form the bundle travels in: dir -> JSON -> dir keeps the bytes.
func TestRulesFileKeepsTheGivenBytes(t *testing.T) {
	for _, text := range []string{compactRules, compactRules + "\n", strings.ReplaceAll(compactRules, "},{", "},\r\n\t{") + "\n"} {
		dir := dirWithRules(t, text)
		fromDir, src, err := LoadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, Validate(fromDir, src))
		assert.Equal(t, baseBundle().Rules, fromDir.Rules, "the same rules, however written")
		assert.Equal(t, text, string(fromDir.RulesFile()))

		single := filepath.Join(t.TempDir(), "b.json")
		require.NoError(t, SaveJSON(fromDir, single))
		data, err := os.ReadFile(single)
		require.NoError(t, err)
		assert.Contains(t, string(data), `"rules_json": `)
		fromJSON, jsrc, err := Load(single)
		require.NoError(t, err)
		assert.Empty(t, Validate(fromJSON, jsrc))
		assert.Equal(t, fromDir, fromJSON)
		assert.Equal(t, text, string(fromJSON.RulesFile()))

		again := t.TempDir()
		require.NoError(t, SaveDir(fromJSON, again))
		written, err := os.ReadFile(filepath.Join(again, FileRules))
		require.NoError(t, err)
		assert.Equal(t, text, string(written))
	}
}

// The default bytes need no text: a bundle whose rules.json is RulesBytes
// of its rules reads back equal to one built in memory, and its single-JSON
// form has no rules_json member.
func TestRulesFileDefaultBytesCarryNoText(t *testing.T) {
	dir := dirWithRules(t, string(RulesBytes(baseBundle().Rules)))
	b, _, err := LoadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, b.RulesJSON)
	assert.Equal(t, baseBundle(), b)
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	assert.NotContains(t, string(data), "rules_json")

	withText := baseBundle()
	withText.RulesJSON = string(RulesBytes(withText.Rules))
	marshalled, err := withText.MarshalIndent()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(marshalled), "a text equal to the default bytes is not written")
	parsed := parseText(t, strings.Replace(string(data), `"rules": [`, `"rules_json": `+quote(string(RulesBytes(withText.Rules)))+`,
  "rules": [`, 1))
	assert.Empty(t, parsed.RulesJSON, "nor kept when read")
}

// Every published scenario's rules.json is the default encoding of its rules,
// so carrying the exact bytes changed none of their hashes.
func TestPublishedRulesFilesAreDefaultBytes(t *testing.T) {
	pubs, err := Published()
	require.NoError(t, err)
	require.NotEmpty(t, pubs)
	for _, p := range pubs {
		raw, err := os.ReadFile(filepath.Join(p.Name, FileRules))
		require.NoError(t, err)
		assert.Equal(t, string(RulesBytes(p.Bundle.Rules)), string(raw), p.Name)
		assert.Empty(t, p.Bundle.RulesJSON, p.Name)
		for i, f := range p.Bundle.Faults {
			assert.Empty(t, f.RulesJSON, "%s faults[%d]", p.Name, i)
		}
	}
}

// In the single-JSON form a rules text may be the only source of the rules,
// for the bundle and for a rules fault.
func TestRulesJSONAloneGivesTheRules(t *testing.T) {
	faultText := `[{"id":"all","admit":true}]`
	data, err := baseBundle().MarshalIndent()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	delete(doc, "rules")
	doc["rules_json"] = compactRules
	fault := doc["faults"].([]any)[3].(map[string]any)
	require.Equal(t, FaultRules, fault["kind"])
	delete(fault, "rules")
	fault["rules_json"] = faultText
	text, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)

	b, src, err := Parse("b.json", text)
	require.NoError(t, err, string(text))
	assert.Empty(t, Validate(b, src))
	assert.Equal(t, baseBundle().Rules, b.Rules)
	assert.Equal(t, compactRules, string(b.RulesFile()))
	assert.Equal(t, []Rule{{ID: "all", Admit: true}}, b.Faults[3].Rules)
	assert.Equal(t, faultText, string(b.Faults[3].RulesFile()))

	doc["rules_json"] = `[{"id":"orders","admit":true,"when":{"subject_contains":""}}]`
	text, err = json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	b, src, err = Parse("b.json", text)
	require.NoError(t, err)
	p := findProblem(t, Validate(b, src), "rules[0].when.subject_contains")
	assert.Equal(t, Pos{File: "b.json", Line: lineOf(t, string(text), `"rules_json":`, 2)}, p.Pos,
		"a problem in rules read from the text points at the text")
}

func TestRulesJSONProblems(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(string) string
		field  string
		needle string // on the line reported
		msg    string
	}{
		{"empty text", addText(`""`), "rules_json", `"rules_json":""`, "must not be empty"},
		{"bad syntax, one line", addText(quote(`[{"id":"orders",}]`)), "rules_json[0]", `"rules_json":`, "invalid JSON"},
		{"bad syntax, second line", addText(quote("[\n{\"id\": \"orders\" \"admit\": true}]\n")), "rules_json[0]", `"rules_json":`, "line 2 of the text: invalid JSON"},
		{"unknown field", addText(quote(`[{"id":"orders","admitt":true}]`)), "rules_json[0].admitt", `"rules_json":`, "unknown field"},
		{"duplicate key", addText(quote(`[{"id":"orders","id":"vip"}]`)), "rules_json[0].id", `"rules_json":`, "duplicate key"},
		{"other rules than rules", addText(quote(`[{"id":"orders","admit":true,"when":{"subject_contains":"refund"}}]`)), "rules_json", `"rules_json":`, "says other rules than rules (rule 0 differs)"},
		{"fewer rules than rules", addText(quote(`[{"id":"orders","admit":true,"when":{"subject_contains":"order"}}]`)), "rules_json", `"rules_json":`, "the text has 1 rules, the set 3"},
		{"a fault's other rules", func(s string) string {
			return strings.Replace(s, `"kind": "rules",`, `"kind": "rules",
      "rules_json": "[{\"id\":\"none\"}]",`, 1)
		}, "faults[3].rules_json", `"rules_json":"[{\"id\":\"none\"}]"`, "says other rules than faults[3].rules"},
		{"text on a crash fault", func(s string) string {
			return strings.Replace(s, `"kind": "crash",`, `"kind": "crash",
      "rules_json": "[]",`, 1)
		}, "faults[0].rules_json", `"rules_json":"[]"`, "a crash fault has no rules_json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := singleJSON(t, tc.edit)
			path := filepath.Join(t.TempDir(), "b.json")
			require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			_, ps, err := ValidateFile(path)
			require.NoError(t, err)
			p := findProblem(t, ps, tc.field)
			assert.Equal(t, Pos{File: path, Line: lineOf(t, text, strings.ReplaceAll(tc.needle, " ", ""), 1)}, p.Pos, p.String())
			assert.Contains(t, p.Msg, tc.msg)
			assert.False(t, p.Warning)
		})
	}
}

// A text Validate was never shown (a bundle built in memory) is checked too.
func TestValidateChecksRulesTextsInMemory(t *testing.T) {
	b := baseBundle()
	b.RulesJSON = `[{"id":"orders"}]`
	p := findProblem(t, Validate(b, nil), "rules_json")
	assert.Contains(t, p.Msg, "says other rules than rules")

	b = baseBundle()
	b.Faults[3].RulesJSON = "[{\"id\":\"all\",\n\"admit\":true,}]"
	p = findProblem(t, Validate(b, nil), "faults[3].rules_json[0]")
	assert.Contains(t, p.Msg, "line 2 of the text: invalid JSON")

	b = baseBundle()
	b.RulesJSON = compactRules
	b.Faults[3].RulesJSON = `[{"admit":true,"id":"all"}]`
	assert.Empty(t, Validate(b, nil))
}

// rules.json bytes that are not UTF-8 could not survive the single-JSON
// form, so they do not load.
func TestRulesFileMustBeUTF8(t *testing.T) {
	text := "[\n" + `{"id":"orders","admit":true,"when":{"subject_contains":"caf` + "\xe9" + `"}}]`
	dir := dirWithRules(t, text)
	_, ps, err := ValidateFile(dir)
	require.NoError(t, err)
	p := findProblem(t, ps, "rules")
	assert.Equal(t, Pos{File: filepath.Join(dir, FileRules), Line: 2}, p.Pos)
	assert.Contains(t, p.Msg, "not valid UTF-8")
}

// Rules edited in memory (a shrinker removing a rule) no longer match their
// text: the text stops counting, and Normalize drops it.
func TestEditedRulesDropTheirText(t *testing.T) {
	b := baseBundle()
	b.RulesJSON = compactRules
	b.Faults[3].RulesJSON = `[{"admit":true,"id":"all"}]`
	b.Normalize()
	assert.Equal(t, compactRules, b.RulesJSON, "a text that says its rules stays")
	assert.Equal(t, `[{"admit":true,"id":"all"}]`, string(b.Faults[3].RulesFile()))

	c := b.Clone()
	c.Rules = c.Rules[:2]
	c.Rules[0].Overrides = nil
	c.Faults[3].Rules[0].ID = "every"
	assert.Equal(t, string(RulesBytes(c.Rules)), string(c.RulesFile()), "the edited rules are written re-encoded")
	assert.Equal(t, string(RulesBytes(c.Faults[3].Rules)), string(c.Faults[3].RulesFile()))
	data, err := c.MarshalIndent()
	require.NoError(t, err)
	assert.NotContains(t, string(data), "rules_json")
	c.Normalize()
	assert.Empty(t, c.RulesJSON)
	assert.Empty(t, c.Faults[3].RulesJSON)
	assert.Empty(t, Validate(c, nil).Errors())
}

// singleJSON renders the base bundle's single-JSON form, edited.
func singleJSON(t *testing.T, edit func(string) string) string {
	t.Helper()
	data, err := baseBundle().MarshalIndent()
	require.NoError(t, err)
	text := edit(string(data))
	require.NotEqual(t, string(data), text, "the edit changed nothing")
	return text
}

func parseText(t *testing.T, text string) *Bundle {
	t.Helper()
	b, _, err := Parse("b.json", []byte(text))
	require.NoError(t, err, text)
	return b
}

// addText adds a rules_json member before the bundle's rules.
func addText(value string) func(string) string {
	return replace(`"rules": [`, `"rules_json": `+value+`,
  "rules": [`)
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
