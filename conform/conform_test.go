package conform_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/conform"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
)

func load(t *testing.T, name string) *conform.Submission {
	t.Helper()
	s, err := conform.Load(filepath.Join("..", "examples", "submissions", name))
	require.NoError(t, err)
	return s
}

func impl(t *testing.T, name string) play.Impl {
	t.Helper()
	im, ok := examples.Lookup(name)
	require.True(t, ok, name)
	return play.Impl{Name: im.Name, New: im.New}
}

func statuses(rep *conform.Report) map[string]string {
	out := map[string]string{}
	for _, r := range rep.Results {
		out[r.Capability] = r.Status
	}
	return out
}

func TestReferenceDeclarationAllMatches(t *testing.T) {
	s := load(t, "reference.json")
	rep, err := conform.Check(s, impl(t, s.Implementation), conform.Config{Runs: 1})
	require.NoError(t, err)
	assert.True(t, rep.Conforms())
	assert.Equal(t, len(rep.Results), rep.Counts[conform.Match], "%v", statuses(rep))
	assert.Equal(t, 1+7+len(s.Mechanisms), len(rep.Results), "origin, seven levels, one per mechanism")
	for _, r := range rep.Results {
		assert.NotEmpty(t, r.Probes, r.Capability)
	}
}

// A weak implementation whose declaration claims escalation handling it
// does not have: every escalation capability mismatches, with evidence.
func TestOverclaimingDeclarationMismatches(t *testing.T) {
	s := load(t, "weak-ignore-escalation.json")
	rep, err := conform.Check(s, impl(t, s.Implementation), conform.Config{Runs: 1})
	require.NoError(t, err)
	assert.False(t, rep.Conforms())
	got := statuses(rep)
	for _, c := range []string{"level:L4", "level:L5", "level:L6", "L4.send-after-escalation",
		"L4.escalation-resolution", "L6.post-approval-send"} {
		assert.Equal(t, conform.Mismatch, got[c], c)
	}
	assert.Equal(t, conform.Match, got["L2.approval-binding"])
	for _, r := range rep.Results {
		if r.Status == conform.Mismatch {
			assert.NotEmpty(t, r.Evidence, r.Capability)
		}
	}
}

// The same implementation, declared honestly: what it says it lacks is
// unverifiable, never a match, and nothing mismatches.
func TestHonestDeclarationIsUnverifiableNotMatch(t *testing.T) {
	s := load(t, "weak-ignore-escalation-honest.json")
	rep, err := conform.Check(s, impl(t, s.Implementation), conform.Config{Runs: 1})
	require.NoError(t, err)
	assert.True(t, rep.Conforms(), "%v", statuses(rep))
	got := statuses(rep)
	for _, g := range s.KnownGaps {
		assert.Equal(t, conform.Unverifiable, got[g.Invariant], g.Invariant)
	}
	assert.Equal(t, conform.Unverifiable, got["level:L4"])
	assert.Equal(t, len(s.KnownGaps)+4, rep.Counts[conform.Unverifiable], "the gaps and levels 3 to 6")
	for _, r := range rep.Results {
		if r.Status == conform.Unverifiable {
			assert.Empty(t, r.Probes, "%s: a capability declared absent is never exercised", r.Capability)
		}
	}
}

func TestOriginIsCompared(t *testing.T) {
	s := load(t, "reference.json")
	s.DraftingOrigin = "model-free"
	s.Mechanisms = nil
	rep, err := conform.Check(s, impl(t, "reference"), conform.Config{Runs: 1})
	require.NoError(t, err)
	require.Equal(t, "origin", rep.Results[0].Capability)
	assert.Equal(t, conform.Mismatch, rep.Results[0].Status)
	assert.Equal(t, "model-based", rep.Results[0].Observed)
}

func TestParseRejectsBadDeclarations(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"format": conform.Format, "implementation": "reference", "drafting_origin": "model-based",
			"levels_attempted": []int{0}, "mechanisms": []any{}, "known_gaps": []any{}}
	}
	cases := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"unknown field", func(m map[string]any) { m["levels"] = 1 }, "unknown field"},
		{"wrong format", func(m map[string]any) { m["format"] = "x" }, "format"},
		{"bad origin", func(m map[string]any) { m["drafting_origin"] = "magic" }, "drafting_origin"},
		{"bad level", func(m map[string]any) { m["levels_attempted"] = []int{0, 7} }, "7 is not a level"},
		{"repeated level", func(m map[string]any) { m["levels_attempted"] = []int{1, 1} }, "listed twice"},
		{"unknown invariant", func(m map[string]any) {
			m["mechanisms"] = []any{map[string]string{"invariant": "L9.magic", "mechanism": "x"}}
		}, "not an invariant id"},
		{"empty mechanism", func(m map[string]any) {
			m["mechanisms"] = []any{map[string]string{"invariant": "L0.reply", "mechanism": " "}}
		}, "mechanism is empty"},
		{"declared both ways", func(m map[string]any) {
			m["mechanisms"] = []any{map[string]string{"invariant": "L0.reply", "mechanism": "x"}}
			m["known_gaps"] = []any{map[string]string{"invariant": "L0.reply", "gap": "y"}}
		}, "already declared"},
	}
	for _, c := range cases {
		m := base()
		c.edit(m)
		data, err := json.Marshal(m)
		require.NoError(t, err)
		_, err = conform.Parse(data)
		assert.ErrorContains(t, err, c.want, c.name)
	}
	data, err := json.Marshal(base())
	require.NoError(t, err)
	_, err = conform.Parse(data)
	assert.NoError(t, err)
}
