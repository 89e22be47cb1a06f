package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newRunCmd) }

// runJSON is the --json document of amr run.
type runJSON struct {
	Impl    string            `json:"impl"`
	Process map[string]string `json:"process,omitempty"`
	Runs    int               `json:"runs"`
	// Seeds hold the run seed given to every bundle, with --seed.
	seeds.Seeds
	Passed  bool            `json:"passed"`
	Invalid bool            `json:"invalid"`
	Results []*suite.Report `json:"results"`
}

const runLong = `Run plays each bundle --runs times on the deterministic simulator against an
implementation, judges every run with the checker, and prints a table with one
row per scenario and one column per level (pass, FAIL, or - for untested). A
level passes only when it holds in every run (spec §5: five consecutive runs).
A pass whose checks judged nothing in any run (no reply due, no crash with
work pending, no escalation: nothing the level is about happened) reads
vacuous, and pass* when that was so in some runs only; both are passes, and
--json keeps "levels" as pass/fail/untested beside "vacuous" and
"obligations" (docs/invariants.md).

ORIGIN is the drafting origin tag the spec puts on every level result (§5):
model-based (every draft cites stub model calls), model-free (every draft
says "model-free"), mixed, or none (no draft was declared).

With no BUNDLE, every published scenario is run. --seed is the run seed of
every bundle; scored run k plays with the engine seed derived from it and k.
Without --seed each bundle's run seed derives from its name, so two
invocations agree byte for byte. The first line printed is the seeds; over
several bundles without --seed, where each has its own, a RUN SEED column
shows the row's. 'amr run --seed <run seed> BUNDLE' plays a row's runs
again, and 'amr replay BUNDLE --seed <run seed>' shows its run 1 tick by
tick. --json has the same seeds as decimal strings: results[].run_seed, and
each run's run_seed and engine_seed in results[].runs[].

--out DIR keeps every run: DIR/<scenario>/run-<i>/sandbox/ (the spec's files),
run.jsonl (the harness's run log) and verdict.json, plus DIR/report.json.
A kept sandbox can be judged again with 'amr check'. A process run also keeps
stdout.log, stderr.log and run-dir/, a copy of its whole run directory (every
file the implementation made, its private state and subdirectories included),
at most --keep-bytes each; a copy the bound cut holds AMR-CUT.txt, and amr run
says which.

--impl-cmd "CMD ARGS" runs the implementation as an OS process on a sandbox
directory, under the clock regime --regime: quiescence (the spec's: the clock
advances after --window without log writes, or is forced after --timeout),
step ("tick N" on stdin, "idle N" on stdout) or once (the command runs per
tick). A failed process run's directory is left for reading and its path
printed. See docs/processes.md.

Every run is judged by two independent oracles, the level checker and the
history checker (docs/history.md); when their counts disagree the run is
INVALID, a harness bug, and amr exits 3.

--ledger FILE appends one receipt per run to FILE (docs/receipts.md) and skips
a run whose (bundle hash, implementation, harness version, engine seed) already has a
receipt, writing a cheap "skipped" receipt that copies its verdict; --force
runs everything again. A process implementation is identified by its
executable and every file its command names (a script); --identity-dir and
--identity-version add what it does not name. Where amr cannot know what runs
(sh -c, python -m, go run, ...), nothing is skipped; nor is a run whose
receipt fails verification.

Progress goes to stderr, a line per run and, in the quiescence and once regimes
where ticks cost wall-clock time, a line per tick, when stderr is a terminal or
with --progress; never to stdout, so the report and --json are unchanged.

When every bundle is small (at most 1,000 messages over at most 10,000 ticks),
the garbage collector runs at GOGC=400 as in amr fuzz, unless GOGC is set.

Exit 0 when every level up to each scenario's top level passed, 1 when any
failed, 2 on bad input, 3 when the oracles disagreed.`

type runOptions struct {
	implName string
	runs     int
	seed     uint64
	out      string
	asJSON   bool
	maxSteps int
	shown    int
	proc     *processFlags
	ledgerAt string
	force    bool
	ident    *identityFlags
	keep     byteSize
	progress bool
}

func newRunCmd() *cobra.Command {
	o := runOptions{keep: sim.DefaultKeepBytes}
	cmd := &cobra.Command{
		Use:   "run [BUNDLE...]",
		Short: "Run scenario bundles against an implementation and report each level",
		Long:  runLong,
		Example: `  amr run                                  # the published suite against the reference, 5 runs each
  amr run --impl weak-no-send scenarios/l0-respond
  amr run --runs 1 --seed 7 --out out/ --json
  amr run --impl-cmd "amr serve-impl reference" --regime step`,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, args, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.implName, "impl", "reference", "implementation to run (see 'amr impls')")
	f.IntVar(&o.runs, "runs", scenarios.ScoredRuns, "scored runs per bundle")
	f.Uint64Var(&o.seed, "seed", 0, "run seed of every bundle: scored run k plays with an engine seed derived from it and k (default: derived from each bundle's name)")
	f.StringVar(&o.out, "out", "", "keep every run's sandbox, run log and verdict under this directory")
	f.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	f.IntVar(&o.maxSteps, "max-steps", 0, "steps per tick before a forced advance (default 64)")
	f.IntVar(&o.shown, "show", 10, "violations shown per failed scenario in the table (0: all)")
	f.StringVar(&o.ledgerAt, "ledger", "", "append a receipt per run to this ledger, and skip runs it already holds (docs/receipts.md)")
	f.BoolVar(&o.force, "force", false, "with --ledger: run everything, even runs the ledger already holds")
	f.BoolVar(&o.progress, "progress", false, "report progress on stderr (per run, and per tick in the quiescence and once regimes) even when stderr is not a terminal")
	f.Var(&o.keep, "keep-bytes", "with --out and --impl-cmd: bound of the copy of each run's whole directory (run-dir/)")
	o.proc = addProcessFlags(cmd)
	o.ident = addIdentityFlags(cmd)
	return cmd
}

func runRun(cmd *cobra.Command, args []string, o runOptions) error {
	impl, err := resolveImpl(cmd, o.implName, o.proc)
	if err != nil {
		return err
	}
	ctx, stop := interruptContext(cmd)
	defer stop()
	if o.runs < 1 {
		return usageErr("--runs must be at least 1")
	}
	bundles, err := loadBundles(cmd.ErrOrStderr(), args)
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOGC"); !set && lightRuns(bundles) {
		defer debug.SetGCPercent(debug.SetGCPercent(fuzzGCPercent))
	}
	cfg := suite.Config{Runs: o.runs, Out: o.out, MaxSteps: o.maxSteps, Context: ctx, Force: o.force, HarnessVersion: version,
		KeepBytes: int64(o.keep)}
	if cmd.Flags().Changed("seed") {
		cfg.RunSeed = &o.seed
	}
	if err := ledgerConfig(&cfg, o.ledgerAt, o.ident, impl); err != nil {
		return err
	}
	receipted := len(cfg.Ledger.Receipts())
	if errw := cmd.ErrOrStderr(); o.progress || isTerminal(errw) {
		pp := &runProgress{w: errw, terminal: isTerminal(errw)}
		cfg.Progress, cfg.Ticks = pp.report, slowRegime(impl.Process)
		defer pp.finish()
	}
	doc, err := runAll(bundles, impl, cfg)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeJSONFile(filepath.Join(o.out, "report.json"), doc); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	seedLine := runSeedsLine(cfg.RunSeed, bundles)
	if err := emit(w, o.asJSON, doc, func() { printRun(w, seedLine, doc, o, cfg.Ledger, receipted) }); err != nil {
		return err
	}
	if doc.Invalid {
		return invalidErr()
	}
	if !doc.Passed {
		return &exitError{code: exitFail}
	}
	return nil
}

// Bundles at most this large play runs whose live heap is a few megabytes
// (the published ones are a few dozen messages over a few hundred ticks),
// where the collector's default target makes it run every few runs.
const (
	lightMessages = 1000
	lightHorizon  = 10000
)

// lightRuns reports whether every bundle is small enough that amr run can
// trade heap for collector time as amr fuzz does (D146). A large bundle's
// live heap is its own size, and four times that again is not spent on it.
func lightRuns(bundles []namedBundle) bool {
	for _, nb := range bundles {
		if len(nb.bundle.Inbox) > lightMessages || nb.bundle.Meta.Horizon > lightHorizon {
			return false
		}
	}
	return true
}

// runAll runs every bundle and gathers the reports into the --json
// document.
func runAll(bundles []namedBundle, impl play.Impl, cfg suite.Config) (runJSON, error) {
	doc := runJSON{Impl: impl.Name, Runs: cfg.Runs, Passed: true}
	if cfg.RunSeed != nil {
		doc.Seeds = seeds.OfRun(*cfg.RunSeed)
	}
	if impl.Process != nil {
		doc.Process = impl.Process.Params()
	}
	for _, nb := range bundles {
		rep, err := suite.Run(nb.bundle, impl, cfg)
		if err != nil {
			return doc, &exitError{code: exitBad, err: fmt.Errorf("%s: %w", nb.path, err)}
		}
		doc.Results = append(doc.Results, rep)
		doc.Passed = doc.Passed && rep.Passed()
	}
	doc.Invalid = anyInvalid(doc.Results)
	return doc, nil
}

// printRun writes the human report of amr run, its seed line first.
func printRun(w io.Writer, seedLine string, doc runJSON, o runOptions, l *ledger.Ledger, receipted int) {
	fmt.Fprintln(w, seedLine)
	printTable(w, doc.Results, o.shown, seedLine == namedSeedsLine)
	passed := 0
	for _, r := range doc.Results {
		if r.Passed() {
			passed++
		}
	}
	vacuous := ""
	if n := vacuousLevels(doc.Results); n > 0 {
		vacuous = fmt.Sprintf(", %d vacuous level(s)", n)
	}
	fmt.Fprintf(w, "\n%d scenario(s): %d passed, %d failed%s (impl %s, %d run(s) each)\n",
		len(doc.Results), passed, len(doc.Results)-passed, vacuous, doc.Impl, doc.Runs)
	if doc.Process != nil {
		printProcess(w, doc)
	}
	printModelCalls(w, doc)
	if o.out != "" {
		fmt.Fprintf(w, "artifacts kept in %s\n", o.out)
		printCutCopies(w, doc, o.out)
	}
	printDiagnostics(w, doc.Results, l, receipted)
}

func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(data, '\n'), 0o644)
}

func init() {
	runBundle = func(b *scenarios.Bundle, implName string, runs int) ([scenarios.Levels]string, error) {
		var levels [scenarios.Levels]string
		impl, err := lookupImpl(implName)
		if err != nil {
			return levels, err
		}
		rep, err := suite.Run(b, impl, suite.Config{Runs: runs})
		if err != nil {
			return levels, err
		}
		for i, name := range suite.LevelNames {
			levels[i] = rep.Levels[name]
		}
		return levels, nil
	}
}
