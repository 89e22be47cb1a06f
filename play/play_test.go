package play_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

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

func builtin(t testing.TB, name string) play.Impl {
	t.Helper()
	im, ok := examples.Lookup(name)
	require.True(t, ok, name)
	return play.Impl{Name: im.Name, New: im.New}
}

// Play plays with the engine seed it is given, and seeds without one as
// 'amr run --runs 1 [--seed N]' plays them: scored run 1 of the run seed,
// the bundle's own when none is given. The run log's start record names
// the engine seed played.
func TestSeedsPickTheEngineSeed(t *testing.T) {
	b := published(t, "l0-respond")
	named := seeds.Named(b.Meta.Name)
	// A run seed known to come from a campaign, played with no engine seed.
	fromCampaign := seeds.OfRun(9)
	fromCampaign.Campaign = seeds.OfCampaign(7).Campaign
	played := seeds.OfScored(9, 1)
	played.Campaign = fromCampaign.Campaign
	tests := []struct {
		name  string
		given seeds.Seeds
		want  seeds.Seeds
	}{
		{"the bundle's first run", seeds.Seeds{}, seeds.OfScored(named, 1)},
		{"a run seed", seeds.OfRun(7), seeds.OfScored(7, 1)},
		{"a later scored run", seeds.OfScored(7, 3), seeds.OfScored(7, 3)},
		{"a campaign's run", seeds.OfGenerated(7, 2), seeds.OfGenerated(7, 2)},
		{"a campaign's run seed, no engine seed", fromCampaign, played},
		{"the engine seed outright", seeds.OfEngine(12345), seeds.OfEngine(12345)},
	}
	ref := builtin(t, examples.ReferenceName)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := play.Play(b, ref, tc.given, play.Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.Seeds)
			require.NotEmpty(t, r.Result.Log)
			start := r.Result.Log[0]
			require.Equal(t, sandbox.LogStart, start.Kind)
			require.NotNil(t, start.Start().Engine)
			assert.Equal(t, *tc.want.Engine, *start.Start().Engine, "the run log records the engine seed played")
			assert.Equal(t, r.BundleHash, start.Start().BundleHash)
		})
	}
	other := b.Clone()
	other.Meta.Name = "l0-other"
	r, err := play.Play(other, ref, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	assert.NotEqual(t, seeds.OfScored(named, 1), r.Seeds, "without a run seed the name decides")
	r, err = play.Play(other, ref, seeds.OfRun(7), play.Options{})
	require.NoError(t, err)
	assert.Equal(t, seeds.OfScored(7, 1), r.Seeds, "with a run seed the name does not count")
}

// A weak implementation fails what its scenario is written to catch, the
// reference passes it, and the oracles agree on both.
func TestPlayJudgesWithBothOracles(t *testing.T) {
	b := published(t, "l0-respond")
	ref, err := play.Play(b, builtin(t, examples.ReferenceName), seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	assert.False(t, ref.Failed())
	assert.False(t, ref.Invalid())
	assert.Empty(t, ref.Invariants())
	assert.Equal(t, ref.Judgement.Level, ref.Verdict())
	assert.True(t, ref.Judgement.Guard.Agree)

	weak, err := play.Play(b, builtin(t, "weak-no-send"), seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	assert.True(t, weak.Failed())
	assert.False(t, weak.Invalid())
	assert.True(t, weak.Violates("L0.reply"), "%v", weak.Invariants())
	assert.False(t, weak.Violates("L9.no-such-invariant"))
	assert.Contains(t, weak.Invariants(), "L0.reply")
	assert.Equal(t, checker.Fail, weak.Verdict().Levels[0])
	assert.NotEmpty(t, weak.Judgement.Compiled.Bytes(), "the compiled history is kept for history.jsonl")
}

func TestInvariantsListsEachIdOnceInOrder(t *testing.T) {
	v := checker.Verdict{Violations: []checker.Violation{{Invariant: "L1.b"}, {Invariant: "L0.a"}, {Invariant: "L1.b"}}}
	assert.Equal(t, []string{"L1.b", "L0.a"}, play.Invariants(v))
	assert.Nil(t, play.Invariants(checker.Verdict{}))
	assert.True(t, play.Violates(v, "L0.a"))
	assert.False(t, play.Violates(v, "L2.c"))
}

// Two plays of the same run leave the same bytes: sandbox, run log and
// verdict.
func TestPlayIsDeterministic(t *testing.T) {
	b := published(t, "l3-fleet-concurrent")
	impl := builtin(t, "weak-send-per-approval")
	render := func() []byte {
		r, err := play.Play(b, impl, seeds.OfScored(seeds.Named(b.Meta.Name), 2), play.Options{})
		require.NoError(t, err)
		data, err := json.Marshal(struct {
			Files   map[string][]byte
			Log     []byte
			Verdict checker.Verdict
		}{r.Result.Files.Files(), r.Result.LogBytes(), r.Verdict()})
		require.NoError(t, err)
		return data
	}
	assert.Equal(t, render(), render())
}

// A bundle the engine refuses is an error, not a verdict and not a panic.
func TestPlayRefusesWhatTheEngineCannotPlay(t *testing.T) {
	b := published(t, "l0-respond")
	b.Meta.Horizon = -1
	r, err := play.Play(b, builtin(t, examples.ReferenceName), seeds.Seeds{}, play.Options{})
	require.Error(t, err)
	assert.Nil(t, r)
}

// A process run's directory is removed once everything is in memory,
// unless the caller asks to keep it.
func TestPlayRemovesAProcessWorkdirUnlessKept(t *testing.T) {
	idle, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) on this machine")
	}
	b := published(t, "l0-respond")
	impl := play.Impl{Name: "idle", Process: &sim.ProcessSpec{Command: []string{idle}, Regime: sim.RegimeOnce,
		TempDir: t.TempDir()}}
	r, err := play.Play(b, impl, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, r.Result.Workdir)
	assert.NoDirExists(t, r.Result.Workdir)
	assert.True(t, r.Failed(), "a process that does nothing never replies")

	kept, err := play.Play(b, impl, seeds.Seeds{}, play.Options{KeepWorkdir: true})
	require.NoError(t, err)
	assert.DirExists(t, kept.Result.Workdir)
	require.NoError(t, kept.Result.Cleanup())
	_, err = os.Stat(kept.Result.Workdir)
	assert.True(t, os.IsNotExist(err))
}

// A hash the caller already has is used as given, and without one Play
// computes the bundle's own: both plays of one bundle are the same run.
func TestPlayUsesAGivenBundleHash(t *testing.T) {
	b := published(t, "l0-respond")
	want, err := b.Hash()
	require.NoError(t, err)
	ref := builtin(t, examples.ReferenceName)
	computed, err := play.Play(b, ref, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	given, err := play.Play(b, ref, seeds.Seeds{}, play.Options{BundleHash: want})
	require.NoError(t, err)
	assert.Equal(t, want, computed.BundleHash)
	assert.Equal(t, want, given.BundleHash)
	assert.Equal(t, computed.Result.LogBytes(), given.Result.LogBytes())
	assert.Equal(t, computed.Result.Files.Files(), given.Result.Files.Files())

	// The hash given is the one the run log carries: Play does not hash again.
	other, err := play.Play(b, ref, seeds.Seeds{}, play.Options{BundleHash: "sha256:given"})
	require.NoError(t, err)
	assert.Equal(t, "sha256:given", other.BundleHash)
	assert.Equal(t, "sha256:given", other.Result.Log[0].Start().BundleHash)
}
