package fuzz

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
)

// Shard selects part of a campaign's run space: the runs whose index modulo
// Count is Index. The zero value is the whole campaign.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads a shard given as "k/n"; "" is the whole campaign.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{Index: 0, Count: 1}, nil
	}
	k, n, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(k)
	c, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || c < 1 || i < 0 || i >= c {
		return Shard{}, fmt.Errorf("%q: want k/n with 0 <= k < n", s)
	}
	return Shard{Index: i, Count: c}, nil
}

func (s Shard) normal() Shard {
	if s.Count < 1 {
		return Shard{0, 1}
	}
	return s
}

// Config is one campaign.
type Config struct {
	Impl play.Impl
	// Seed is the campaign seed; run i's run seed is seeds.Run(Seed, i).
	Seed uint64
	// Runs is the size of the whole campaign's run space (all shards
	// together). 0 means no limit: Time must then be set.
	Runs int
	// Time bounds the campaign in wall-clock time; 0 means no bound. With a
	// time bound, how many runs are played depends on the machine.
	Time time.Duration
	// Workers is how many runs are played at once; 0 means DefaultWorkers. The
	// outcome does not depend on it.
	Workers int
	// Preset names the swarm profile preset; "" means faults.DefaultPreset.
	Preset string
	Shard  Shard
	// CheckDeterminism plays every run twice and compares the bytes.
	CheckDeterminism bool
	// KeepGoing plays the whole budget instead of stopping at the first
	// failing or invalid run, counting them; Failure and Invalid are still
	// the first of each. A divergence always stops the campaign.
	KeepGoing bool
	// MaxSteps bounds the steps per tick (0: the engine's default).
	MaxSteps int
	// NoTape leaves Summary.Tape empty. The tape keeps a coverage mask for
	// every judged run, which only a result file needs (NewResult refuses a
	// summary without it); a long campaign that writes none would otherwise
	// grow with its run count (D160).
	NoTape bool
	// Corpus is replayed before anything is generated.
	Corpus []CorpusEntry
	// Progress, when set, is called at most every ProgressEvery (default
	// 500ms) while runs are played.
	Progress      func(Progress)
	ProgressEvery time.Duration
}

// Progress is a campaign's state while it runs.
type Progress struct {
	Runs    int
	Elapsed time.Duration
	// Failed and Invalid count the failing and invalid runs so far.
	Failed, Invalid int
}

// Run is one generated run: what was drawn and what happened, a judged
// play (package play) with the campaign's view of it. Its Seeds are the
// campaign seed for a generated run, the run seed its profile and bundle
// derive from (what `amr run --runs 1 --seed` takes to replay it), and the
// engine seed it was played with, seeds.Engine(run, 1). A corpus bundle of
// unknown provenance has the run seed of its name, and replays without
// --seed.
type Run struct {
	*play.Run
	// Index is the run's place in the campaign; -1 for a corpus replay.
	Index   int
	Profile faults.Profile
	Seen    Seen
}

// Counterexample is a run that failed, with where it came from: "generated"
// or the corpus file it was replayed from. It is the raw run, unshrunk.
type Counterexample struct {
	*Run
	Source string
}

// Divergence is a run whose two plays differed.
type Divergence struct {
	Index        int
	Seeds        seeds.Seeds
	Profile      faults.Profile
	Bundle       *scenarios.Bundle
	HashA, HashB string
	// Where names the first difference: a sandbox file and line, a run log
	// record, or the verdict; A and B are what each play had there.
	Where string
	A, B  string
}

// Replay is what a corpus bundle did when replayed.
type Replay struct {
	Path  string `json:"path"`
	Hash  string `json:"bundle_hash"`
	Fails bool   `json:"fails"`
	// Invalid is set when the two oracles disagreed on the replay.
	Invalid    bool     `json:"invalid,omitempty"`
	Invariants []string `json:"invariants,omitempty"`
}

// Summary is a campaign's outcome.
type Summary struct {
	Impl    string
	Seed    uint64
	Preset  string
	Shard   Shard
	Planned int
	// Runs counts the generated runs judged: every run of the shard up to
	// the first failure or divergence, or up to the budget.
	Runs int
	// FailedRuns and InvalidRuns count the generated runs that failed and
	// that the oracles disagreed on; Found counts failing runs per
	// invariant id. Without KeepGoing they stop at the first such run.
	FailedRuns  int
	InvalidRuns int
	Found       map[string]int
	Elapsed     time.Duration
	Coverage    Coverage
	Replays     []Replay
	// Failure is the counterexample: a corpus bundle that still fails, or
	// the generated run with the lowest index that failed.
	Failure *Counterexample
	// Invalid is the first run on which the two oracles disagreed: a
	// harness bug, which ends the campaign before any later verdict.
	Invalid    *Counterexample
	Divergence *Divergence
	// Tape is every judged generated run in index order: what a shard's
	// result file records so that shards merge into the unsharded answer.
	Tape Tape
}

// Outcomes of a campaign.
const (
	OutcomeClean          = "clean"
	OutcomeCounterexample = "counterexample"
	OutcomeDivergence     = "divergence"
	OutcomeInvalid        = "invalid"
)

// Outcome names how the campaign ended.
func (s *Summary) Outcome() string {
	switch {
	case s.Divergence != nil:
		return OutcomeDivergence
	case s.Invalid != nil:
		return OutcomeInvalid
	case s.Failure != nil:
		return OutcomeCounterexample
	}
	return OutcomeClean
}

// Generated draws run i of a campaign: its profile and its bundle, named
// after the run and carrying its provenance.
func Generated(campaign uint64, i int, preset string) (faults.Profile, *scenarios.Bundle, error) {
	seed := seeds.Run(campaign, i)
	p, err := faults.DrawProfile(rng.Stream(seed, "profile"), preset)
	if err != nil {
		return faults.Profile{}, nil, err
	}
	b := faults.Generate(rng.Stream(seed, "bundle"), p)
	b.Meta.Name = "l6-fuzz-" + strconv.Itoa(i)
	b.Meta.Origin = &scenarios.Origin{Kind: "generated",
		CampaignSeed: strconv.FormatUint(campaign, 10), Run: strconv.Itoa(i)}
	return p, b, nil
}

// Play runs a bundle once against impl with the engine seed that `amr run
// --runs 1 --seed seed` uses (without --seed when seed is nil), judges it
// and reads its coverage. So a command printed for a counterexample replays
// exactly the run that failed.
func Play(b *scenarios.Bundle, impl play.Impl, seed *uint64, maxSteps int) (*Run, error) {
	r, err := observe(play.Play(b, impl, given(seed), play.Options{MaxSteps: maxSteps}))
	if err != nil {
		return nil, fmt.Errorf("playing bundle %s: %w", b.Meta.Name, err)
	}
	return r, nil
}

// observe reads a judged play's coverage.
func observe(p *play.Run, err error) (*Run, error) {
	if err != nil {
		return nil, err
	}
	return &Run{Run: p, Index: -1, Seen: observeParsed(p.Bundle, p.Result.Files.Files(), p.Result.Log, p.Judgement.Parsed)}, nil
}

// PlayGenerated draws and plays run i of a campaign. A generated bundle
// that does not validate is a generator defect, reported as an error.
func PlayGenerated(campaign uint64, i int, preset string, impl play.Impl, maxSteps int) (*Run, error) {
	p, b, err := Generated(campaign, i, preset)
	if err != nil {
		return nil, err
	}
	if errs := scenarios.Validate(b, nil).Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("run %d (campaign seed %d): the generator made an invalid bundle:\n%s", i, campaign, errs.Error())
	}
	seed := seeds.Run(campaign, i)
	r, err := Play(b, impl, &seed, maxSteps)
	if err != nil {
		return nil, fmt.Errorf("run %d (campaign seed %d): %w", i, campaign, err)
	}
	r.Index, r.Profile, r.Seeds = i, p, seeds.OfGenerated(campaign, i)
	return r, nil
}

// Campaign replays the corpus, then plays generated runs until the budget
// ends, a run fails, or two plays of a run differ. Runs are played by
// cfg.Workers goroutines but judged in index order, so the outcome, the run
// count and the coverage are the same for any number of workers.
func Campaign(ctx context.Context, cfg Config) (*Summary, error) {
	if cfg.Impl.New == nil && cfg.Impl.Process == nil {
		return nil, errors.New("campaign: no implementation")
	}
	if cfg.Runs <= 0 && cfg.Time <= 0 {
		return nil, errors.New("campaign: give a number of runs or a time budget")
	}
	if cfg.Preset == "" {
		cfg.Preset = faults.DefaultPreset
	}
	if err := faults.CheckPreset(cfg.Preset); err != nil {
		return nil, err
	}
	cfg.Shard = cfg.Shard.normal()
	if cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count {
		return nil, fmt.Errorf("campaign: shard %d/%d: the index must be below the count", cfg.Shard.Index, cfg.Shard.Count)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers(cfg.Impl)
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 500 * time.Millisecond
	}
	c := &campaign{cfg: cfg, start: time.Now(),
		sum: &Summary{Impl: cfg.Impl.Name, Seed: cfg.Seed, Preset: cfg.Preset, Shard: cfg.Shard, Planned: cfg.Runs,
			Found: map[string]int{}}}
	if err := c.replayCorpus(ctx); err != nil {
		return nil, err
	}
	if (c.sum.Failure == nil && c.sum.Invalid == nil) || cfg.KeepGoing {
		if err := c.generate(ctx); err != nil {
			return nil, err
		}
	}
	c.sum.Elapsed = time.Since(c.start)
	return c.sum, nil
}

type campaign struct {
	cfg   Config
	start time.Time
	sum   *Summary
}

func (c *campaign) replayCorpus(ctx context.Context) error {
	for _, e := range c.cfg.Corpus {
		if ctx.Err() != nil {
			return nil // the summary says the campaign was interrupted
		}
		var seed *uint64
		if s, ok := OriginRunSeed(e.Bundle); ok {
			seed = &s
		}
		r, err := Play(e.Bundle, c.cfg.Impl, seed, c.cfg.MaxSteps)
		if err != nil {
			return fmt.Errorf("replaying %s: %w", e.Path, err)
		}
		c.sum.Replays = append(c.sum.Replays, Replay{Path: e.Path, Hash: r.BundleHash, Fails: r.Failed(),
			Invalid: r.Invalid(), Invariants: r.Invariants()})
		switch {
		case c.sum.Failure != nil || c.sum.Invalid != nil:
		case r.Invalid():
			c.sum.Invalid = &Counterexample{Run: r, Source: e.Path}
		case r.Failed():
			c.sum.Failure = &Counterexample{Run: r, Source: e.Path}
		}
	}
	return nil
}

// outcome is what a worker reports for one run. The full run is kept only
// when it failed or diverged, so memory stays flat over long campaigns.
type outcome struct {
	index int
	seen  Seen
	run   *Run
	div   *Divergence
	err   error
}

// window bounds how far dispatching may run ahead of judging, which bounds
// the outcomes held while a slow run is still being played.
const windowPerWorker = 64

func (c *campaign) generate(ctx context.Context) error {
	cfg := c.cfg
	jobs := make(chan int)
	results := make(chan outcome, cfg.Workers)
	for range cfg.Workers {
		go func() {
			for i := range jobs {
				results <- c.play(i)
			}
		}()
	}
	defer close(jobs)

	shard := cfg.Shard
	next := shard.Index // next index to dispatch
	fold := shard.Index // next index to judge
	window := cfg.Workers * windowPerWorker * shard.Count
	inFlight, stopped := 0, false
	held := map[int]outcome{}
	lastProgress := time.Now()
	var firstErr error
	more := func() bool {
		if stopped || ctx.Err() != nil {
			return false
		}
		if cfg.Runs > 0 && next >= cfg.Runs {
			return false
		}
		return cfg.Time <= 0 || time.Since(c.start) < cfg.Time
	}
	for {
		for inFlight < cfg.Workers && next-fold < window && more() {
			jobs <- next
			next += shard.Count
			inFlight++
		}
		if inFlight == 0 {
			break
		}
		o := <-results
		inFlight--
		held[o.index] = o
		for {
			h, ok := held[fold]
			if !ok {
				break
			}
			delete(held, fold)
			fold += shard.Count
			if stopped {
				continue
			}
			if h.err != nil {
				firstErr, stopped = h.err, true
				continue
			}
			c.sum.Runs++
			c.sum.Coverage.Add(h.seen)
			if !cfg.NoTape {
				c.sum.Tape.record(h.index, h.seen, h.run, h.div)
			}
			switch {
			case h.div != nil:
				c.sum.Divergence, stopped = h.div, true
			case h.run != nil:
				stopped = c.tally(h.run) && !cfg.KeepGoing
			}
		}
		if cfg.Progress != nil && time.Since(lastProgress) >= cfg.ProgressEvery {
			lastProgress = time.Now()
			cfg.Progress(c.progress())
		}
	}
	if firstErr != nil {
		return firstErr
	}
	return nil
}

// tally counts a failing or invalid run and keeps the first of each kind.
// It reports whether the run was one.
func (c *campaign) tally(r *Run) bool {
	switch {
	case r.Invalid():
		c.sum.InvalidRuns++
		if c.sum.Invalid == nil {
			c.sum.Invalid = &Counterexample{Run: r, Source: "generated"}
		}
	case r.Failed():
		c.sum.FailedRuns++
		for _, id := range r.Invariants() {
			c.sum.Found[id]++
		}
		if c.sum.Failure == nil {
			c.sum.Failure = &Counterexample{Run: r, Source: "generated"}
		}
	default:
		return false
	}
	return true
}

func (c *campaign) progress() Progress {
	return Progress{Runs: c.sum.Runs, Elapsed: time.Since(c.start), Failed: c.sum.FailedRuns, Invalid: c.sum.InvalidRuns}
}

// play is one worker's job.
func (c *campaign) play(i int) outcome {
	cfg := c.cfg
	r, err := PlayGenerated(cfg.Seed, i, cfg.Preset, cfg.Impl, cfg.MaxSteps)
	if err != nil {
		return outcome{index: i, err: err}
	}
	o := outcome{index: i, seen: r.Seen}
	if cfg.CheckDeterminism {
		again, err := PlayGenerated(cfg.Seed, i, cfg.Preset, cfg.Impl, cfg.MaxSteps)
		if err != nil {
			return outcome{index: i, err: err}
		}
		if d := compareRuns(r, again); d != nil {
			o.div = d
			return o
		}
	}
	if r.Failed() || r.Invalid() {
		o.run = r
	}
	return o
}

// ProcessWorkersPerCore is how many runs of a process implementation a
// campaign plays at once per core by default. A process run spends most of
// its wall time waiting (for a tick's answer through a pipe, for an instance
// to start), so one run per core leaves the cores idle; 8 runs at once on 2
// cores played 1.5 times as many runs a second as 2 (decision D121).
const ProcessWorkersPerCore = 4

// DefaultWorkers is the number of runs played at once when none is given:
// one per core (GOMAXPROCS) in process, ProcessWorkersPerCore per core for a
// process implementation.
func DefaultWorkers(impl play.Impl) int {
	if impl.Process != nil {
		return ProcessWorkersPerCore * runtime.GOMAXPROCS(0)
	}
	return runtime.GOMAXPROCS(0)
}
