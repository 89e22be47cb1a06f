// Package suite runs scenario bundles against an implementation, each run
// one judged play (package play), and aggregates the verdicts the way spec
// §5 scores them: a level passes only when it holds in every run. It keeps
// the runs it is asked to keep, writes their receipts to a ledger, and
// owns the regression baseline over the published scenarios.
package suite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Level verdicts.
const (
	Pass     = checker.Pass
	Fail     = checker.Fail
	Untested = checker.Untested
	// Vacuous is how a level that passed with no obligation judged is
	// shown; Levels never holds it (see obligations.go).
	Vacuous = checker.Vacuous
)

// LevelNames are the report keys of the levels, in order.
var LevelNames = [scenarios.Levels]string{"L0", "L1", "L2", "L3", "L4", "L5", "L6"}

// Config says how to run a bundle.
type Config struct {
	// Runs is how many scored runs per bundle (spec §5: five, scenarios.ScoredRuns).
	Runs int
	// RunSeed, when set, is the run seed of every bundle: scored run i plays
	// with the engine seed seeds.Engine(RunSeed, i). Otherwise each bundle's
	// run seed derives from its name (seeds.Named), so two invocations agree
	// byte for byte.
	RunSeed *uint64
	// Out, when set, is where every run's sandbox, run log and verdict are
	// kept: Out/<scenario>/run-<i>/.
	Out string
	// MaxSteps bounds the steps per tick (0: the engine's default).
	MaxSteps int
	// Context cancels process runs (nil: never).
	Context context.Context
	// Ledger, when set, gets one receipt per run; a run it already holds a
	// "ran" receipt for is not played again but gets a cheap "skipped"
	// receipt that copies the verdict forward, unless Force is set.
	Ledger *ledger.Ledger
	Force  bool
	// HarnessVersion is recorded in receipts and is part of the memo key.
	HarnessVersion string
	// Identity, when set, is the implementation's identity for receipts
	// (see Identity); otherwise Run takes it from the implementation,
	// nothing declared. An unknown identity is never skipped.
	Identity *ledger.Identity
	// KeepBytes bounds the copy of a process run's whole directory kept
	// under Out (0: sim.DefaultKeepBytes).
	KeepBytes int64
	// Progress, when set, is told when each run starts and ends, and with
	// Ticks the end of every tick: for a person waiting, never part of a
	// report.
	Progress func(Progress)
	Ticks    bool
}

// Progress is one step of a bundle's runs.
type Progress struct {
	Scenario  string
	Run, Runs int
	// Tick is set (with Horizon) at the end of a tick of the run; Done
	// once the run is judged, with Passed and Skipped.
	Tick, Horizon int
	Done          bool
	Passed        bool
	Skipped       bool
}

// progress reports a step when a caller asked for it.
func (cfg Config) progress(p Progress) {
	if cfg.Progress != nil {
		cfg.Progress(p)
	}
}

// RunReport is one scored run.
type RunReport struct {
	Run int `json:"run"`
	// Seeds are the run seed the run was played from and its engine seed
	// (and the campaign seed, for a run a campaign generated).
	seeds.Seeds
	Levels map[string]string `json:"levels"`
	// Obligations counts, per tested level, the items its checks judged;
	// Judged counts them per invariant; Vacuous lists the levels that
	// passed with none (checker.Verdict).
	Obligations map[string]int      `json:"obligations"`
	Judged      map[string]int      `json:"judged"`
	Vacuous     []string            `json:"vacuous"`
	Origin      string              `json:"origin"`
	Violations  []checker.Violation `json:"violations"`
	Ticks       int                 `json:"ticks"`
	Steps       int                 `json:"steps"`
	Crashes     int                 `json:"crashes"`
	Forced      int                 `json:"forced_advances"`
	Dir         string              `json:"-"`
	// Kept is where a failed process run's directory was left, when no
	// Out directory was asked for.
	Kept string `json:"kept,omitempty"`
	// Status is "ran", or "skipped" when the ledger already held the run.
	Status string `json:"status"`
	// Invalid is set when the two oracles disagreed (see Guard): the run
	// is a harness bug, neither a pass nor a fail.
	Invalid  bool                `json:"invalid"`
	Guard    checker.GuardResult `json:"guard"`
	History  history.Verdict     `json:"history"`
	Surprise history.Surprise    `json:"surprise"`
	// Receipt is the content hash of the run's receipt, with a ledger.
	Receipt string `json:"receipt,omitempty"`
	// Model counts, when the stub refused a request or ignored a feature
	// of one, what its log says it did (absent otherwise).
	Model *sandbox.ModelCallStats `json:"model_calls,omitempty"`
	// Process is what a process run's processes did: every exit and its
	// code, every kill, forced advance and hang, and the tail of stderr.
	Process *sim.ProcessFacts `json:"process,omitempty"`
	// Class is the failed run's class (decision D55): "mechanism" when the
	// implementation ran throughout and violated an invariant, "process"
	// when an instance ended by itself or was killed for good (hung, a
	// bound): a harness/process outcome, not the mechanism's verdict.
	// Empty for a run that passed.
	Class string `json:"failure_class,omitempty"`
	// RunDir is the copy of a process run's whole directory kept under
	// Out, as RunDirName: every file the implementation made, its logs,
	// and what the copy's bound cut.
	RunDir *sim.RunDirKept `json:"run_dir,omitempty"`
}

// RunDirName is where a kept process run's whole directory is copied,
// beside its judged sandbox.
const RunDirName = "run-dir"

// passed reports whether every level up to top passed in the run, and
// nothing else made it fail.
func (rr RunReport) passed(top int) bool {
	if rr.Invalid || rr.ProcessDown() {
		return false
	}
	for i := 0; i <= top && i < len(LevelNames); i++ {
		if rr.Levels[LevelNames[i]] != Pass {
			return false
		}
	}
	return true
}

// Failure classes of a run (decision D55).
const (
	ClassMechanism = "mechanism"
	ClassProcess   = "process"
)

// ProcessDown reports whether the run's implementation was killed by the
// harness for a reason of its own (hung, a bound): such a run never passes,
// whatever its levels say.
func (rr RunReport) ProcessDown() bool { return rr.Process != nil && rr.Process.KilledForGood() }

// Report is one bundle's result over all its runs.
type Report struct {
	Scenario   string `json:"scenario"`
	BundleHash string `json:"bundle_hash"`
	Impl       string `json:"impl"`
	// Seeds hold the run seed the runs were played from (--seed, or the
	// one the bundle's name gives): 'amr run --seed' with it plays the same
	// runs, 'amr replay --seed' with it shows run 1. Empty for a report of
	// artifacts no run of amr made.
	seeds.Seeds
	TopLevel int               `json:"top_level"`
	Levels   map[string]string `json:"levels"`
	// Obligations and Judged sum the runs' counts; VacuousRuns counts, per
	// tested level, the runs in which it was vacuous; Vacuous lists the
	// levels that passed and were vacuous in every run.
	Obligations map[string]int      `json:"obligations"`
	Judged      map[string]int      `json:"judged"`
	VacuousRuns map[string]int      `json:"vacuous_runs"`
	Vacuous     []string            `json:"vacuous"`
	Origin      string              `json:"origin"`
	Violations  []checker.Violation `json:"violations"`
	Runs        []RunReport         `json:"runs"`
	// Invalid is set when any run's oracles disagreed.
	Invalid bool `json:"invalid"`
	// Skipped counts the runs the ledger already held.
	Skipped  int            `json:"skipped"`
	Surprise SurpriseTotals `json:"surprise"`
	// Model sums the runs' Model counts (absent when none has any).
	Model *sandbox.ModelCallStats `json:"model_calls,omitempty"`
	// ProcessDown counts the runs whose implementation was killed as hung
	// or for a bound; any makes the report fail.
	ProcessDown int `json:"process_down_runs,omitempty"`
	// Classes counts the failed runs per failure class.
	Classes map[string]int `json:"failure_classes,omitempty"`
}

// Passed reports whether every level up to the top level passed. An
// invalid report never passes (nor fails: see Invalid).
func (r *Report) Passed() bool {
	if r.Invalid || r.ProcessDown > 0 {
		return false
	}
	for i := 0; i <= r.TopLevel && i < len(LevelNames); i++ {
		if r.Levels[LevelNames[i]] != Pass {
			return false
		}
	}
	return true
}

// Run plays a bundle cfg.Runs times against impl and judges each run.
func Run(b *scenarios.Bundle, impl play.Impl, cfg Config) (*Report, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = 1
	}
	hash, err := b.Hash()
	if err != nil {
		return nil, fmt.Errorf("%s: hashing the bundle: %w", b.Meta.Name, err)
	}
	if cfg.Ledger != nil {
		cfg.identity(impl) // once per bundle: a process's files are read once
	}
	rep := &Report{Scenario: b.Meta.Name, BundleHash: hash, Impl: impl.Name, TopLevel: b.Meta.TopLevel,
		Seeds: seeds.OfRun(seeds.RunOr(cfg.RunSeed, b.Meta.Name))}
	for i := 1; i <= cfg.Runs; i++ {
		if cfg.Context != nil && cfg.Context.Err() != nil {
			// An interrupted suite stops between runs: what it kept is
			// whole runs, never half of one.
			return nil, fmt.Errorf("%s run %d: %w", b.Meta.Name, i, cfg.Context.Err())
		}
		rr, err := runOnce(b, impl, cfg, hash, i)
		if err != nil {
			return nil, err
		}
		rep.Runs = append(rep.Runs, rr)
		cfg.progress(Progress{Scenario: b.Meta.Name, Run: i, Runs: cfg.Runs, Done: true,
			Passed: rr.passed(b.Meta.TopLevel), Skipped: rr.Status == StatusSkipped})
	}
	rep.aggregate()
	rep.diagnostics()
	return rep, nil
}

// NewReport folds runs already judged into one bundle's report, as Run
// does; amr check uses it for the one run it judges.
func NewReport(scenario, impl string, top int, runs []RunReport) *Report {
	rep := &Report{Scenario: scenario, Impl: impl, TopLevel: top, Runs: runs}
	rep.aggregate()
	rep.diagnostics()
	return rep
}

func runOnce(b *scenarios.Bundle, impl play.Impl, cfg Config, hash string, i int) (RunReport, error) {
	s := seeds.OfScored(seeds.RunOr(cfg.RunSeed, b.Meta.Name), i)
	seed := uint64(*s.Engine)
	if rr, ok, err := memoized(b.Meta.Name, impl, cfg, hash, s, i); err != nil || ok {
		return rr, err
	}
	cfg.progress(Progress{Scenario: b.Meta.Name, Run: i, Runs: cfg.Runs})
	var onTick func(int, int)
	if cfg.Progress != nil && cfg.Ticks {
		onTick = func(tick, horizon int) {
			cfg.progress(Progress{Scenario: b.Meta.Name, Run: i, Runs: cfg.Runs, Tick: tick, Horizon: horizon})
		}
	}
	popt := play.Options{MaxSteps: cfg.MaxSteps, Context: cfg.Context, KeepWorkdir: true, OnTick: onTick,
		BundleHash: hash}
	var dir string
	if cfg.Out != "" {
		// A kept run's log goes to its file as it is made, and the run is
		// judged from there (D280): at 10^5 messages the log held in memory
		// was the largest part of the play's peak.
		dir = filepath.Join(cfg.Out, b.Meta.Name, fmt.Sprintf("run-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return RunReport{}, err
		}
		popt.LogFile = filepath.Join(dir, sandbox.RunLogFile)
	}
	p, err := play.Play(b, impl, s, popt)
	if err != nil {
		if dir != "" {
			// Play removed the log; the folders made for it go if empty.
			_ = os.Remove(dir)
			_ = os.Remove(filepath.Dir(dir))
		}
		err = fmt.Errorf("%s run %d: %w", b.Meta.Name, i, err)
		if rerr := failedReceipt(b.Meta.Name, impl, cfg, hash, seed, i, err); rerr != nil {
			return RunReport{}, rerr
		}
		return RunReport{}, err
	}
	res, j := p.Result, p.Judgement
	v := j.Level
	rr := NewRunReport(i, s, res, j)
	if cfg.Out != "" {
		rr.Dir = dir
		if err := keep(rr.Dir, res, &rr, j.Compiled, cfg.KeepBytes, true); err != nil {
			_ = res.Cleanup()
			return RunReport{}, err
		}
	}
	if cfg.Ledger != nil {
		// The receipt hashes every artifact: history.jsonl is rendered
		// whole only for it.
		files, err := artifacts(res, rr, j.Compiled.Bytes(), dir)
		if err == nil {
			rr.Receipt, err = ranReceipt(b.Meta.Name, impl, cfg, hash, rr, files)
		}
		if err != nil {
			_ = res.Cleanup()
			return RunReport{}, err
		}
	}
	// A process run leaves its directory behind: removed once the run
	// passed or was kept under Out, left for reading when it failed.
	if res.Workdir != "" {
		if cfg.Out != "" || !v.Failed() && !rr.ProcessDown() {
			if err := res.Cleanup(); err != nil {
				return RunReport{}, fmt.Errorf("removing %s: %w", res.Workdir, err)
			}
		} else {
			rr.Kept = res.Workdir
		}
	}
	return rr, nil
}

// NewRunReport is run i's report: what the run did and how both oracles
// judged it.
func NewRunReport(i int, s seeds.Seeds, res *sim.Result, j play.Judgement) RunReport {
	rr := VerdictRun(j)
	rr.Run, rr.Seeds = i, s
	rr.Ticks, rr.Steps, rr.Crashes, rr.Forced = res.Ticks, res.Steps, res.Crashes, res.Forced
	rr.Process = res.Process
	rr.Class = failureClass(j.Level.Failed(), res.Process)
	if res.Files != nil {
		// The oracles parsed model-calls.jsonl already; their parse is reused.
		calls, _ := j.Parsed.ModelCalls(res.Files.View(sandbox.ModelCalls))
		if st := sandbox.SummarizeModelCallLines(calls); st.Notable() {
			rr.Model = &st
		}
	}
	return rr
}

// failureClass classes a run (decision D55): a run whose process ended by
// itself or was killed for good is the process's outcome, whatever the
// levels then show; any other failed run is the mechanism's.
func failureClass(failed bool, p *sim.ProcessFacts) string {
	switch {
	case p != nil && (p.KilledForGood() || failed && p.Exited()):
		return ClassProcess
	case failed:
		return ClassMechanism
	}
	return ""
}

// VerdictRun is the report of a run judged from its artifacts alone, with
// nothing known of how it was played: what both oracles found.
func VerdictRun(j play.Judgement) RunReport {
	v := j.Level
	rr := RunReport{Levels: LevelMap(v.Levels), Obligations: ObligationMap(v), Judged: v.Judged,
		Vacuous: VacuousNames(v), Origin: v.Origin, Violations: v.Violations,
		Status: StatusRan, Invalid: j.Invalid(), Guard: j.Guard, History: j.History, Surprise: j.Surprise}
	if rr.Violations == nil {
		rr.Violations = []checker.Violation{}
	}
	if rr.Judged == nil {
		rr.Judged = map[string]int{}
	}
	return rr
}

// LevelMap turns the checker's level array into the report's map.
func LevelMap(levels [scenarios.Levels]string) map[string]string {
	m := make(map[string]string, len(levels))
	for i, l := range levels {
		m[LevelNames[i]] = l
	}
	return m
}

// aggregate folds the runs: a level passes only when it passed in every
// run; the origin is the runs' common tag, or mixed.
func (r *Report) aggregate() {
	r.Levels = map[string]string{}
	for i, name := range LevelNames {
		verdict := Untested
		if i <= r.TopLevel {
			verdict = Pass
			for _, run := range r.Runs {
				if run.Levels[name] != Pass {
					verdict = Fail
				}
			}
		}
		r.Levels[name] = verdict
	}
	r.foldObligations()
	origins := map[string]bool{}
	for _, run := range r.Runs {
		if run.Origin != "none" {
			origins[run.Origin] = true
		}
	}
	switch len(origins) {
	case 0:
		r.Origin = "none"
	case 1:
		for o := range origins {
			r.Origin = o
		}
	default:
		r.Origin = "mixed"
	}
	r.Violations = []checker.Violation{}
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, v := range run.Violations {
			key := v.Invariant + "|" + fmt.Sprint(v.Evidence)
			if !seen[key] {
				seen[key] = true
				r.Violations = append(r.Violations, v)
			}
		}
	}
	sort.SliceStable(r.Violations, func(i, j int) bool { return r.Violations[i].Invariant < r.Violations[j].Invariant })
	r.ProcessDown, r.Classes = 0, nil
	for _, run := range r.Runs {
		if run.ProcessDown() {
			r.ProcessDown++
		}
		if run.Class != "" {
			if r.Classes == nil {
				r.Classes = map[string]int{}
			}
			r.Classes[run.Class]++
		}
	}
	r.Model = nil
	for _, run := range r.Runs {
		if run.Model != nil {
			if r.Model == nil {
				r.Model = &sandbox.ModelCallStats{}
			}
			r.Model.Add(*run.Model)
		}
	}
}

// KeepJudged writes one run's artifacts: the sandbox files under
// dir/sandbox, the run log as dir/run.jsonl, the history both oracles read as
// dir/history.jsonl, the verdict as dir/verdict.json, and for a process run
// its stdout.log and stderr.log.
func KeepJudged(dir string, res *sim.Result, rr RunReport, j play.Judgement) error {
	return keep(dir, res, &rr, j.Compiled, 0, false)
}

// keep writes a run's artifacts, its compiled history as history.jsonl
// among them, and for a process run whose directory is still on disk a
// copy of it, at most keepBytes, which the verdict then names. The run log
// and the history are streamed to their files: at 10^5 messages they are
// hundreds of megabytes each, and a copy of either whole was the run's peak.
// logKept says the run log is in dir already, written as the run was made.
func keep(dir string, res *sim.Result, rr *RunReport, hist *history.History, keepBytes int64, logKept bool) error {
	if err := sandbox.CopyTo(res.Files, filepath.Join(dir, "sandbox")); err != nil {
		return fmt.Errorf("keeping sandbox: %w", err)
	}
	if !logKept {
		if err := streamFile(filepath.Join(dir, sandbox.RunLogFile), res.WriteLog); err != nil {
			return err
		}
	}
	if err := streamFile(filepath.Join(dir, history.FileName), func(w io.Writer) error {
		_, err := hist.WriteTo(w)
		return err
	}); err != nil {
		return err
	}
	if err := res.KeepOutput(dir); err != nil {
		return fmt.Errorf("keeping the process output: %w", err)
	}
	kept, err := res.KeepRunDir(filepath.Join(dir, RunDirName), keepBytes)
	if err != nil {
		return fmt.Errorf("keeping the run directory: %w", err)
	}
	if kept != nil {
		kept.Dir = RunDirName
		rr.RunDir = kept
	}
	data, err := json.MarshalIndent(rr, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "verdict.json"), append(data, '\n'), 0o644)
}

// streamFile writes what write writes to path through a bounded buffer,
// the file made as os.WriteFile makes it.
func streamFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
