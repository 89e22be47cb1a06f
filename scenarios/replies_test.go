package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

const modelWithReplies = `{
  "anchors": ["ORD-1", "ORD-2"],
  "reply": "Order {{anchor}} ships.",
  "reply_no_anchor": "Which order?",
  "replies": [
    {
      "id": "review",
      "when": {"schema": "review"},
      "json": {"verdict": "approve", "about": "{{anchor}}"}
    },
    {
      "id": "send",
      "when": {"tool": "send_reply"},
      "tool": "send_reply",
      "json": {"to": "{{sender}}", "body": "Re {{anchor}}"}
    }
  ]
}
`

func TestRepliesLoadRoundTripAndCountInTheHash(t *testing.T) {
	dir := t.TempDir()
	base := baseBundle()
	require.NoError(t, SaveDir(base, dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileModel), []byte(modelWithReplies), 0o644))
	b, probs, err := ValidateFile(dir)
	require.NoError(t, err)
	require.Empty(t, probs)
	require.Len(t, b.Model.Replies, 2)
	assert.Equal(t, ReplyRule{ID: "review", When: ReplyWhen{Schema: "review"},
		JSON: json.RawMessage(`{"verdict": "approve", "about": "{{anchor}}"}`)}, b.Model.Replies[0])

	// Directory -> single JSON -> directory keeps the rules, and the bundle
	// is another bundle than the one without them.
	single := filepath.Join(t.TempDir(), "b.json")
	require.NoError(t, SaveJSON(b, single))
	again, _, err := Load(single)
	require.NoError(t, err)
	require.Len(t, again.Model.Replies, 2)
	assert.JSONEq(t, string(b.Model.Replies[1].JSON), string(again.Model.Replies[1].JSON))
	withText, err := json.Marshal(b.Model)
	require.NoError(t, err)
	withoutText, err := json.Marshal(base.Model)
	require.NoError(t, err)
	assert.NotContains(t, string(withoutText), "replies", "a model without replies is written as before")
	assert.Contains(t, string(withText), `"replies"`)
}

func TestRepliesProblemsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, SaveDir(baseBundle(), dir))
	bad := `{
  "anchors": ["ORD-1"],
  "reply": "Order {{anchor}}",
  "reply_no_anchor": "?",
  "replies": [
    {"id": "a", "reply": "x"},
    {"id": "a", "when": {"format": "yaml"}, "reply": "y"},
    {"id": "b", "when": {"phrase": "z"}, "reply": "z"}
  ]
}
`
	path := filepath.Join(dir, FileModel)
	require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
	_, probs, err := ValidateFile(dir)
	require.NoError(t, err)
	unknown := findProblem(t, probs, "model.replies[2].when.phrase")
	assert.Equal(t, Pos{File: path, Line: 8}, unknown.Pos)
	assert.Contains(t, unknown.Msg, "unknown field")

	// Fixed the unknown field, the meaning checks speak.
	fixed := strings.Replace(bad, `"phrase"`, `"contains"`, 1)
	require.NoError(t, os.WriteFile(path, []byte(fixed), 0o644))
	_, probs, err = ValidateFile(dir)
	require.NoError(t, err)
	dup := findProblem(t, probs, "model.replies[1].id")
	assert.Equal(t, Pos{File: path, Line: 7}, dup.Pos)
	format := findProblem(t, probs, "model.replies[1].when.format")
	assert.Equal(t, Pos{File: path, Line: 7}, format.Pos)
	assert.Contains(t, format.String(), path+":7: model.replies[1].when.format: unknown format")
}

// The hand scan finds what the regular expression it replaces finds.
func TestPlaceholdersInMatchesTheExpression(t *testing.T) {
	re := regexp.MustCompile(`\{\{[^{}]*\}\}`)
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune{'{', '}', 'a', ' ', 'é'})).Draw(t, "tmpl")
		if rapid.Bool().Draw(t, "named") {
			s += rapid.SampledFrom(Placeholders).Draw(t, "placeholder") + s
		}
		want := re.FindAllString(s, -1)
		if got := placeholdersIn(s); !slices.Equal(got, want) {
			t.Fatalf("placeholdersIn(%q) = %q, want %q", s, got, want)
		}
	})
}
