package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocate(t *testing.T) {
	var none *Source
	assert.Equal(t, Pos{File: "bundle"}, none.Locate("inbox[0].at"))

	data, err := baseBundle().MarshalIndent()
	require.NoError(t, err)
	_, src, err := Parse("b.json", data)
	require.NoError(t, err)
	text := string(data)
	tests := []struct {
		path   string
		needle string
		offset int // lines from the needle's line
	}{
		{"inbox[1].at", `"at":2`, 0},
		{"inbox[1]", `"id":"m2"`, -1}, // an element is where its brace opens
		{"inbox[1].missing", `"id":"m2"`, -1},
		{"meta.origin", `"meta":{`, 0},
		{"faults[3].rules[0].id", `"id":"all"`, 0},
		{"", "{", 0},
	}
	for _, tc := range tests {
		want := Pos{File: "b.json", Line: lineOf(t, text, tc.needle, 1) + tc.offset}
		assert.Equal(t, want, src.Locate(tc.path), tc.path)
	}
	assert.Equal(t, Pos{File: "b.json"}, src.Locate("nothing.here"))

	dir := t.TempDir()
	require.NoError(t, SaveDir(baseBundle(), dir))
	_, dsrc, err := LoadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, Pos{File: filepath.Join(dir, FileSignals), Line: 3}, dsrc.Locate("signals[2].target.agent_id"))
	assert.Equal(t, Pos{File: filepath.Join(dir, FileInbox)}, dsrc.Locate("inbox[7].at"), "a missing element names its file")
	assert.Equal(t, Pos{File: filepath.Join(dir, FileBundle), Line: 3}, dsrc.Locate("meta.origin.kind"), "falls back to meta")
}

func TestLoadMissingPath(t *testing.T) {
	_, _, err := Load(filepath.Join(t.TempDir(), "absent"))
	require.Error(t, err)
	var ps Problems
	assert.NotErrorAs(t, err, &ps, "an unreadable path is not a bundle problem")
}

func TestLoadDirMissingSchedulesAreEmpty(t *testing.T) {
	dir := t.TempDir()
	b := baseBundle()
	require.NoError(t, SaveDir(b, dir))
	for _, f := range []string{FileInbox, FileApprovals, FileSignals, FileFaults} {
		require.NoError(t, os.Remove(filepath.Join(dir, f)))
	}
	got, _, err := LoadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, []Delivery{}, got.Inbox)
	assert.Equal(t, []Approval{}, got.Approvals)
	assert.Equal(t, []Signal{}, got.Signals)
	assert.Equal(t, []Fault{}, got.Faults)
}

func TestParseProblemsAreSorted(t *testing.T) {
	data, err := baseBundle().MarshalIndent()
	require.NoError(t, err)
	text := strings.Replace(string(data), `"version": 1,`, `"version": 1, "zeta": 1, "alpha": 2,`, 1)
	text = strings.Replace(text, `"posture": "normal",`, `"posture": "normal", "beta": 3,`, 1)
	_, _, err = Parse("b.json", []byte(text))
	var ps Problems
	require.ErrorAs(t, err, &ps)
	assert.Equal(t, []string{"meta.alpha", "meta.zeta", "mode.beta"}, fields(ps))
}
