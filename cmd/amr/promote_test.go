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
)

// publishedTree copies the published scenario directories into a fresh
// directory, to promote into without touching the repository.
func publishedTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "scenarios")
	entries, err := os.ReadDir(filepath.Join("..", "..", "scenarios"))
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "l") {
			publishedCopy(t, e.Name(), root)
		}
	}
	return root
}

// TestShrinkReplayPromoteRun follows one counterexample end to end: shrink
// it, replay it, promote it into a copy of the published scenarios, and run
// it as a published scenario: the weak implementation fails it, the
// reference passes it.
func TestShrinkReplayPromoteRun(t *testing.T) {
	root := publishedTree(t)
	shrunk := filepath.Join(t.TempDir(), "shrunk")
	stdout, stderr, code := execAMR(t, "shrink", filepath.Join(root, "l2-govern"), "--impl", "weak-trust-any-approval",
		"--invariant", "L2.forged-approval-acted", "--out", shrunk)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "events    21 -> ")

	stdout, _, code = execAMR(t, "replay", shrunk)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "forged: ")
	assert.Contains(t, stdout, "violation  L2.forged-approval-acted")

	stdout, stderr, code = execAMR(t, "promote", shrunk, "--name", "l2-forged-approval-sent",
		"--description", "A forged approval that only matches by hash.", "--scenarios", root)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "promoted l2-forged-approval-sent into "+filepath.Join(root, "l2-forged-approval-sent"))
	assert.Contains(t, stdout, "check         reference passes L0-L2 (5 runs)")
	assert.Contains(t, stdout, "check         weak-trust-any-approval FAILS L2 (")
	assert.Contains(t, stdout, "catches       ")
	assert.Contains(t, stdout, "weak-trust-any-approval")
	// A copy of the scenarios is not the published set: promote says so.
	assert.Contains(t, stdout, "is not the scenarios/ folder of the amr repository")

	// The promoted directory loads the way the build embeds it.
	b, src, err := scenarios.LoadFS(os.DirFS(root), "l2-forged-approval-sent")
	require.NoError(t, err)
	require.Empty(t, scenarios.Validate(b, src).Errors())
	assert.Equal(t, "l2-forged-approval-sent", b.Meta.Name)
	assert.Equal(t, 1, b.Meta.Version)
	assert.Equal(t, "A forged approval that only matches by hash.", b.Meta.Description)
	o := b.Meta.Origin
	require.NotNil(t, o)
	assert.Equal(t, "shrunk", o.Kind)
	assert.Equal(t, "weak-trust-any-approval", o.Impl)
	assert.Equal(t, "L2.forged-approval-acted", o.Invariant)
	assert.NotEmpty(t, o.OriginalHash)
	assert.NotEmpty(t, o.ShrunkHash)
	assert.Equal(t, version, o.HarnessVersion)

	dir := filepath.Join(root, "l2-forged-approval-sent")
	stdout, _, code = execAMR(t, "run", "--impl", "weak-trust-any-approval", dir)
	assert.Equal(t, exitFail, code, stdout)
	assert.Contains(t, stdout, "L2.forged-approval-acted")
	_, _, code = execAMR(t, "run", dir)
	assert.Equal(t, exitOK, code)
}

func TestPromoteRefuses(t *testing.T) {
	root := publishedTree(t)
	shrunk := filepath.Join(t.TempDir(), "shrunk")
	_, stderr, code := execAMR(t, "shrink", "../../scenarios/l0-respond", "--impl", "weak-no-send", "--out", shrunk)
	require.Equal(t, exitOK, code, stderr)
	_, stderr, code = execAMR(t, "promote", shrunk, "--name", "l0-short-respond", "--scenarios", root)
	require.Equal(t, exitOK, code, stderr)

	invalid := filepath.Join(t.TempDir(), "invalid")
	require.NoError(t, os.CopyFS(invalid, os.DirFS(shrunk)))
	require.NoError(t, os.WriteFile(filepath.Join(invalid, scenarios.FileApprovals),
		[]byte(`{"approval_id":"ap1","at":1,"match":{"message_id":"m9"},"decision":"approve"}`+"\n"), 0o644))

	tests := []struct {
		name   string
		bundle string
		args   []string
		want   string
	}{
		{"no name", shrunk, nil, "needs --name"},
		{"name not kebab", shrunk, []string{"--name", "l0_Short"}, "is not l<level>-<kebab-name>"},
		{"name without a level", shrunk, []string{"--name", "short-respond"}, "is not l<level>-<kebab-name>"},
		{"level above the top level", shrunk, []string{"--name", "l2-short-respond"}, "says level 2, above the bundle's top_level 0"},
		{"name taken", shrunk, []string{"--name", "l0-short-respond"}, "already taken"},
		{"name of a published scenario", shrunk, []string{"--name", "l0-respond"}, "already taken"},
		{"content already published", shrunk, []string{"--name", "l0-again"}, "already published as l0-short-respond"},
		{"a published scenario renamed", filepath.Join(root, "l1-anchor-collision"), []string{"--name", "l1-collide"}, "already published as l1-anchor-collision"},
		{"invalid bundle", invalid, []string{"--name", "l0-invalid"}, "bad bundle input"},
		{"no scenarios directory", shrunk, []string{"--name", "l0-elsewhere", "--scenarios", filepath.Join(root, "missing")}, "published scenarios"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"promote", tc.bundle, "--scenarios", root}, tc.args...)
			_, stderr, code := execAMR(t, args...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// The whole path: amr fuzz finds and shrinks a counterexample, amr promote
// publishes it under the level of its defect (lowering the fuzz bundle's
// top_level, never below the invariant's level), and amr run then fails the
// weak implementation on it and passes the reference.
func TestPromoteAFuzzCounterexample(t *testing.T) {
	root := publishedTree(t)
	out := filepath.Join(t.TempDir(), "fuzz")
	_, stderr, code := execAMR(t, "fuzz", "--impl", "weak-fork-on-duplicate", "--seed", "1", "--runs", "500",
		"--no-corpus", "--out", out)
	require.Equal(t, exitFail, code, stderr)
	shrunk := filepath.Join(out, fuzz.ShrunkDir, "bundle.json")

	_, stderr, code = execAMR(t, "promote", shrunk, "--name", "l0-fork", "--scenarios", root)
	assert.Equal(t, exitBad, code)
	assert.Contains(t, stderr, "L1.duplicate-work, a level 1 invariant")

	_, stderr, code = execAMR(t, "promote", shrunk, "--name", "l1-duplicate-delivery-fork", "--scenarios", root)
	require.Equal(t, exitOK, code, stderr)
	dir := filepath.Join(root, "l1-duplicate-delivery-fork")
	b, _, err := scenarios.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, 1, b.Meta.TopLevel)
	assert.Equal(t, "1", b.Meta.Origin.CampaignSeed)
	assert.Equal(t, "L1.duplicate-work", b.Meta.Origin.Invariant)

	stdout, _, code := execAMR(t, "run", "--impl", "weak-fork-on-duplicate", dir)
	assert.Equal(t, exitFail, code, stdout)
	assert.Contains(t, stdout, "L1.duplicate-work")
	_, _, code = execAMR(t, "run", dir)
	assert.Equal(t, exitOK, code)
}

// A published scenario must be passable: promote refuses one the control
// fails, unless forced. Here the control is made to fail on purpose.
func TestPromoteRefusesWhatTheReferenceFails(t *testing.T) {
	root := publishedTree(t)
	shrunk := filepath.Join(t.TempDir(), "shrunk")
	_, stderr, code := execAMR(t, "shrink", "../../scenarios/l0-respond", "--impl", "weak-no-send", "--out", shrunk)
	require.Equal(t, exitOK, code, stderr)

	old := promotionControl
	promotionControl = "weak-undeclared-send"
	t.Cleanup(func() { promotionControl = old })
	stdout, stderr, code := execAMR(t, "promote", shrunk, "--name", "l0-short-respond", "--scenarios", root)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "not promoted: weak-undeclared-send FAILS L0")
	assert.Contains(t, stderr, "--force")
	assert.NoDirExists(t, filepath.Join(root, "l0-short-respond"))

	_, stderr, code = execAMR(t, "promote", shrunk, "--name", "l0-short-respond", "--scenarios", root, "--force")
	assert.Equal(t, exitOK, code, stderr)
	assert.DirExists(t, filepath.Join(root, "l0-short-respond"))
}
