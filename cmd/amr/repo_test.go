package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

// fakeRepo lays out a directory that is the amr repository as far as amr
// can tell: a go.mod of the module, the published scenarios, and a
// baseline written by 'amr regress --update' for the regress set the test
// chose. It returns the root.
func fakeRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+suite.ModulePath+"\n\ngo 1.26\n"), 0o644))
	scen := filepath.Join(root, "scenarios")
	require.NoError(t, os.MkdirAll(scen, 0o755))
	for _, n := range regressScenarioNames {
		publishedCopy(t, n, scen)
	}
	_, stderr, code := execAMR(t, "regress", "--runs", "1", "--baseline", filepath.Join(root, suite.DefaultBaseline), "--update")
	require.Equal(t, exitOK, code, stderr)
	return root
}

func TestRepoRoot(t *testing.T) {
	root := fakeRepo(t)
	sub := filepath.Join(root, "docs", "deep")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	got, ok := suite.RepoRoot(sub)
	require.True(t, ok)
	assert.Equal(t, root, got)

	// Another module's go.mod is not the repository, nor is no go.mod.
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644))
	_, ok = suite.RepoRoot(other)
	assert.False(t, ok)

	_, err := fuzz.PublishedSet(filepath.Join(root, "scenarios"))
	assert.NoError(t, err)
	_, err = fuzz.PublishedSet(filepath.Join(root, "docs"))
	assert.Error(t, err, "only the repository's own scenarios/ folder is the published set")
}

// From any folder of the repository, regress reads and --update writes the
// repository's baseline; outside it, it refuses and writes nothing.
func TestRegressFindsTheRepositoryBaseline(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	root := fakeRepo(t)
	sub := filepath.Join(root, "docs")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	t.Chdir(sub)

	stdout, stderr, code := execAMR(t, "regress", "--runs", "1")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "against "+filepath.Join("..", suite.DefaultBaseline))
	assert.Contains(t, stdout, "no change")

	stdout, stderr, code = execAMR(t, "regress", "--runs", "1", "--update")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "baseline written: "+filepath.Join("..", suite.DefaultBaseline))
	assert.NoDirExists(t, filepath.Join(sub, "testdata"))

	outside := t.TempDir()
	t.Chdir(outside)
	for _, args := range [][]string{{"regress", "--runs", "1", "--update"}, {"regress", "--runs", "1"}} {
		_, stderr, code = execAMR(t, args...)
		assert.Equal(t, exitBad, code)
		assert.Contains(t, stderr, "is not inside the amr repository")
		assert.Contains(t, stderr, "--baseline FILE")
		assert.NoDirExists(t, filepath.Join(outside, "testdata"))
	}
}

// A promotion into the repository adds the new scenario's rows to the
// baseline, exactly the rows regress measures, and touches no other row.
func TestPromoteIntoTheRepositoryKeepsItGreen(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	root := fakeRepo(t)
	basePath := filepath.Join(root, suite.DefaultBaseline)
	before, err := suite.ReadBaseline(basePath)
	require.NoError(t, err)
	// The fake baseline was recorded with one run; promote measures with
	// the baseline's own count.
	require.Equal(t, 1, before.Runs)

	shrunk := filepath.Join(t.TempDir(), "shrunk")
	_, stderr, code := execAMR(t, "shrink", "../../scenarios/l0-respond", "--impl", "weak-no-send", "--out", shrunk)
	require.Equal(t, exitOK, code, stderr)
	t.Chdir(root)
	stdout, stderr, code := execAMR(t, "promote", shrunk, "--name", "l0-short-respond")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "baseline      3 rows for l0-short-respond added to "+suite.DefaultBaseline)
	assert.Contains(t, stdout, "catches       weak-no-send")
	assert.Contains(t, stdout, "nothing left to do")

	after, err := suite.ReadBaseline(basePath)
	require.NoError(t, err)
	var added, kept []suite.BaselineResult
	for _, r := range after.Results {
		if r.Scenario == "l0-short-respond" {
			added = append(added, r)
		} else {
			kept = append(kept, r)
		}
	}
	assert.Equal(t, before.Results, kept, "no other row changes")
	b, _, err := scenarios.Load(filepath.Join(root, "scenarios", "l0-short-respond"))
	require.NoError(t, err)
	now, err := suite.Measure([]*scenarios.Bundle{b}, regressImpls(), 1)
	require.NoError(t, err)
	assert.Equal(t, now, added, "the rows are what regress measures on the promoted scenario")
}

// A promotion that leaves the repository red says what is left: here a
// scenario that catches no weak implementation, promoted outside the
// repository.
func TestPromoteSaysWhatIsLeftToDo(t *testing.T) {
	withRegressSet(t, regressScenarioNames, honest())
	b := publishedBundle(t, "l0-respond").Clone()
	b.Meta.Name = "l0-quiet"
	b.Inbox, b.Approvals, b.Signals, b.Faults = nil, nil, nil, nil
	dir := filepath.Join(t.TempDir(), "quiet")
	require.NoError(t, scenarios.SaveDir(b, dir))
	root := publishedTree(t)

	stdout, stderr, code := execAMR(t, "promote", dir, "--name", "l0-quiet", "--scenarios", root)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "left to do before the repository is green:")
	assert.Contains(t, stdout, "is not the scenarios/ folder of the amr repository")
	assert.Contains(t, stdout, "no built-in weak implementation fails l0-quiet")
	assert.Contains(t, stdout, "examples/registry.go")
	assert.NotContains(t, stdout, "nothing left to do")
	assert.NotContains(t, stdout, "baseline      ")
	assert.False(t, strings.Contains(stdout, "catches       "))
}
