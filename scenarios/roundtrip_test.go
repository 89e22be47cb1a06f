package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestGeneratedBundlesValidate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := genBundle().Draw(t, "bundle")
		errs := Validate(b, nil).Errors()
		require.Empty(t, errs, errs.Error())
	})
}

// TestRoundTrip: a valid bundle survives both forms unchanged, and the two
// forms read back to equal bundles with the same rules bytes, the ones the
// bundle was given (genBundle draws compact, tab-indented and key-sorted
// rules texts as well as the default).
func TestRoundTrip(t *testing.T) {
	base := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		b := genBundle().Draw(t, "bundle")
		dir, err := os.MkdirTemp(base, "b")
		require.NoError(t, err)

		require.NoError(t, SaveDir(b, dir))
		fromDir, dirSrc, err := LoadDir(dir)
		require.NoError(t, err)
		require.Equal(t, b, fromDir)
		assert.Empty(t, Validate(fromDir, dirSrc).Errors())

		data, err := b.MarshalIndent()
		require.NoError(t, err)
		fromJSON, jsonSrc, err := Parse("bundle.json", data)
		require.NoError(t, err)
		require.Equal(t, b, fromJSON)
		assert.Empty(t, Validate(fromJSON, jsonSrc).Errors())

		require.Equal(t, fromDir, fromJSON)
		onDisk, err := os.ReadFile(filepath.Join(dir, FileRules))
		require.NoError(t, err)
		assert.Equal(t, string(b.RulesFile()), string(onDisk), "rules.json holds the bundle's bytes")
		assert.Equal(t, string(b.RulesFile()), string(fromJSON.RulesFile()))
		for i := range b.Faults {
			assert.Equal(t, string(b.Faults[i].RulesFile()), string(fromJSON.Faults[i].RulesFile()))
		}

		again, err := fromJSON.MarshalIndent()
		require.NoError(t, err)
		assert.Equal(t, string(data), string(again), "the single-JSON form is a fixed point")

		path := filepath.Join(dir, "single.json")
		require.NoError(t, SaveJSON(fromDir, path))
		loaded, _, err := Load(path)
		require.NoError(t, err)
		require.Equal(t, b, loaded)
		assert.Equal(t, b, b.Clone())
	})
}

// TestDirFormIsStable: saving what was loaded writes the same bytes.
func TestDirFormIsStable(t *testing.T) {
	base := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		b := genBundle().Draw(t, "bundle")
		one, err := os.MkdirTemp(base, "one")
		require.NoError(t, err)
		two, err := os.MkdirTemp(base, "two")
		require.NoError(t, err)
		require.NoError(t, SaveDir(b, one))
		loaded, _, err := LoadDir(one)
		require.NoError(t, err)
		require.NoError(t, SaveDir(loaded, two))
		for _, name := range []string{FileBundle, FileMode, FileRules, FileModel, FileInbox, FileApprovals, FileSignals, FileFaults} {
			a, err := os.ReadFile(filepath.Join(one, name))
			require.NoError(t, err)
			c, err := os.ReadFile(filepath.Join(two, name))
			require.NoError(t, err)
			require.True(t, bytes.Equal(a, c), name)
		}
	})
}

// TestUnknownConditionsSurviveReformatting: unknown condition values written
// with any spacing read back equal to their compact form, in both forms.
func TestUnknownConditionsSurviveReformatting(t *testing.T) {
	b := baseBundle()
	dir := t.TempDir()
	require.NoError(t, SaveDir(b, dir))
	rules := `[{"id": "tagged", "admit": true, "when": {"tags": [ "a",  {"b" : 1} ], "subject_contains": "order"}},
  {"id": "vip", "admit": true, "when": {"from_in": ["vip@example.com"]}},
  {"id": "gate", "admit": false, "when": {"posture": "maintenance"}, "overrides": ["tagged"]}]`
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileRules), []byte(rules), 0o644))
	fromDir, src, err := LoadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, `["a",{"b":1}]`, string(fromDir.Rules[0].When.Unknown["tags"]))
	ps := Validate(fromDir, src)
	require.Len(t, ps, 1)
	assert.True(t, ps[0].Warning)
	assert.Equal(t, "rules[0].when.tags", ps[0].Field)
	assert.Equal(t, Pos{File: filepath.Join(dir, FileRules), Line: 1}, ps[0].Pos)

	data, err := fromDir.MarshalIndent()
	require.NoError(t, err)
	fromJSON, _, err := Parse("b.json", data)
	require.NoError(t, err)
	assert.Equal(t, fromDir, fromJSON)
}
