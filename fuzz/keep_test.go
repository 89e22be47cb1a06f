package fuzz_test

import (
	"context"
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
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/shrink"
)

func impl(t testing.TB, name string) play.Impl {
	t.Helper()
	im, ok := examples.Lookup(name)
	require.True(t, ok, name)
	return play.Impl{Name: im.Name, New: im.New}
}

func firstFailure(t *testing.T, name string, seed uint64) *fuzz.Counterexample {
	t.Helper()
	sum, err := fuzz.Campaign(context.Background(), fuzz.Config{Impl: impl(t, name), Seed: seed, Runs: 300, Workers: 1})
	require.NoError(t, err)
	require.NotNil(t, sum.Failure, "%s: no failure in campaign %d", name, seed)
	return sum.Failure
}

// A counterexample is written as found, shrunk in memory, replayed, written
// shrunk, and the shrunk bundle kept in the corpus straight from memory:
// the corpus file holds the very bytes of shrunk/bundle.json and is named
// by the hash that file has when read back.
func TestShrinkAndKeepInMemory(t *testing.T) {
	cx := firstFailure(t, "weak-send-before-record", 7)
	out, corpus := t.TempDir(), t.TempDir()
	raw, err := fuzz.WriteRaw(out, cx)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(out, fuzz.RawDir), raw)

	ref := impl(t, examples.ReferenceName)
	shrunk, s, err := fuzz.ShrinkCounterexample(cx, fuzz.ShrinkRequest{Impl: impl(t, "weak-send-before-record"), Control: &ref,
		HarnessVersion: "test"})
	require.NoError(t, err)
	assert.Equal(t, cx.Verdict().Violations[0].Invariant, s.Invariant, "the shrink keeps the first violation")
	assert.True(t, shrunk.Violates(s.Invariant), "the replayed shrunk run fails the same invariant")
	assert.Same(t, s.Bundle, shrunk.Bundle, "the replay plays the shrunk bundle itself")
	assert.Equal(t, cx.Index, shrunk.Index)
	assert.Equal(t, cx.Seeds, shrunk.Seeds, "replayed with the seeds the failure was found with")
	assert.Equal(t, seeds.OfScored(uint64(*cx.Seeds.Run), 1), s.Seeds, "the shrink reports the seeds of the original's failing play")
	o := s.Bundle.Meta.Origin
	require.NotNil(t, o)
	assert.Equal(t, fuzz.OriginShrunk, o.Kind)
	assert.Equal(t, "test", o.HarnessVersion)
	assert.Equal(t, cx.Bundle.Meta.Origin.CampaignSeed, o.CampaignSeed)
	assert.Equal(t, cx.Bundle.Meta.Origin.Run, o.Run)
	assert.Less(t, len(shrink.Events(s.Bundle)), len(shrink.Events(cx.Bundle)))

	dir := filepath.Join(out, fuzz.ShrunkDir)
	require.NoError(t, fuzz.WriteShrunk(dir, shrunk, s))
	assert.FileExists(t, filepath.Join(dir, fuzz.ShrinkJSON))
	path, added, err := fuzz.SaveToCorpus(corpus, s.Bundle)
	require.NoError(t, err)
	require.True(t, added)

	written, err := os.ReadFile(filepath.Join(dir, fuzz.BundleJSON))
	require.NoError(t, err)
	kept, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(written), string(kept))
	back, _, err := scenarios.Load(filepath.Join(dir, fuzz.BundleJSON))
	require.NoError(t, err)
	hash, err := back.Hash()
	require.NoError(t, err)
	assert.Equal(t, strings.TrimPrefix(hash, scenarios.HashPrefix)+".json", filepath.Base(path))

	// A second failure clears what the first left.
	again, err := fuzz.WriteRaw(out, cx)
	require.NoError(t, err)
	assert.DirExists(t, again)
	assert.NoDirExists(t, dir)
}

// A shrink that cannot be done says why, and the raw counterexample
// stands: here the control fails the bundle too.
func TestShrinkCounterexampleSaysWhyNot(t *testing.T) {
	cx := firstFailure(t, "weak-no-send", 3)
	control := impl(t, "weak-no-send")
	_, _, err := fuzz.ShrinkCounterexample(cx, fuzz.ShrinkRequest{Impl: impl(t, "weak-no-send"), Control: &control})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the control weak-no-send fails")
}

func TestShrinkRefusesWhatDoesNotFailAsAsked(t *testing.T) {
	b := published(t, "l0-respond")
	tests := []struct {
		name string
		req  fuzz.ShrinkRequest
		want string
	}{
		{"a passing bundle", fuzz.ShrinkRequest{Impl: impl(t, examples.ReferenceName)}, "nothing to shrink"},
		{"another invariant", fuzz.ShrinkRequest{Impl: impl(t, "weak-no-send"), Invariant: "L0.outbox-declared"},
			"does not violate L0.outbox-declared"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fuzz.Shrink(b, tc.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func published(t testing.TB, name string) *scenarios.Bundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		if p.Name == name {
			return p.Bundle.Clone()
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

func TestTimelineCommand(t *testing.T) {
	seed := uint64(18446744073709551615)
	assert.Equal(t, "amr replay 'out dir/bundle.json' --impl weak-no-send --seed 18446744073709551615",
		fuzz.TimelineCommand("out dir/bundle.json", "--impl weak-no-send", &seed))
	assert.Equal(t, "amr replay b.json --impl reference", fuzz.TimelineCommand("b.json", "--impl reference", nil))
}
