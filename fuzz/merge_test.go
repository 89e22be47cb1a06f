package fuzz

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim/sandbox"
)

// resultOf plays cfg and returns its result file's bytes and the result.
func resultOf(t *testing.T, cfg Config) ([]byte, *Result) {
	t.Helper()
	sum := runCampaign(t, cfg)
	r, err := NewResult(sum, ResultInput{Config: cfg, ImplFlags: []string{"--impl", cfg.Impl.Name}, Version: "test"})
	require.NoError(t, err)
	data, err := r.Marshal()
	require.NoError(t, err)
	return data, r
}

// shardsOf plays the n shards of cfg.
func shardsOf(t *testing.T, cfg Config, n int) []*Result {
	t.Helper()
	var out []*Result
	for k := range n {
		c := cfg
		c.Shard = Shard{k, n}
		_, r := resultOf(t, c)
		out = append(out, r)
	}
	return out
}

func leakyImpl() play.Impl {
	return play.Impl{Name: "leaky", New: func() sandbox.Implementation { return &leaky{inner: examples.Reference()()} }}
}

// failing is a corpus of one bundle weak-no-send fails.
func failing(t *testing.T) []CorpusEntry {
	t.Helper()
	sum := runCampaign(t, Config{Impl: builtin(t, "weak-no-send"), Seed: 9, Runs: 10, Workers: 1})
	require.NotNil(t, sum.Failure)
	return []CorpusEntry{{Path: "corpus/kept.json", Bundle: sum.Failure.Bundle}}
}

func mergedBytes(t *testing.T, shards []*Result) []byte {
	t.Helper()
	m, err := Merge(shards)
	require.NoError(t, err)
	data, err := m.Marshal()
	require.NoError(t, err)
	return data
}

func TestMergedShardsAreTheUnshardedResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"reference", Config{Impl: builtin(t, "reference"), Seed: 3, Runs: 40, Workers: 2}},
		{"weak stops at its first failure", Config{Impl: builtin(t, "weak-send-before-record"), Seed: 5, Runs: 60, Workers: 2}},
		{"weak keeps going", Config{Impl: builtin(t, "weak-send-per-approval"), Seed: 2, Runs: 30, Workers: 2, KeepGoing: true}},
		{"a divergence", Config{Impl: leakyImpl(), Seed: 5, Runs: 10, Workers: 1, CheckDeterminism: true, KeepGoing: true}},
		{"a corpus bundle that still fails", Config{Impl: builtin(t, "weak-no-send"), Seed: 2, Runs: 20, Workers: 1, Corpus: failing(t)}},
		{"a failing corpus bundle, going on", Config{Impl: builtin(t, "weak-no-send"), Seed: 2, Runs: 20, Workers: 1, Corpus: failing(t), KeepGoing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, r := resultOf(t, tc.cfg)
			if tc.cfg.Corpus != nil {
				require.NotNil(t, r.Counterexample)
				assert.Equal(t, "corpus/kept.json", r.Counterexample.Source)
			}
			assert.Equal(t, whole, mergedBytes(t, []*Result{r}), "a whole campaign merges to itself")
			for _, n := range []int{2, 3, 5} {
				shards := shardsOf(t, tc.cfg, n)
				assert.Equal(t, string(whole), string(mergedBytes(t, shards)), "%d shards", n)
				if r.FirstFailure != nil && !tc.cfg.KeepGoing {
					judged := 0
					for _, s := range shards {
						judged += s.Runs
					}
					assert.Greater(t, judged, r.Runs, "%d shards: no shard played past the first failure, so nothing was dropped", n)
				}
			}
		})
	}
}

func TestMergeRefusesResultsThatAreNotOneCampaign(t *testing.T) {
	cfg := Config{Impl: builtin(t, "reference"), Seed: 4, Runs: 12, Workers: 1}
	shards := shardsOf(t, cfg, 3)
	mergeErr := func(t *testing.T, results []*Result) *MergeError {
		t.Helper()
		_, err := Merge(results)
		var me *MergeError
		require.ErrorAs(t, err, &me)
		return me
	}
	t.Run("missing", func(t *testing.T) {
		me := mergeErr(t, []*Result{shards[0], shards[2]})
		assert.Equal(t, []int{1}, me.Shards)
		assert.Contains(t, me.Error(), "missing shard(s) of 3: 1")
	})
	t.Run("duplicated", func(t *testing.T) {
		me := mergeErr(t, []*Result{shards[0], shards[1], shards[2], shards[1]})
		assert.Equal(t, []int{1}, me.Shards)
		assert.Contains(t, me.Error(), "duplicated shard(s) of 3: 1 (2 times)")
	})
	t.Run("another seed", func(t *testing.T) {
		other := cfg
		other.Seed = 5
		odd := shardsOf(t, other, 3)
		me := mergeErr(t, []*Result{shards[0], odd[1], shards[2]})
		assert.Equal(t, []int{1}, me.Shards)
		assert.Contains(t, me.Error(), `campaign.campaign_seed is "5", not "4"`)
	})
	t.Run("another budget and count", func(t *testing.T) {
		other := cfg
		other.Runs = 13
		odd := shardsOf(t, other, 3)
		me := mergeErr(t, []*Result{shards[0], odd[1], shards[2]})
		assert.Contains(t, me.Error(), "campaign.runs is 13, not 12")
		two := shardsOf(t, cfg, 2)
		me = mergeErr(t, []*Result{shards[0], shards[1], shards[2], two[1]})
		assert.Contains(t, me.Error(), "shard 1/2 is not one of 3 shards")
	})
	t.Run("nothing", func(t *testing.T) {
		assert.Contains(t, mergeErr(t, nil).Error(), "no shard results")
	})
	// The same shards, each once, in any order, merge.
	_, err := Merge([]*Result{shards[2], shards[0], shards[1]})
	require.NoError(t, err)
}

// interrupted plays the shard with one worker and stops it from outside
// once it has judged after runs: what a shard stopped by a signal writes.
func interrupted(t *testing.T, cfg Config, after int) *Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Workers, cfg.ProgressEvery = 1, time.Nanosecond
	cfg.Progress = func(p Progress) {
		if p.Runs >= after {
			cancel()
		}
	}
	sum, err := Campaign(ctx, cfg)
	require.NoError(t, err)
	require.Equal(t, after, sum.Runs)
	r, err := NewResult(sum, ResultInput{Config: cfg, ImplFlags: []string{"--impl", cfg.Impl.Name}, Version: "test", Interrupted: true})
	require.NoError(t, err)
	assert.Equal(t, EndedInterrupted, r.Ended)
	return r
}

func TestAnInterruptedShardDecidesOnlyTheRunsItJudged(t *testing.T) {
	// weak-send-before-record first fails at run 29 of seed 15: shard 1 of 3
	// must have judged its runs 1, 4, ..., 28, ten of them.
	cfg := Config{Impl: builtin(t, "weak-send-before-record"), Seed: 15, Runs: 120, Workers: 2}
	whole, r := resultOf(t, cfg)
	require.NotNil(t, r.FirstFailure)
	require.Equal(t, 29, *r.FirstFailure)
	shards := shardsOf(t, cfg, 3)
	one := cfg
	one.Shard = Shard{1, 3}

	shards[1] = interrupted(t, one, 10)
	assert.Equal(t, string(whole), string(mergedBytes(t, shards)), "shard 1 judged every run below the first failure")

	shards[1] = interrupted(t, one, 9)
	_, err := Merge(shards)
	var me *MergeError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []int{1}, me.Shards)
	assert.Contains(t, me.Error(), "undecidable: the campaign's answer needs run 28, which shard 1/3 never judged (it was interrupted after 9 run(s)); run shard 1 again")
}

func TestAShardsTimeBudgetEndsTheMergedCampaignThere(t *testing.T) {
	cfg := Config{Impl: builtin(t, "reference"), Seed: 6, Runs: 30, Workers: 2}
	shards := shardsOf(t, cfg, 3)
	// Shard 2 as a time budget would leave it: 4 runs judged (2, 5, 8, 11);
	// the runs the others judged past 13 are dropped.
	shards[2].Tape.Seen, shards[2].Runs, shards[2].Ended = shards[2].Tape.Seen[:4], 4, EndedTime
	m, err := Merge(shards)
	require.NoError(t, err)
	assert.Equal(t, EndedTime, m.Ended)
	prefix := cfg
	prefix.Runs = 14
	_, want := resultOf(t, prefix)
	assert.Equal(t, want.Runs, m.Runs)
	assert.Equal(t, want.Coverage, m.Coverage)
	assert.Equal(t, want.Tape, m.Tape)
	// A shard that ended its budget is never short: the same tape cut with
	// the budget's reason is inconsistent, and undecidable.
	shards[2].Ended = EndedBudget
	_, err = Merge(shards)
	assert.ErrorContains(t, err, "never judged (it ended its budget after 4 run(s))")
}

func TestResolveShard(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == IndexEnv {
				return v
			}
			return ""
		}
	}
	got, err := ResolveShard("auto/5", env("3"))
	require.NoError(t, err)
	assert.Equal(t, Shard{3, 5}, got)
	got, err = ResolveShard("2/4", env("0"))
	require.NoError(t, err)
	assert.Equal(t, Shard{2, 4}, got, "k/n does not read the variable")
	for _, bad := range []struct{ shard, env, want string }{
		{"auto/5", "", "JOB_COMPLETION_INDEX is not set"},
		{"auto/5", "5", `JOB_COMPLETION_INDEX="5" is not an index from 0 to 4`},
		{"auto/5", "-1", "is not an index"},
		{"auto/5", "x", "is not an index"},
		{"auto/0", "0", "want auto/n with n at least 1"},
		{"auto/", "0", "want auto/n"},
		{"auto", "0", "want k/n"},
	} {
		_, err := ResolveShard(bad.shard, env(bad.env))
		assert.ErrorContains(t, err, bad.want, "%s with %q", bad.shard, bad.env)
	}
}

func TestResultFileRoundTripsAndBadOnesAreRefused(t *testing.T) {
	cfg := Config{Impl: builtin(t, "weak-no-send"), Seed: 1, Runs: 10, Workers: 1, Shard: Shard{1, 2}}
	data, r := resultOf(t, cfg)
	dir := t.TempDir()
	path, err := WriteResult(dir, r)
	require.NoError(t, err)
	back, err := ReadResult(dir)
	require.NoError(t, err)
	again, err := back.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))

	_, err = ReadResult(t.TempDir())
	assert.ErrorContains(t, err, "no campaign.json: the campaign did not finish")
	edit := func(t *testing.T, change func(m map[string]any)) error {
		t.Helper()
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		change(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		d := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(d, ResultFile), out, 0o644))
		_, err = ReadResult(d)
		return err
	}
	for name, tc := range map[string]struct {
		change func(m map[string]any)
		want   string
	}{
		"format":   {func(m map[string]any) { m["format"] = "x/2" }, `format: "x/2"`},
		"shard":    {func(m map[string]any) { m["shard"] = map[string]any{"index": 2, "count": 2} }, "shard: 2/2 is not a shard"},
		"runs":     {func(m map[string]any) { m["runs"] = 3 }, "coverage masks for 3 runs"},
		"count":    {func(m map[string]any) { m["shard"] = map[string]any{"index": 1, "count": 1 << 30} }, "more than the 65536 shards"},
		"mask":     {func(m map[string]any) { m["tape"].(map[string]any)["seen"] = "zz" }, `run 0 of the tape: "zz"`},
		"unknown":  {func(m map[string]any) { m["extra"] = 1 }, `unknown field "extra"`},
		"files":    {func(m map[string]any) { m["counterexample"].(map[string]any)["files"] = "../../etc" }, `files: "../../etc" is not a path inside`},
		"counters": {func(m map[string]any) { m["campaign"].(map[string]any)["counters"] = []string{"a"} }, "another catalogue"},
		"mark": {func(m map[string]any) {
			m["tape"].(map[string]any)["marks"] = []any{map[string]any{"run": 2, "kind": "failed"}}
		}, "run 2 is not one of the shard's judged runs"},
	} {
		err := edit(t, tc.change)
		assert.ErrorContains(t, err, tc.want, name)
		assert.ErrorContains(t, err, ResultFile, name)
	}
	assert.FileExists(t, path)
}

func TestSeenTapeRoundTrips(t *testing.T) {
	in := SeenTape{0, 1, 0x3ffff, 0xa}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, strconv.Quote("0 1 3ffff a"), string(data))
	var out SeenTape
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in, out)
	past := strconv.Quote(strconv.FormatUint(uint64(1)<<len(Counters()), 16))
	assert.Error(t, json.Unmarshal([]byte(past), &out), "a bit past the catalogue")
	assert.Error(t, json.Unmarshal([]byte(`[1]`), &out))
}

// A damaged or hostile result file is refused or merged, never a panic.
func FuzzReadAndMergeResult(f *testing.F) {
	for _, cfg := range []Config{
		{Impl: builtin(f, "weak-no-send"), Seed: 1, Runs: 6, Workers: 1, Shard: Shard{1, 2}},
		{Impl: builtin(f, "reference"), Seed: 2, Runs: 3, Workers: 1, KeepGoing: true},
	} {
		sum, err := Campaign(context.Background(), cfg)
		require.NoError(f, err)
		r, err := NewResult(sum, ResultInput{Config: cfg, ImplFlags: []string{"--impl", cfg.Impl.Name}, Version: "test",
			Files: map[string]string{OutcomeCounterexample: RawDir}})
		require.NoError(f, err)
		data, err := r.Marshal()
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, ResultFile), data, 0o644))
		r, err := ReadResult(dir)
		if err != nil {
			return
		}
		other := *r
		other.Shard = Shard{(r.Shard.Index + 1) % r.Shard.Count, r.Shard.Count}
		for _, set := range [][]*Result{{r}, {r, r}, {r, &other}} {
			if m, err := Merge(set); err == nil {
				_, err = m.Marshal()
				require.NoError(t, err)
			}
		}
	})
}

// A campaign told to keep no tape judges the same runs to the same end, and
// holds no coverage mask per run; the result it would make is refused when
// written, since no merge could read it back (D160).
func TestACampaignWithoutATapeJudgesTheSameAndWritesNoResult(t *testing.T) {
	cfg := Config{Impl: builtin(t, examples.ReferenceName), Seed: 3, Runs: 30, Workers: 2}
	with := runCampaign(t, cfg)
	cfg.NoTape = true
	without := runCampaign(t, cfg)
	require.Len(t, with.Tape.Seen, 30)
	assert.Empty(t, without.Tape.Seen)
	assert.Equal(t, with.Runs, without.Runs)
	assert.Equal(t, with.Coverage.Counts(), without.Coverage.Counts())
	assert.Equal(t, with.Outcome(), without.Outcome())

	_, err := NewResult(without, ResultInput{Config: cfg})
	assert.ErrorContains(t, err, "kept no tape of its 30 run(s)")
	assert.Equal(t, EndedBudget, Ended(without, cfg, false))
	cfg.NoTape = false
	r, err := NewResult(with, ResultInput{Config: cfg})
	require.NoError(t, err)
	assert.Equal(t, r.Ended, Ended(with, cfg, false))
	_, err = WriteResult(t.TempDir(), r)
	assert.NoError(t, err)
	r.Tape.Seen = r.Tape.Seen[:29]
	_, err = WriteResult(t.TempDir(), r)
	assert.ErrorContains(t, err, "tape: 29 coverage masks for 30 runs")
}
