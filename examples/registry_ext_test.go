package examples_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
)

// What a caller of the registry relies on: the reference first, the weak
// ones after it sorted by name, each findable by name, each with a
// description, a factory and targets, and a published scenario when it
// names one.
func TestRegistryAsACallerSeesIt(t *testing.T) {
	all := examples.All()
	require.NotEmpty(t, all)
	assert.Equal(t, examples.ReferenceName, all[0].Name)
	assert.Equal(t, examples.KindReference, all[0].Kind)
	assert.Equal(t, examples.KindReference, all[0].ShownKind())

	published := map[string]bool{}
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		published[p.Name] = true
	}
	for i, im := range all[1:] {
		assert.Equal(t, examples.KindWeak, im.Kind, im.Name)
		assert.True(t, strings.HasPrefix(im.Name, "weak-"), im.Name)
		assert.NotEmpty(t, im.Description, im.Name)
		assert.NotEmpty(t, im.Targets, im.Name)
		require.NotNil(t, im.New, im.Name)
		assert.NotSame(t, im.New(), im.New(), "%s: each instance is fresh", im.Name)
		if im.Scenario != "" {
			assert.True(t, published[im.Scenario], "%s names unpublished %s", im.Name, im.Scenario)
		}
		if i > 0 {
			assert.Less(t, all[i].Name, im.Name, "sorted by name")
		}
		got, ok := examples.Lookup(im.Name)
		require.True(t, ok, im.Name)
		assert.Equal(t, im.Name, got.Name)
	}
	_, ok := examples.Lookup("no-such-implementation")
	assert.False(t, ok)

	// Lists are copies: a caller that edits one changes no other.
	all[1].Targets[0] = "edited"
	assert.NotEqual(t, "edited", examples.All()[1].Targets[0])
}

// A weak implementation whose targets are all diagnostics is shown as
// costly; one with any invariant among its targets is weak.
func TestShownKindAsACallerSeesIt(t *testing.T) {
	costly := examples.Impl{Kind: examples.KindWeak, Targets: []string{"surprise.unattributed-call"}}
	assert.Equal(t, examples.KindCostly, costly.ShownKind())
	mixed := examples.Impl{Kind: examples.KindWeak, Targets: []string{"surprise.unattributed-call", "L0.reply"}}
	assert.Equal(t, examples.KindWeak, mixed.ShownKind())
	redraft, ok := examples.Lookup("weak-redraft-every-tick")
	require.True(t, ok)
	assert.Equal(t, examples.KindCostly, redraft.ShownKind())
}

// The reference passes every level up to each published scenario's top
// level, judged by both oracles in agreement; and every weak implementation
// that names a published scenario fails it with one of its targets. This
// is the registry's promise, played as any caller plays it.
func TestZooAgainstThePublishedSuite(t *testing.T) {
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	byName := map[string]*scenarios.Bundle{}
	for _, p := range pubs {
		byName[p.Name] = p.Bundle
		r := playOnce(t, p.Bundle, examples.ReferenceName)
		assert.True(t, r.Judgement.Guard.Agree, p.Name)
		for level := 0; level <= p.Bundle.Meta.TopLevel; level++ {
			assert.Equal(t, checker.Pass, r.Verdict().Levels[level], "%s L%d: %v", p.Name, level, r.Invariants())
		}
	}
	for _, im := range examples.All()[1:] {
		if im.Scenario == "" || im.ShownKind() == examples.KindCostly {
			continue
		}
		r := playOnce(t, byName[im.Scenario], im.Name)
		caught := false
		for _, id := range im.Targets {
			caught = caught || r.Violates(id)
		}
		assert.True(t, caught, "%s in %s: violated %v, targets %v", im.Name, im.Scenario, r.Invariants(), im.Targets)
	}
}

func playOnce(t *testing.T, b *scenarios.Bundle, name string) *play.Run {
	t.Helper()
	im, ok := examples.Lookup(name)
	require.True(t, ok, name)
	r, err := play.Play(b, play.Impl{Name: im.Name, New: im.New}, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	return r
}
