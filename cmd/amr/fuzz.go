package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/shrink"
	"github.com/amr-bench/amr/sim"
)

func init() { commands = append(commands, newFuzzCmd) }

// defaultFuzzRuns is the budget when neither --runs nor --time is given.
const defaultFuzzRuns = 1000

// fuzzJSON is the --json document of amr fuzz.
type fuzzJSON struct {
	Impl string `json:"impl"`
	seeds.Seeds
	Profile          string              `json:"profile"`
	Shard            string              `json:"shard,omitempty"`
	PlannedRuns      int                 `json:"planned_runs,omitempty"`
	Runs             int                 `json:"runs"`
	FailedRuns       int                 `json:"failed_runs"`
	InvalidRuns      int                 `json:"invalid_runs"`
	Found            map[string]int      `json:"found,omitempty"`
	Seconds          float64             `json:"seconds"`
	RunsPerSecond    float64             `json:"runs_per_second"`
	CheckDeterminism bool                `json:"check_determinism"`
	Outcome          string              `json:"outcome"`
	Interrupted      bool                `json:"interrupted,omitempty"`
	Coverage         []fuzz.CounterCount `json:"coverage"`
	Corpus           *corpusJSON         `json:"corpus,omitempty"`
	Counterexample   *counterexampleJSON `json:"counterexample,omitempty"`
	Invalid          *invalidJSON        `json:"invalid,omitempty"`
	Divergence       *divergenceJSON     `json:"divergence,omitempty"`
	// Reproduction is what replaying the failing run showed; NotReproduced
	// is the run, when no replay failed without a harness timeout.
	Calibration   *fuzz.Calibration  `json:"calibration,omitempty"`
	Reproduction  *fuzz.Reproduction `json:"reproduction,omitempty"`
	NotReproduced *notReproducedJSON `json:"not_reproduced,omitempty"`
}

// notReproducedJSON is a failing run that did not fail again: written as
// found, never shrunk, kept or reported as a counterexample.
type notReproducedJSON struct {
	fuzz.ProfileRecord
	BundleHash string   `json:"bundle_hash"`
	Invariants []string `json:"invariants"`
	Dir        string   `json:"dir"`
	Rate       string   `json:"rate"`
}

type corpusJSON struct {
	Dir      string        `json:"dir"`
	Replays  []fuzz.Replay `json:"replays"`
	Problems []string      `json:"problems,omitempty"`
	Kept     string        `json:"kept,omitempty"`
}

// counterexampleJSON is the failing run as found (the raw one) and, unless
// --no-shrink, its shrunk form.
type counterexampleJSON struct {
	fuzz.ProfileRecord
	BundleHash string              `json:"bundle_hash"`
	Invariants []string            `json:"invariants"`
	Violations []checker.Violation `json:"violations"`
	Dir        string              `json:"dir"`
	Replay     string              `json:"replay"`
	// ReplayCuts, for a process run cut inside a tick's work, replays the
	// write counts its crashes landed at (best effort: docs/processes.md).
	ReplayCuts string      `json:"replay_cuts,omitempty"`
	Shrunk     *shrunkJSON `json:"shrunk,omitempty"`
	// Latest is the link amr fuzz points at the newest counterexample's
	// folder (the one holding raw/ and shrunk/).
	Latest string `json:"latest,omitempty"`
}

// folder is the counterexample's own folder: the parent of raw/.
func (c *counterexampleJSON) folder() string { return filepath.Dir(c.Dir) }

// shrunkJSON is a counterexample after shrinking. Error is set, and the
// rest empty, when the shrink could not be done.
type shrunkJSON struct {
	Invariant  string              `json:"invariant,omitempty"`
	BundleHash string              `json:"bundle_hash,omitempty"`
	Stats      *shrink.Stats       `json:"stats,omitempty"`
	Violations []checker.Violation `json:"violations,omitempty"`
	Dir        string              `json:"dir,omitempty"`
	Replay     string              `json:"replay,omitempty"`
	Timeline   string              `json:"timeline,omitempty"`
	Error      string              `json:"error,omitempty"`
}

// invalidJSON is a run on which the two oracles disagreed.
type invalidJSON struct {
	fuzz.ProfileRecord
	BundleHash string              `json:"bundle_hash"`
	Guard      checker.GuardResult `json:"guard"`
	Dir        string              `json:"dir"`
	Replay     string              `json:"replay"`
}

type divergenceJSON struct {
	Run int `json:"run"`
	seeds.Seeds
	Profile faults.Profile `json:"profile"`
	Where   string         `json:"where"`
	HashA   string         `json:"hash_first"`
	HashB   string         `json:"hash_second"`
	First   string         `json:"first"`
	Second  string         `json:"second"`
	Bundle  string         `json:"bundle"`
}

type fuzzOptions struct {
	implName    string
	seed        uint64
	runs        int
	budget      time.Duration
	workers     int
	preset      string
	out         string
	corpus      string
	noCorpus    bool
	determinism bool
	shard       string
	asJSON      bool
	progress    bool
	maxSteps    int
	noShrink    bool
	keepGoing   bool
	shrinkTime  time.Duration
	replays     int
	shrinkPlays int
}

// DefaultShrinkPlays is the play budget of a counterexample's shrink. A
// budget of plays, unlike one of seconds, ends a shrink at the same
// candidate on any machine; every zoo counterexample in process shrinks to
// its fixpoint in far fewer.
const DefaultShrinkPlays = 600

func newFuzzCmd() *cobra.Command {
	var o fuzzOptions
	cmd := &cobra.Command{
		Use:   "fuzz",
		Short: "Search for invariant failures in generated fault scenarios",
		Long:  fuzzLong(),
		Example: `  amr fuzz                                         # 1000 runs against the reference, seed 1
  amr fuzz --impl weak-send-before-record --seed 7 --runs 5000
  amr fuzz --impl weak-no-send --time 30s --workers 4 --profile crash
  amr fuzz --seed 3 --runs 100000 --shard 0/4      # the first of four machines
  amr fuzz --seed 1 --runs 10000 --check-determinism
  amr fuzz --impl weak-send-per-approval --runs 2000 --keep-going --json | jq .found
  amr fuzz --seed 1 --runs 2000 --json | jq .coverage`,
		Args: cobra.NoArgs,
	}
	pf := addProcessFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return runFuzz(cmd, o, pf) }
	cmd.AddCommand(newFuzzMergeCmd())
	f := cmd.Flags()
	f.StringVar(&o.implName, "impl", "reference", "implementation to fuzz (see 'amr impls')")
	f.Uint64Var(&o.seed, "seed", 1, "campaign seed: run i's run seed derives from it and i")
	f.IntVar(&o.runs, "runs", defaultFuzzRuns, "runs in the campaign (all shards together)")
	f.DurationVar(&o.budget, "time", 0, "stop after this much wall-clock time (alone, or with --runs: whichever ends first)")
	f.IntVar(&o.workers, "workers", 0, fmt.Sprintf("runs played at once; the outcome does not depend on it (default: the cores, %d, in process; %d times that for --impl-cmd)", runtime.GOMAXPROCS(0), fuzz.ProcessWorkersPerCore))
	f.StringVar(&o.preset, "profile", faults.DefaultPreset, "profile preset: "+strings.Join(faults.PresetNames(), ", "))
	f.StringVar(&o.out, "out", "", "write a counterexample's raw/ and shrunk/ here, replacing an earlier one, and the campaign's result campaign.json (default: a folder of its own under .amr/fuzz/<impl>/, and no result)")
	f.StringVar(&o.corpus, "corpus", "", "failure corpus to replay first and to keep failures in (default .amr/corpus/<impl>/)")
	f.BoolVar(&o.noCorpus, "no-corpus", false, "neither replay nor keep a failure corpus")
	f.BoolVar(&o.determinism, "check-determinism", false, "play every run twice and compare the bytes of sandbox, run log and verdict")
	f.StringVar(&o.shard, "shard", "", "play only the runs i with i % n == k, given as k/n, or auto/n to take k from "+fuzz.IndexEnv)
	f.BoolVar(&o.asJSON, "json", false, "print the summary as JSON on stdout")
	f.BoolVar(&o.progress, "progress", false, "print progress on stderr even when it is not a terminal")
	f.IntVar(&o.maxSteps, "max-steps", 0, "steps per tick before a forced advance (default 64)")
	f.BoolVar(&o.keepGoing, "keep-going", false, "play the whole budget, counting failing and invalid runs, instead of stopping at the first")
	f.BoolVar(&o.noShrink, "no-shrink", false, "write the counterexample as found, without shrinking it")
	f.DurationVar(&o.shrinkTime, "shrink-time", 0, "wall-clock bound of the counterexample's shrink besides --shrink-plays (0: none)")
	f.IntVar(&o.shrinkPlays, "shrink-plays", DefaultShrinkPlays, "candidates the counterexample's shrink may judge: the same shrink on every machine")
	f.IntVar(&o.replays, "replays", 5, "replays of a failing run before it is reported; one that fails in none is 'not reproduced' (exit 4)")
	return cmd
}

func fuzzLong() string {
	var b strings.Builder
	b.WriteString(`Fuzz generates scenario bundles from a seed, plays each against an
implementation on the deterministic simulator, judges it with both oracles, and
stops at the first run with any violation (with --keep-going it plays the whole
budget and counts the failing runs per invariant).

--seed is the campaign seed. Run i of the campaign has a run seed derived from
it and i, from which it draws its profile (which fault kinds are on, at which
rates: swarm testing), then its bundle; it plays with the engine seed of scored
run 1 of that run seed, as 'amr run --runs 1 --seed <run seed>' would. The
seeds are printed first ("seed: campaign=..."), and in full with a
counterexample ("seed: campaign=... run=... engine=..."). A
bundle is a safety phase with faults followed by 30 quiet ticks, so every
liveness budget is judged. Runs are played by --workers at once but judged in
order, so a campaign finds the same first failure whatever the number of
workers, and --shard k/n splits the run space across machines.

On a failure amr fuzz writes the run as found in raw/ of the counterexample's
folder: the bundle
in both forms (bundle/ and bundle.json), the sandbox, the run log (run.jsonl),
the compiled history (history.jsonl), the verdict of both oracles
(verdict.json), the drawn profile (profile.json) and, for a process, its
stdout.log and stderr.log. Then it shrinks the bundle to the smallest one on
which the implementation still violates the same invariant (and, unless the
implementation is the reference, the reference passes), and writes the same
set of files for the shrunk run under shrunk/; --no-shrink skips this. It
prints the violated invariant ids and one command that replays the run
exactly.

The folder is --out when given (an earlier counterexample there is
replaced); otherwise every counterexample gets its own, so no campaign
writes over another's: .amr/fuzz/<impl>/<seed>/run-<i>/ for run i of a
campaign (<seed>-<profile>/ under a profile other than default), and
.amr/fuzz/<impl>/corpus-<hash>/ for a kept bundle that still fails. Without --out
the link .amr/fuzz/latest points at the newest counterexample's folder, so
'amr replay .amr/fuzz/latest/shrunk' shows the last one found. The shrunk bundle (the raw one with --no-shrink) is kept in the
corpus, which the next campaign against the same implementation replays
first; a kept bundle that no longer fails is reported as fixed.

Every run is judged by both oracles, the level checker and the history
checker. When their counts disagree the run is INVALID: a harness bug, not a
verdict on the implementation. The campaign stops there, writes the run in invalid/ of its
folder and exits 3.

Profile presets:
`)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range faults.Presets() {
		fmt.Fprintf(tw, "  %s\t%s\n", p.Name, p.Summary)
	}
	tw.Flush()
	b.WriteString(`
With --impl-cmd each run starts the implementation as an OS process; fuzz it
in the step regime (--regime step). A crash meant to cut a process after its
k-th write may land later (docs/processes.md), so while shrinking each
candidate gets up to three plays, and a counterexample cut inside a tick gets
a second command that replays the recorded cuts (amr replay --cut-from).

Progress goes to stderr at most every 500ms when stderr is a terminal or with
--progress (runs, runs/s, failing and invalid runs so far); a summary with the
coverage counters ends every campaign. The garbage collector runs at GOGC=400
unless GOGC is set, under a soft heap limit of 16 MiB plus 4 MiB a worker
unless GOMEMLIMIT is set, so that a campaign's peak memory does not grow with
its length (D160); a collection that lets the heap pile past its goal while it
marks is finished under GOGC=10, then GOGC is put back (D161). Without --out no result file is written, and no per-run coverage tape
is kept for one.

Before a failing run is reported it is replayed --replays times with its own
bundle and seeds. A replay in which the harness gave up on the implementation
(a step not answered in time, never quiet) does not count as failing. When no
replay fails the run is "not reproduced (k of N replays failed)": it is
written as found, never shrunk, kept or called a counterexample, and amr fuzz
exits 4. When some replays fail and some do not, the counterexample stands,
labelled nondeterministic with its rate.

Exit 0 when the budget ends clean, 1 on a counterexample, 2 on bad usage,
3 on an INVALID run or when --check-determinism finds two plays of a run that
differ, 4 when the failing run was not reproduced.`)
	return b.String()
}

// fuzzGCPercent is the garbage collector's target during a campaign. A run's
// live heap is about a megabyte and almost all of it is garbage by the next
// run, so at the default of 100 the collector ran every few runs and took a
// third of the CPU; at 400 the heap still stays a few megabytes. GOGC in the
// environment overrides it.
const fuzzGCPercent = 400

// fuzzMemoryLimit is the soft limit on the Go heap during a campaign of
// workers runs at once (0: the default count). At GOGC=400 the heap may grow
// to five times the live heap of the moment, so without it a campaign's peak
// grew with its length (D160). Near the limit the collector runs as at a
// lower GOGC instead; what still passes it is heap piled up while a
// collection marks, which fuzz.CapHeap curbs (D161). GOMEMLIMIT in the
// environment overrides it.
func fuzzMemoryLimit(workers int) int64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const base, perWorker = 16 << 20, 4 << 20
	return base + int64(workers)*perWorker
}

// heapCapEvery is how often a campaign looks for heap piled up under a
// collection that marks too long (fuzz.CapHeap): at the 50-80 MB a second two
// workers allocate, 2 ms lets about 160 KB pile up before it is seen.
const heapCapEvery = 2 * time.Millisecond

func runFuzz(cmd *cobra.Command, o fuzzOptions, pf *processFlags) error {
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(fuzzGCPercent))
	}
	cfg, err := fuzzConfig(cmd, &o, pf)
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(fuzzMemoryLimit(cfg.Workers)))
	}
	// Stopped before the GOGC above is put back (D161).
	defer fuzz.CapHeap(heapCapEvery)()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	human := stdout
	if o.asJSON {
		human = stderr
	}
	doc := fuzzJSON{Impl: cfg.Impl.Name, Seeds: seeds.OfCampaign(o.seed), Profile: o.preset, PlannedRuns: o.runs, CheckDeterminism: o.determinism}
	if cfg.Shard.Count > 1 {
		doc.Shard = fmt.Sprintf("%d/%d", cfg.Shard.Index, cfg.Shard.Count)
	}
	fmt.Fprintln(human, doc.Line())
	fmt.Fprintln(human, fuzzHeader(doc, o))
	corpusDir := o.corpus
	if corpusDir == "" {
		corpusDir = fuzz.DefaultCorpusDir(cfg.Impl.Name)
	}
	if !o.noCorpus {
		var err error
		if cfg.Corpus, doc.Corpus, err = loadCorpus(stderr, corpusDir); err != nil {
			return err
		}
	}
	// Ctrl-C stops the campaign; it is held until the command ends, so a
	// process started while shrinking is killed too.
	ctx, stop := interruptContext(cmd)
	defer stop()
	if err := calibrate(ctx, cmd, human, &doc, &cfg); err != nil {
		return err
	}
	sum, err := campaign(ctx, stderr, cfg, o.progress)
	if err != nil {
		return &exitError{code: exitBad, err: err}
	}
	summarize(&doc, sum, ctx.Err() != nil)
	notReproduced, err := reproduce(ctx, human, &doc, sum, cfg, o)
	if err != nil {
		return err
	}
	if doc.Corpus != nil {
		doc.Corpus.Replays = append(doc.Corpus.Replays, sum.Replays...)
		printReplays(human, doc.Corpus)
	}
	if err := reportOutcome(cmd, human, &doc, sum, cfg.Impl, pf, o, corpusDir); err != nil {
		return err
	}
	ended, err := keepResult(human, &doc, sum, cfg, pf, o, ctx.Err() != nil)
	if err != nil {
		return err
	}
	printFuzzSummary(human, doc, sum.Coverage)
	if o.asJSON {
		if err := printJSON(stdout, doc); err != nil {
			return err
		}
	}
	switch {
	case interruptedShard(o.shard, ended) != nil:
		return interruptedShard(o.shard, ended)
	case sum.Divergence != nil, sum.Invalid != nil:
		return &exitError{code: exitInvalid}
	case sum.Failure != nil:
		return &exitError{code: exitFail}
	case notReproduced:
		return &exitError{code: exitNotReproduced}
	}
	return nil
}

// calibrate scales the step timeout of a process in the step regime from
// the implementation's own pace, unless --step-timeout was given.
func calibrate(ctx context.Context, cmd *cobra.Command, w io.Writer, doc *fuzzJSON, cfg *fuzz.Config) error {
	spec := cfg.Impl.Process
	if spec == nil || spec.Regime != sim.RegimeStep || cmd.Flags().Changed("step-timeout") {
		return nil
	}
	c, err := fuzz.CalibrateStepTimeout(ctx, cfg.Impl, cfg.Seed)
	if err != nil {
		return &exitError{code: exitBad, err: err}
	}
	scaled := *spec
	scaled.StepTimeout = c.Timeout
	cfg.Impl.Process = &scaled
	doc.Calibration = &c
	fmt.Fprintln(w, c)
	return nil
}

// reproduce replays the failing run before anything reports it. One that
// fails in no replay (a harness timeout does not count as failing) is
// written as found and taken out of the summary, so it is never shrunk,
// kept or reported as a counterexample; it returns true then. A failure
// some replays repeat is kept and labelled with its rate.
func reproduce(ctx context.Context, w io.Writer, doc *fuzzJSON, sum *fuzz.Summary, cfg fuzz.Config, o fuzzOptions) (bool, error) {
	cx := sum.Failure
	if cx == nil || sum.Divergence != nil || sum.Invalid != nil {
		return false, nil
	}
	rep, err := fuzz.Reproduce(ctx, cx, cfg.Impl, o.replays, cfg.MaxSteps)
	if err != nil {
		return false, &exitError{code: exitBad, err: fmt.Errorf("replaying the failing run: %w", err)}
	}
	doc.Reproduction = &rep
	if rep.Status != fuzz.NotReproduced {
		fmt.Fprintf(w, "\nreplayed: %s, %s\n", rep.Status, rep.Rate())
		return false, nil
	}
	raw, err := fuzz.WriteRaw(counterexampleDir(o, cfg.Impl.Name, cx.Source, cx.Index, cx.BundleHash), cx)
	if err != nil {
		return false, err
	}
	why := ""
	if rep.RawTimedOut {
		why = "; the run as found had a harness timeout"
	}
	fmt.Fprintf(w, "\nnot reproduced (%s%s): run %d violated %s, written to %s; not a counterexample\n",
		rep.Rate(), why, cx.Index, strings.Join(cx.Invariants(), ", "), raw)
	doc.NotReproduced = &notReproducedJSON{ProfileRecord: cx.Record(), BundleHash: cx.BundleHash,
		Invariants: cx.Invariants(), Dir: raw, Rate: rep.Rate()}
	doc.Outcome = fuzz.NotReproduced
	sum.Failure = nil
	return true, nil
}

// fuzzConfig checks the flags and turns them into a campaign. A time
// budget without --runs leaves the number of runs open.
func fuzzConfig(cmd *cobra.Command, o *fuzzOptions, pf *processFlags) (fuzz.Config, error) {
	impl, err := resolveImpl(cmd, o.implName, pf)
	if err != nil {
		return fuzz.Config{}, err
	}
	flags := cmd.Flags()
	switch {
	case o.runs < 1 && flags.Changed("runs"):
		return fuzz.Config{}, usageErr("--runs must be at least 1")
	case o.budget < 0:
		return fuzz.Config{}, usageErr("--time must not be negative")
	case o.workers < 1 && flags.Changed("workers"):
		return fuzz.Config{}, usageErr("--workers must be at least 1")
	case o.maxSteps < 0:
		return fuzz.Config{}, usageErr("--max-steps must not be negative")
	case o.shrinkPlays < 1:
		return fuzz.Config{}, usageErr("--shrink-plays must be at least 1")
	}
	if o.budget > 0 && !flags.Changed("runs") {
		o.runs = 0
	}
	if !flags.Changed("workers") {
		o.workers = fuzz.DefaultWorkers(impl)
	}
	if faults.CheckPreset(o.preset) != nil {
		return fuzz.Config{}, usageErr("unknown --profile %q (known: %s)", o.preset, strings.Join(faults.PresetNames(), ", "))
	}
	shard, err := fuzz.ResolveShard(o.shard, os.Getenv)
	if err != nil {
		return fuzz.Config{}, usageErr("--shard %v", err)
	}
	return fuzz.Config{Impl: impl, Seed: o.seed, Runs: o.runs, Time: o.budget, Workers: o.workers,
		Preset: o.preset, Shard: shard, CheckDeterminism: o.determinism, MaxSteps: o.maxSteps, KeepGoing: o.keepGoing,
		NoTape: o.out == ""}, nil
}

// loadCorpus reads the corpus a campaign replays first; a bundle that does
// not load is a warning, and listed in the document. A corpus amr cannot
// read at all, or an entry that is no file amr ever wrote (a FIFO, a
// device), is bad input: the campaign would not replay what it says.
func loadCorpus(stderr io.Writer, dir string) ([]fuzz.CorpusEntry, *corpusJSON, error) {
	entries, problems := fuzz.LoadCorpus(dir)
	doc := &corpusJSON{Dir: dir, Replays: []fuzz.Replay{}}
	for _, p := range problems {
		if errors.Is(p, safefile.ErrNotRegular) || errors.Is(p, safefile.ErrNotDir) || errors.Is(p, fs.ErrPermission) {
			return nil, nil, &exitError{code: exitBad, err: p}
		}
		fmt.Fprintf(stderr, "warning: %v\n", p)
		doc.Problems = append(doc.Problems, p.Error())
	}
	return entries, doc, nil
}

// campaign plays the campaign until it ends or ctx does, with progress on
// stderr when it is a terminal or when asked for.
func campaign(ctx context.Context, stderr io.Writer, cfg fuzz.Config, progress bool) (*fuzz.Summary, error) {
	if progress || isTerminal(stderr) {
		cfg.Progress = progressPrinter(stderr, isTerminal(stderr))
	}
	sum, err := fuzz.Campaign(ctx, cfg)
	if cfg.Progress != nil && isTerminal(stderr) {
		fmt.Fprint(stderr, "\r\033[K")
	}
	return sum, err
}

// outcomeInterrupted is the outcome of a campaign stopped by a signal
// before it found anything: never "clean", which only a finished budget
// earns.
const outcomeInterrupted = "interrupted"

// summarize copies a campaign's counts into the document.
func summarize(doc *fuzzJSON, sum *fuzz.Summary, interrupted bool) {
	doc.Runs, doc.Seconds, doc.Outcome = sum.Runs, sum.Elapsed.Seconds(), sum.Outcome()
	if interrupted && doc.Outcome == fuzz.OutcomeClean {
		doc.Outcome = outcomeInterrupted
	}
	doc.FailedRuns, doc.InvalidRuns, doc.Found = sum.FailedRuns, sum.InvalidRuns, sum.Found
	doc.Interrupted = interrupted
	if doc.Seconds > 0 {
		doc.RunsPerSecond = float64(sum.Runs) / doc.Seconds
	}
	doc.Coverage = sum.Coverage.Counts()
}

// reportOutcome writes and prints how the campaign ended, when it found
// something, and keeps a generated counterexample in the corpus.
func reportOutcome(cmd *cobra.Command, human io.Writer, doc *fuzzJSON, sum *fuzz.Summary, impl play.Impl, pf *processFlags,
	o fuzzOptions, corpusDir string) error {
	var err error
	switch {
	case sum.Divergence != nil:
		d := sum.Divergence
		doc.Divergence, err = reportDivergence(human, d, counterexampleDir(o, impl.Name, "generated", d.Index, ""))
	case sum.Invalid != nil:
		inv := sum.Invalid
		doc.Invalid, err = reportInvalid(human, inv, implFlags(impl.Name, pf), o,
			counterexampleDir(o, impl.Name, inv.Source, inv.Index, inv.BundleHash))
	case sum.Failure != nil:
		f := sum.Failure
		var kept *scenarios.Bundle
		doc.Counterexample, kept, err = reportCounterexample(cmd, human, f, impl, pf, o,
			counterexampleDir(o, impl.Name, f.Source, f.Index, f.BundleHash))
		if err != nil {
			return err
		}
		pointLatest(cmd.ErrOrStderr(), human, doc.Counterexample, o)
		if doc.Corpus != nil && f.Source == "generated" {
			err = keepInCorpus(human, doc.Corpus, corpusDir, kept)
		}
	}
	return err
}

// counterexampleDir is the folder a failing, invalid or diverging run is
// written to: --out itself when given (replacing an earlier one there),
// else a folder of its own under .amr/fuzz/.
func counterexampleDir(o fuzzOptions, impl, source string, index int, hash string) string {
	if o.out != "" {
		return o.out
	}
	return fuzz.CounterexampleDir(impl, o.seed, o.preset, source, index, hash)
}

// pointLatest points .amr/fuzz/latest at the counterexample's folder and
// says so. --out is a place the user chose; the link is for the folders amr
// fuzz names itself.
func pointLatest(stderr, human io.Writer, cx *counterexampleJSON, o fuzzOptions) {
	if o.out != "" {
		return
	}
	var err error
	if cx.Latest, err = fuzz.LinkLatest(cx.folder()); err != nil {
		fmt.Fprintf(stderr, "warning: no %s link: %v\n", fuzz.LatestName, err)
		return
	}
	fmt.Fprintf(human, "  latest:   %s -> %s\n", cx.Latest, cx.folder())
}

// keepInCorpus keeps a generated counterexample's bundle in the corpus, so
// the next campaign replays it first.
func keepInCorpus(human io.Writer, doc *corpusJSON, dir string, b *scenarios.Bundle) error {
	path, added, err := fuzz.SaveToCorpus(dir, b)
	if err != nil {
		return fmt.Errorf("keeping the counterexample in the corpus: %w", err)
	}
	doc.Kept = path
	if added {
		fmt.Fprintf(human, "  kept in the corpus: %s\n", path)
	}
	return nil
}

func fuzzHeader(doc fuzzJSON, o fuzzOptions) string {
	budget := fmt.Sprintf("%d runs", o.runs)
	switch {
	case o.runs == 0:
		budget = "for " + o.budget.String()
	case o.budget > 0:
		budget += " or " + o.budget.String()
	}
	var extra []string
	if doc.Shard != "" {
		extra = append(extra, "shard "+doc.Shard)
	}
	if o.determinism {
		extra = append(extra, "checking determinism")
	}
	h := fmt.Sprintf("amr fuzz: impl %s, profile %s, %s, %d worker(s)", doc.Impl, doc.Profile, budget, o.workers)
	if len(extra) > 0 {
		h += ", " + strings.Join(extra, ", ")
	}
	return h
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter prints one progress line per call: rewritten in place on
// a terminal, one line each otherwise.
func progressPrinter(w io.Writer, terminal bool) func(fuzz.Progress) {
	return func(p fuzz.Progress) {
		perSecond := 0.0
		if s := p.Elapsed.Seconds(); s > 0 {
			perSecond = float64(p.Runs) / s
		}
		line := fmt.Sprintf("fuzz: %d runs  %s runs/s  %s  %d failed  %d invalid", p.Runs, rate(perSecond),
			p.Elapsed.Round(100*time.Millisecond), p.Failed, p.Invalid)
		if terminal {
			fmt.Fprint(w, "\r\033[K"+line)
		} else {
			fmt.Fprintln(w, line)
		}
	}
}

// rate renders runs per second: whole numbers, one decimal below 10.
func rate(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func printReplays(w io.Writer, c *corpusJSON) {
	if len(c.Replays) == 0 {
		return
	}
	fails := 0
	for _, r := range c.Replays {
		if r.Fails {
			fails++
		}
	}
	fmt.Fprintf(w, "corpus %s: %d replayed, %d still fail(s), %d fixed\n", c.Dir, len(c.Replays), fails, len(c.Replays)-fails)
	for _, r := range c.Replays {
		if r.Fails {
			fmt.Fprintf(w, "  still fails: %s (%s)\n", r.Path, strings.Join(r.Invariants, ", "))
		} else {
			fmt.Fprintf(w, "  fixed:       %s\n", r.Path)
		}
	}
}

// reportCounterexample writes a counterexample as found, shrinks it unless
// told not to, writes the shrunk run beside the raw one, and prints what it
// broke and how to replay it. It returns the bundle to keep in the corpus:
// the shrunk one when there is one, as the shrink left it in memory.
func reportCounterexample(cmd *cobra.Command, w io.Writer, cx *fuzz.Counterexample, impl play.Impl, pf *processFlags,
	o fuzzOptions, dir string) (*counterexampleJSON, *scenarios.Bundle, error) {
	implFlags := implFlags(impl.Name, pf)
	raw, err := fuzz.WriteRaw(dir, cx)
	if err != nil {
		return nil, nil, err
	}
	doc := &counterexampleJSON{ProfileRecord: cx.Record(), BundleHash: cx.BundleHash, Invariants: cx.Invariants(),
		Violations: cx.Verdict().Violations, Dir: raw,
		Replay: fuzz.ReplayCommand(implFlags, cx, filepath.Join(raw, fuzz.BundleJSON), o.maxSteps)}
	printFound(w, cx, raw)
	if impl.Process != nil && len(sim.CutsOf(cx.Result.Log)) > 0 {
		doc.ReplayCuts = shell.Join(append([]string{"amr", "replay", filepath.Join(raw, fuzz.BundleJSON)},
			append(implFlags, "--cut-from", raw)...)...)
		how := "best effort: the run watched the sandbox"
		if len(cx.Result.Log) > 0 && cx.Result.Log[0].Start().Params["cut"] == sim.CutTrace {
			how = "exact: the run stopped the process before each write"
		}
		fmt.Fprintf(w, "  a crash cut the process inside a tick; to kill at the write counts it recorded (%s):\n    %s\n", how, doc.ReplayCuts)
	}
	if o.noShrink {
		fmt.Fprintf(w, "  replay: %s\n", doc.Replay)
		return doc, cx.Bundle, nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "shrinking the counterexample (budget %d plays, %d at once)...\n", o.shrinkPlays, o.workers)
	shrunk, kept := shrinkCounterexample(cmd.Context(), cx, impl, implFlags, o, filepath.Join(dir, fuzz.ShrunkDir))
	doc.Shrunk = shrunk
	printShrunk(w, doc.Shrunk, doc.Replay)
	if kept == nil {
		return doc, cx.Bundle, nil
	}
	return doc, kept, nil
}

func printFound(w io.Writer, cx *fuzz.Counterexample, raw string) {
	if cx.Source == "generated" {
		fmt.Fprintf(w, "\ncounterexample: run %d, %s\n", cx.Index, cx.Seeds.Line())
		fmt.Fprintf(w, "  profile: %s\n", cx.Profile)
	} else {
		fmt.Fprintf(w, "\ncounterexample: the kept bundle %s still fails, %s\n", cx.Source, cx.Seeds.Line())
	}
	fmt.Fprintf(w, "  violated: %s\n", strings.Join(cx.Invariants(), ", "))
	printViolations(w, cx.Verdict().Violations, 10)
	fmt.Fprintf(w, "  as found: %d events, horizon %d, written to %s\n", len(shrink.Events(cx.Bundle)), cx.Bundle.Meta.Horizon, raw)
}

// shrinkCounterexample shrinks a counterexample, with the reference as
// control unless the reference is what failed, and writes the shrunk run to
// dir. It returns the shrunk bundle to keep, or nil when the shrink could
// not be done: that is reported in the document, not as an error, and the
// raw counterexample stands.
func shrinkCounterexample(ctx context.Context, cx *fuzz.Counterexample, impl play.Impl, implFlags []string, o fuzzOptions, dir string) (*shrunkJSON, *scenarios.Bundle) {
	budget := o.shrinkTime
	if budget == 0 {
		budget = -1 // the play budget alone
	}
	req := fuzz.ShrinkRequest{Impl: impl, Budget: budget, Plays: o.shrinkPlays, Workers: o.workers,
		MaxSteps: o.maxSteps, HarnessVersion: version, Context: ctx}
	if impl.Name != examples.ReferenceName {
		if ref, err := lookupImpl(examples.ReferenceName); err == nil {
			req.Control = &ref
		}
	}
	shrunk, s, err := fuzz.ShrinkCounterexample(cx, req)
	if err != nil {
		return &shrunkJSON{Error: err.Error()}, nil
	}
	if err := fuzz.WriteShrunk(dir, shrunk, s); err != nil {
		return &shrunkJSON{Error: err.Error()}, nil
	}
	bundlePath := filepath.Join(dir, fuzz.BundleJSON)
	var runSeed *uint64
	if run, ok := fuzz.GivenRunSeed(shrunk.Run); ok {
		runSeed = &run
	}
	return &shrunkJSON{Invariant: s.Invariant, BundleHash: s.ShrunkHash, Stats: &s.Stats, Violations: shrunk.Verdict().Violations,
		Dir: dir, Replay: fuzz.ReplayCommand(implFlags, shrunk, bundlePath, o.maxSteps),
		Timeline: fuzz.TimelineCommand(bundlePath, shell.Join(implFlags...), runSeed)}, s.Bundle
}

func printShrunk(w io.Writer, s *shrunkJSON, rawReplay string) {
	if s.Error != "" {
		fmt.Fprintf(w, "  not shrunk: %s\n", s.Error)
		fmt.Fprintf(w, "  replay: %s\n", rawReplay)
		return
	}
	st := s.Stats
	fmt.Fprintf(w, "  shrunk:   %d events, horizon %d (%d oracle calls, %s), still violates %s, written to %s\n",
		st.EventsAfter, st.TicksAfter, st.OracleCalls, st.Elapsed.Round(time.Millisecond), s.Invariant, s.Dir)
	if st.BudgetHit {
		fmt.Fprintln(w, "  the shrink budget ran out: the shrunk bundle still fails but may not be minimal (raise --shrink-plays)")
	}
	fmt.Fprintf(w, "  replay:   %s\n", s.Replay)
	fmt.Fprintf(w, "  timeline: %s\n", s.Timeline)
}

// reportInvalid writes a run on which the oracles disagreed and prints the
// questions they answered differently.
func reportInvalid(w io.Writer, cx *fuzz.Counterexample, implFlags []string, o fuzzOptions, dir string) (*invalidJSON, error) {
	path, err := fuzz.WriteInvalid(dir, cx)
	if err != nil {
		return nil, err
	}
	doc := &invalidJSON{ProfileRecord: cx.Record(), BundleHash: cx.BundleHash, Guard: cx.Judgement.Guard, Dir: path,
		Replay: fuzz.ReplayCommand(implFlags, cx, filepath.Join(path, fuzz.BundleJSON), o.maxSteps)}
	fmt.Fprintf(w, "\nINVALID: run %d, %s: the level checker and the history checker disagree, a harness bug, not a verdict\n",
		cx.Index, cx.Seeds.Line())
	fmt.Fprintf(w, "  %s\n", cx.Judgement.Guard.String())
	fmt.Fprintf(w, "  written to %s\n  replay: %s\n", path, doc.Replay)
	return doc, nil
}

// reportDivergence keeps the bundle that played two ways and prints where
// the plays first differ.
func reportDivergence(w io.Writer, d *fuzz.Divergence, dir string) (*divergenceJSON, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, fuzz.BundleJSON)
	data, err := d.Bundle.MarshalIndent()
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("writing the diverging bundle: %w", err)
	}
	fmt.Fprintf(w, "\ndeterminism broke at run %d, %s: the two plays first differ at %s\n", d.Index, d.Seeds.Line(), d.Where)
	fmt.Fprintf(w, "  first play:  %s\n    %s\n", d.HashA, d.A)
	fmt.Fprintf(w, "  second play: %s\n    %s\n", d.HashB, d.B)
	fmt.Fprintf(w, "  bundle written to %s\n", path)
	return &divergenceJSON{Run: d.Index, Seeds: d.Seeds, Profile: d.Profile, Where: d.Where, HashA: d.HashA, HashB: d.HashB,
		First: d.A, Second: d.B, Bundle: path}, nil
}

func printFuzzSummary(w io.Writer, doc fuzzJSON, cov fuzz.Coverage) {
	outcome := doc.Outcome
	switch {
	case doc.Interrupted && doc.Outcome == outcomeInterrupted:
		// An interrupted campaign that found nothing has not shown the
		// implementation clean: it says how far it got (D67).
		outcome = fmt.Sprintf("interrupted after %d runs, no failure found so far", doc.Runs)
	case doc.Interrupted:
		outcome += " (interrupted)"
	}
	fmt.Fprintf(w, "\n%d run(s) of campaign %s in %.1fs (%s runs/s): %s\n", doc.Runs, doc.Campaign, doc.Seconds, rate(doc.RunsPerSecond), outcome)
	if doc.Runs == 0 {
		return
	}
	printCounts(w, doc.FailedRuns, doc.InvalidRuns, doc.Found, doc.Coverage)
	if missing := cov.Missing(); len(missing) > 0 {
		fmt.Fprintf(w, "never reached: %s\n", strings.Join(missing, ", "))
	}
}

// printCounts writes a campaign's failure counts by invariant and its
// coverage, as amr fuzz and amr fuzz merge both show them.
func printCounts(w io.Writer, failed, invalid int, found map[string]int, coverage []fuzz.CounterCount) {
	fmt.Fprintf(w, "failed runs: %d, invalid runs: %d\n", failed, invalid)
	for _, id := range slices.Sorted(maps.Keys(found)) {
		fmt.Fprintf(w, "  %-36s %8d run(s)\n", id, found[id])
	}
	fmt.Fprintln(w, "coverage (runs that reached each situation):")
	width := 0
	for _, c := range coverage {
		width = max(width, len(c.Name))
	}
	for _, c := range coverage {
		fmt.Fprintf(w, "  %-*s %8d\n", width, c.Name, c.Runs)
	}
}
