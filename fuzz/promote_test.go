package fuzz_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
)

// publishedTree copies the published scenario directories into a fresh
// directory, to promote into without touching the repository.
func publishedTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "scenarios")
	entries, err := os.ReadDir(filepath.Join("..", "scenarios"))
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "l") {
			require.NoError(t, os.CopyFS(filepath.Join(root, e.Name()), os.DirFS(filepath.Join("..", "scenarios", e.Name()))))
		}
	}
	return root
}

func shrunkRespond(t *testing.T) *scenarios.Bundle {
	t.Helper()
	s, err := fuzz.Shrink(published(t, "l0-respond"), fuzz.ShrinkRequest{Impl: impl(t, "weak-no-send"), HarnessVersion: "test"})
	require.NoError(t, err)
	return s.Bundle
}

func TestPreparePromotionWritesNameVersionAndProvenance(t *testing.T) {
	root := publishedTree(t)
	b := shrunkRespond(t)
	p, err := fuzz.PreparePromotion(b, "l0-short-respond", "A shorter respond.", root, "9.9.9")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "l0-short-respond"), p.Path)
	m := p.Bundle.Meta
	assert.Equal(t, "l0-short-respond", m.Name)
	assert.Equal(t, 1, m.Version)
	assert.Equal(t, 0, m.TopLevel)
	assert.Equal(t, "A shorter respond.", m.Description)
	require.NotNil(t, m.Origin)
	assert.Equal(t, fuzz.OriginShrunk, m.Origin.Kind, "the provenance the bundle carries is kept")
	assert.Equal(t, "test", m.Origin.HarnessVersion, "a recorded harness version is not overwritten")
	hash, err := fuzz.ContentHash(b)
	require.NoError(t, err)
	assert.Equal(t, hash, p.Hash, "name, version, description and provenance do not count")
	assert.NotSame(t, b, p.Bundle, "the bundle given is not changed")

	plain := published(t, "l0-respond")
	plain.Meta.Origin = nil
	plain.Meta.Horizon++
	p, err = fuzz.PreparePromotion(plain, "l0-one-message", "", root, "9.9.9")
	require.NoError(t, err)
	assert.Equal(t, &scenarios.Origin{Kind: fuzz.OriginPromoted, HarnessVersion: "9.9.9"}, p.Bundle.Meta.Origin)
	assert.Equal(t, plain.Meta.Description, p.Bundle.Meta.Description)
}

func TestPreparePromotionRefuses(t *testing.T) {
	root := publishedTree(t)
	b := shrunkRespond(t)
	fork := published(t, "l1-anchor-collision")
	fork.Meta.Origin = &scenarios.Origin{Kind: fuzz.OriginShrunk, Invariant: "L1.duplicate-work"}
	invalid := b.Clone()
	invalid.Approvals = append(invalid.Approvals, scenarios.Approval{ID: "ap1", At: 1,
		Match: scenarios.Match{MessageID: "m9"}, Decision: scenarios.DecisionApprove})
	tests := []struct {
		name   string
		bundle *scenarios.Bundle
		as     string
		root   string
		want   string
	}{
		{"name not kebab", b, "l0_Short", root, "is not l<level>-<kebab-name>"},
		{"name without a level", b, "short-respond", root, "is not l<level>-<kebab-name>"},
		{"level above the top level", b, "l2-short-respond", root, "says level 2, above the bundle's top_level 0"},
		{"below the invariant's level", fork, "l0-fork", root, "L1.duplicate-work, a level 1 invariant"},
		{"name of a published scenario", b, "l0-respond", root, "already taken"},
		{"a published scenario renamed", published(t, "l1-anchor-collision"), "l1-collide", root, "already published as l1-anchor-collision"},
		{"invalid bundle", invalid, "l0-invalid", root, "the promoted bundle is invalid"},
		{"no scenarios directory", b, "l0-elsewhere", filepath.Join(root, "missing"), "published scenarios"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fuzz.PreparePromotion(tc.bundle, tc.as, "", tc.root, "test")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The control is checked first, then the implementation the provenance
// names, each five runs with the seeds 'amr run' will use.
func TestCheckPromotion(t *testing.T) {
	root := publishedTree(t)
	p, err := fuzz.PreparePromotion(shrunkRespond(t), "l0-short-respond", "", root, "test")
	require.NoError(t, err)
	lookup := func(name string) (play.Impl, bool) {
		im, ok := examples.Lookup(name)
		return play.Impl{Name: im.Name, New: im.New}, ok
	}
	checks, err := fuzz.CheckPromotion(p.Bundle, impl(t, examples.ReferenceName), lookup)
	require.NoError(t, err)
	require.Len(t, checks, 2)
	assert.Equal(t, "reference passes L0-L0 (5 runs)", checks[0].String())
	assert.Equal(t, "weak-no-send FAILS L0 (L0.reply) (5 runs)", checks[1].String())
	assert.Len(t, checks[1].Report.Runs, fuzz.PromotionRuns)

	unknown := p.Bundle.Clone()
	unknown.Meta.Origin.Impl = "someone-elses"
	checks, err = fuzz.CheckPromotion(unknown, impl(t, examples.ReferenceName), lookup)
	require.NoError(t, err)
	assert.Len(t, checks, 1, "an implementation lookup does not know is not checked")
}
