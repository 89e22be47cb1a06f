package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

func builtin(t testing.TB, name string) play.Impl {
	t.Helper()
	im, ok := examples.Lookup(name)
	require.True(t, ok, name)
	return play.Impl{Name: im.Name, New: im.New}
}

func runCampaign(t testing.TB, cfg Config) *Summary {
	t.Helper()
	sum, err := Campaign(context.Background(), cfg)
	require.NoError(t, err)
	return sum
}

// outcomeView keeps what two campaigns over the same runs must agree on,
// leaving out the wall clock.
type outcomeView struct {
	Runs      int
	Coverage  []CounterCount
	Outcome   string
	FailedRun int
	Violation []string
}

func view(s *Summary) outcomeView {
	c := outcomeView{Runs: s.Runs, Coverage: s.Coverage.Counts(), Outcome: s.Outcome(), FailedRun: -1}
	if s.Failure != nil {
		c.FailedRun = s.Failure.Index
		c.Violation = s.Failure.Invariants()
	}
	return c
}

func TestCampaignOutcomeDoesNotDependOnWorkers(t *testing.T) {
	for _, tc := range []struct {
		impl string
		runs int
	}{
		{"reference", 120},
		{"weak-send-before-record", 400},
		{"weak-rules-once", 200},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			impl := builtin(t, tc.impl)
			one := runCampaign(t, Config{Impl: impl, Seed: 7, Runs: tc.runs, Workers: 1})
			four := runCampaign(t, Config{Impl: impl, Seed: 7, Runs: tc.runs, Workers: 4})
			assert.Equal(t, view(one), view(four))
			if tc.impl != "reference" {
				require.NotNil(t, one.Failure, "the weak implementation was not found")
				require.NotNil(t, four.Failure)
				assert.Equal(t, one.Failure.Verdict(), four.Failure.Verdict())
				assert.Equal(t, one.Failure.Result.LogBytes(), four.Failure.Result.LogBytes())
			}
		})
	}
}

func TestShardsUnionToTheWholeCampaign(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		impl := builtin(t, "reference")
		whole := runCampaign(t, Config{Impl: impl, Seed: 3, Runs: 90, Workers: 2})
		var union Coverage
		for i := range 3 {
			part := runCampaign(t, Config{Impl: impl, Seed: 3, Runs: 90, Workers: 2, Shard: Shard{i, 3}})
			assert.Equal(t, 30, part.Runs)
			union.Merge(part.Coverage)
		}
		assert.Equal(t, whole.Coverage.Counts(), union.Counts())
		assert.Equal(t, whole.Runs, union.Runs)
	})
	t.Run("first failure", func(t *testing.T) {
		impl := builtin(t, "weak-send-before-record")
		whole := runCampaign(t, Config{Impl: impl, Seed: 11, Runs: 600, Workers: 2})
		require.NotNil(t, whole.Failure)
		var firsts []int
		for i := range 4 {
			part := runCampaign(t, Config{Impl: impl, Seed: 11, Runs: 600, Workers: 2, Shard: Shard{i, 4}})
			if part.Failure != nil {
				assert.Equal(t, i, part.Failure.Index%4, "a shard ran another shard's run")
				firsts = append(firsts, part.Failure.Index)
			}
		}
		require.NotEmpty(t, firsts)
		sort.Ints(firsts)
		assert.Equal(t, whole.Failure.Index, firsts[0])
	})
}

func TestCampaignStopsAtTheLowestFailingRun(t *testing.T) {
	impl := builtin(t, "weak-send-before-record")
	sum := runCampaign(t, Config{Impl: impl, Seed: 11, Runs: 600, Workers: 3})
	require.NotNil(t, sum.Failure)
	assert.Equal(t, sum.Failure.Index+1, sum.Runs, "every run up to the failure is judged, none after")
	for i := range sum.Failure.Index {
		r, err := PlayGenerated(11, i, faults.DefaultPreset, impl, 0)
		require.NoError(t, err)
		require.False(t, r.Failed(), "run %d fails too, below the reported one", i)
	}
}

func TestCheckDeterminismIsCleanForTheZoo(t *testing.T) {
	for _, name := range []string{"reference", "weak-memory-pending", "weak-send-before-record"} {
		sum := runCampaign(t, Config{Impl: builtin(t, name), Seed: 5, Runs: 40, Workers: 2, CheckDeterminism: true})
		assert.Nil(t, sum.Divergence, name)
	}
}

// leaky is the reference plus one free-form audit line carrying a counter
// shared by every instance: the same run played twice writes different
// bytes.
type leaky struct {
	inner sandbox.Implementation
	wrote bool
}

var leakyCounter int

func (l *leaky) Step(env *sandbox.Env) error {
	if !l.wrote {
		l.wrote = true
		leakyCounter++
		if err := sandbox.AppendJSON(env.Files, sandbox.Audit, map[string]any{"event": "note", "at": 0, "n": leakyCounter}); err != nil {
			return err
		}
	}
	return l.inner.Step(env)
}

func TestCheckDeterminismFindsADivergence(t *testing.T) {
	impl := play.Impl{Name: "leaky", New: func() sandbox.Implementation { return &leaky{inner: examples.Reference()()} }}
	sum := runCampaign(t, Config{Impl: impl, Seed: 5, Runs: 10, Workers: 1, CheckDeterminism: true})
	require.NotNil(t, sum.Divergence)
	d := sum.Divergence
	assert.Equal(t, OutcomeDivergence, sum.Outcome())
	assert.Equal(t, 0, d.Index)
	assert.NotEqual(t, d.HashA, d.HashB)
	assert.Equal(t, "sandbox/audit.jsonl line 1", d.Where)
	assert.Contains(t, d.A, `"note"`)
	assert.NotEqual(t, d.A, d.B)
}

func TestCorpusKeepsReplaysAndReportsFixed(t *testing.T) {
	dir := t.TempDir()
	weak := builtin(t, "weak-no-send")
	sum := runCampaign(t, Config{Impl: weak, Seed: 2, Runs: 50, Workers: 1})
	require.NotNil(t, sum.Failure)
	path, added, err := SaveToCorpus(dir, sum.Failure.Bundle)
	require.NoError(t, err)
	require.True(t, added)
	_, added, err = SaveToCorpus(dir, sum.Failure.Bundle)
	require.NoError(t, err)
	assert.False(t, added, "saved twice")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644))

	entries, problems := LoadCorpus(dir)
	require.Len(t, entries, 1)
	require.Len(t, problems, 1, "the broken file is reported")
	assert.Equal(t, path, entries[0].Path)

	again := runCampaign(t, Config{Impl: weak, Seed: 99, Runs: 50, Workers: 1, Corpus: entries})
	require.NotNil(t, again.Failure)
	assert.Equal(t, path, again.Failure.Source)
	assert.Zero(t, again.Runs, "nothing is generated while a kept bundle still fails")
	assert.Equal(t, sum.Failure.Verdict(), again.Failure.Verdict(), "the replay meets the failure's engine seed")
	require.Len(t, again.Replays, 1)
	assert.True(t, again.Replays[0].Fails)

	fixed := runCampaign(t, Config{Impl: builtin(t, "reference"), Seed: 99, Runs: 5, Workers: 1, Corpus: entries})
	assert.Nil(t, fixed.Failure)
	require.Len(t, fixed.Replays, 1)
	assert.False(t, fixed.Replays[0].Fails)
	assert.Equal(t, 5, fixed.Runs)

	missing, problems := LoadCorpus(filepath.Join(dir, "none"))
	assert.Empty(t, missing)
	assert.Empty(t, problems)
}

func TestACounterexampleReplaysExactly(t *testing.T) {
	weak := builtin(t, "weak-send-per-approval")
	sum := runCampaign(t, Config{Impl: weak, Seed: 4, Runs: 200, Workers: 2})
	require.NotNil(t, sum.Failure)
	cx := sum.Failure
	dir := t.TempDir()
	require.NoError(t, WriteCounterexample(dir, cx))
	for _, name := range []string{BundleJSON, ProfileJSON, sandbox.RunLogFile, "verdict.json",
		filepath.Join(BundleDir, "inbox.jsonl"), filepath.Join("sandbox", sandbox.Outbox)} {
		assert.FileExists(t, filepath.Join(dir, name))
	}
	for _, form := range []string{BundleJSON, BundleDir} {
		b, src, err := scenarios.Load(filepath.Join(dir, form))
		require.NoError(t, err)
		require.Empty(t, scenarios.Validate(b, src).Errors())
		require.Equal(t, cx.Bundle, b, form)
		// What `amr run --runs 1 --seed <run seed>` plays.
		run := uint64(*cx.Seeds.Run)
		seed := seeds.Engine(run, 1)
		require.Equal(t, seeds.OfGenerated(4, cx.Index), cx.Seeds)
		require.Equal(t, seeds.Seed(seed), *cx.Seeds.Engine)
		again, err := Play(b, weak, &run, 0)
		require.NoError(t, err)
		assert.Equal(t, cx.Verdict(), again.Verdict())
		assert.Equal(t, cx.Result.LogBytes(), again.Result.LogBytes())
		res, err := sim.Run(b, weak.New, sim.Options{Seed: seed, Impl: weak.Name, BundleHash: cx.BundleHash})
		require.NoError(t, err)
		assert.Equal(t, cx.Result.Files.Files(), res.Files.Files())
	}
	cmd := ReplayCommand([]string{"--impl", weak.Name}, cx, filepath.Join("out dir", BundleJSON), 0)
	assert.Equal(t, "amr run --impl weak-send-per-approval --runs 1 --seed "+cx.Seeds.Run.String()+" 'out dir/bundle.json'", cmd)
	cmd = ReplayCommand([]string{"--impl-cmd", "python3 impl.py"}, cx, "b.json", 9)
	assert.Equal(t, "amr run --impl-cmd 'python3 impl.py' --runs 1 --seed "+cx.Seeds.Run.String()+" --max-steps 9 b.json", cmd)
	rec := cx.Record()
	assert.Equal(t, cx.Seeds, rec.Seeds)
	require.NotNil(t, rec.Profile)
	assert.Equal(t, cx.Profile, *rec.Profile)
	assert.Equal(t, "profile", rec.Kind)
}

func TestCampaignRejectsBadConfigs(t *testing.T) {
	ref := builtin(t, "reference")
	for _, cfg := range []Config{
		{Impl: ref, Seed: 1},
		{Impl: play.Impl{Name: "none"}, Runs: 1},
		{Impl: ref, Runs: 1, Preset: "nope"},
		{Impl: ref, Runs: 1, Shard: Shard{3, 3}},
		{Impl: ref, Runs: 1, Shard: Shard{-1, 2}},
	} {
		_, err := Campaign(context.Background(), cfg)
		assert.Error(t, err, "%+v", cfg)
	}
}

func TestCampaignHonoursATimeBudgetAndCancellation(t *testing.T) {
	ref := builtin(t, "reference")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Campaign(ctx, Config{Impl: ref, Seed: 1, Runs: 1000})
	require.NoError(t, err)
	assert.Zero(t, sum.Runs, "a cancelled campaign starts nothing")

	var seen []Progress
	sum, err = Campaign(context.Background(), Config{Impl: ref, Seed: 1, Time: 300 * time.Millisecond, Workers: 2,
		Progress: func(p Progress) { seen = append(seen, p) }, ProgressEvery: 50 * time.Millisecond})
	require.NoError(t, err)
	assert.Positive(t, sum.Runs)
	assert.NotEmpty(t, seen)
}

// A process run mostly waits, so a campaign of one plays several runs per
// core by default; in process, one per core.
func TestDefaultWorkersArePerCoreAndMoreForAProcess(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	ref := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	assert.Equal(t, cores, DefaultWorkers(ref))
	proc := play.Impl{Name: "p", Process: &sim.ProcessSpec{Command: []string{"p"}, Regime: sim.RegimeStep}}
	assert.Equal(t, ProcessWorkersPerCore*cores, DefaultWorkers(proc))
	assert.Greater(t, ProcessWorkersPerCore, 1)
}
