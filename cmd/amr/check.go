package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newCheckCmd) }

// checkJSON is the --json document of amr check.
type checkJSON struct {
	Scenario   string              `json:"scenario"`
	BundleHash string              `json:"bundle_hash"`
	Impl       string              `json:"impl"`
	Sandbox    string              `json:"sandbox"`
	RunLog     string              `json:"run_log"`
	Notes      []string            `json:"notes"` // what the verdict could not see
	Levels     map[string]string   `json:"levels"`
	Origin     string              `json:"origin"`
	Violations []checker.Violation `json:"violations"`
	// FixtureDefects are faults of the harness's own files (spec §5
	// fixture-defect): never the implementation's failure.
	FixtureDefects []checker.FixtureDefect `json:"fixture_defects,omitempty"`
	// Obligations, Judged and Vacuous: what the checks judged, and the
	// levels that passed with nothing judged (docs/invariants.md).
	Obligations map[string]int `json:"obligations"`
	Judged      map[string]int `json:"judged"`
	Vacuous     []string       `json:"vacuous"`
	// Invalid is set when the level checker and the history oracle
	// disagree (docs/history.md): a harness bug, not a verdict.
	Invalid  bool                `json:"invalid"`
	Guard    checker.GuardResult `json:"guard"`
	History  history.Verdict     `json:"history"`
	Surprise history.Surprise    `json:"surprise"`
}

// noLogNote is what a verdict without a run log cannot see: the files
// hold only what is left, not what was once written (spec §2: "there is no
// unsend").
const noLogNote = "no run log: rewrites of append-only files cannot be seen"

// noLogStampNote is what a verdict without a run log cannot place: under
// stamp_scheduled an approval or signal that fired late carries the tick
// it was due, and only the run log says when it was written (D72).
const noLogStampNote = "no run log: the bundle stamps late approvals and signals with the tick they were due, which is read as the tick they were written"

const checkLong = `Check judges the artifacts of one run: the spec's files in --sandbox, written by
'amr run --out' or by any other harness, against the bundle that produced them.

With a run log (run.jsonl, from amr's engine) the checker times every line by
when the harness saw it written and never trusts the implementation's own
timestamps, and judges drafts, outbox and audit as they were written: a line
the implementation took back still counts, and the rewrite is L0.append-only.
Without one only what is left in the files can be judged, and the output says
so. The log is taken from --log, or found beside the sandbox
(DIR/../run.jsonl); --no-log judges by the files' own ticks, as for artifacts
from another harness.

Both oracles judge the sandbox, the level checker and the history checker; when
their counts disagree the verdict is INVALID, a harness bug, and amr exits 3.

A line of a harness-written file the checker cannot read (today: the stub's
model-calls.jsonl) is listed as a FIXTURE DEFECT, the harness's fault and not
the implementation's; what it makes unjudgeable is not judged, everything else
is, and the exit status follows what was judged.

Exit 0 when every level up to the scenario's top level passes, 1 otherwise, 2 on
bad input, 3 when the oracles disagree.`

type checkOptions struct {
	bundlePath, dir, logPath string
	noLog, asJSON            bool
	maxFileBytes             int64
}

func newCheckCmd() *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check --bundle BUNDLE --sandbox DIR",
		Short: "Judge a sandbox already on disk, with no engine involved",
		Long:  checkLong,
		Example: `  amr run --runs 1 --out out/ scenarios/l0-respond
  amr check --bundle scenarios/l0-respond --sandbox out/l0-respond/run-1/sandbox`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runCheck(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.bundlePath, "bundle", "", "the bundle the run played (directory or single-JSON file)")
	f.StringVar(&o.dir, "sandbox", "", "the sandbox directory to judge")
	f.StringVar(&o.logPath, "log", "", "the run log (default: DIR/../run.jsonl when present)")
	f.BoolVar(&o.noLog, "no-log", false, "ignore any run log and judge by the files' own ticks")
	f.BoolVar(&o.asJSON, "json", false, "print the verdict as JSON")
	f.Int64Var(&o.maxFileBytes, "max-file-bytes", safefile.DefaultLimit,
		"refuse a sandbox file or run log larger than this many bytes (a bound against hostile input; raise it for runs of 10^5 messages)")
	return cmd
}

func runCheck(cmd *cobra.Command, o checkOptions) error {
	if o.bundlePath == "" || o.dir == "" {
		return usageErr("check needs --bundle and --sandbox")
	}
	bundles, err := loadBundles(cmd.ErrOrStderr(), []string{o.bundlePath})
	if err != nil {
		return err
	}
	b := bundles[0].bundle
	if o.maxFileBytes <= 0 {
		return usageErr("--max-file-bytes must be a positive number of bytes")
	}
	files, err := play.ReadSandboxUpTo(o.dir, o.maxFileBytes)
	if err != nil {
		return &exitError{code: exitBad, err: tooLargeHint(err)}
	}
	// Held unchanged to the end: the parses may point into them.
	for _, data := range files {
		defer sandbox.Freeze(data)()
	}
	doc := checkJSON{Scenario: b.Meta.Name, Sandbox: o.dir, Notes: []string{}}
	log, closeLog, err := checkLog(o, &doc)
	if err != nil {
		return err
	}
	defer closeLog()
	if doc.RunLog == "" {
		// Only the engine saw the logs as they were written.
		doc.Notes = append(doc.Notes, noLogNote)
		if b.Meta.StampScheduled {
			doc.Notes = append(doc.Notes, noLogStampNote)
		}
	}
	if doc.BundleHash, err = b.Hash(); err != nil {
		return &exitError{code: exitBad, err: err}
	}
	j := play.Judge(b, files, log)
	v := j.Level
	doc.Invalid, doc.Guard, doc.History, doc.Surprise = j.Invalid(), j.Guard, j.History, j.Surprise
	doc.Levels, doc.Origin, doc.Violations = suite.LevelMap(v.Levels), v.Origin, v.Violations
	doc.FixtureDefects = v.FixtureDefects
	if doc.Violations == nil {
		doc.Violations = []checker.Violation{}
	}
	run := suite.VerdictRun(j)
	doc.Obligations, doc.Judged, doc.Vacuous = run.Obligations, run.Judged, run.Vacuous
	rep := suite.NewReport(doc.Scenario, doc.Impl, b.Meta.TopLevel, []suite.RunReport{run})
	rep.Origin, rep.Violations = doc.Origin, doc.Violations
	w := cmd.OutOrStdout()
	if err := emit(w, o.asJSON, doc, func() { printCheck(w, doc, rep) }); err != nil {
		return err
	}
	if doc.Invalid {
		return invalidErr()
	}
	if !rep.Passed() {
		return &exitError{code: exitFail}
	}
	return nil
}

// checkLog reads the run log amr check judges with: --log, else the one
// beside the sandbox, unless --no-log. The document records which, and the
// implementation its start record names. The log stays open until the
// returned function closes it: its state edits are read from it again as
// they are replayed (D212).
func checkLog(o checkOptions, doc *checkJSON) ([]sandbox.LogRecord, func(), error) {
	none := func() {}
	if o.noLog {
		return nil, none, nil
	}
	path := o.logPath
	if path == "" {
		if cand := filepath.Join(filepath.Dir(filepath.Clean(o.dir)), sandbox.RunLogFile); fileExists(cand) {
			path = cand
		}
	}
	if path == "" {
		return nil, none, nil
	}
	f, size, err := openLog(path, o.maxFileBytes)
	if err != nil {
		return nil, none, &exitError{code: exitBad, err: tooLargeHint(err)}
	}
	recs, err := sandbox.ReadRunLog(f, size)
	if err != nil {
		f.Close()
		return nil, none, &exitError{code: exitBad, err: fmt.Errorf("run log: %w", err)}
	}
	doc.RunLog = path
	for _, r := range recs {
		if r.Kind == sandbox.LogStart {
			doc.Impl = r.Start().Impl
		}
	}
	return recs, func() { f.Close() }, nil
}

// openLog is safefile.ReadFile that leaves the file open and returns its
// size instead of its bytes: the log is read a line at a time, a large
// run's being hundreds of megabytes.
func openLog(path string, limit int64) (*os.File, int64, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, 0, err
	}
	size, err := io.Copy(io.Discard, io.LimitReader(f, limit+1))
	switch {
	case err != nil:
		err = fmt.Errorf("%s: %w", path, err)
	case size > limit:
		err = fmt.Errorf("%s: %w: larger than %d bytes", path, safefile.ErrTooLarge, limit)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, size, nil
}

func printCheck(w io.Writer, doc checkJSON, rep *suite.Report) {
	printTable(w, []*suite.Report{rep}, 0, false)
	printFixtureDefects(w, doc.FixtureDefects)
	if doc.RunLog == "" {
		fmt.Fprintln(w, "\njudged without a run log: ticks are the implementation's own")
		for _, n := range doc.Notes {
			fmt.Fprintln(w, n)
		}
	} else {
		fmt.Fprintf(w, "\nrun log: %s\n", doc.RunLog)
	}
	if doc.Invalid {
		fmt.Fprintf(w, "INVALID: %s (a harness bug, not a verdict)\n", doc.Guard.String())
	}
}

// printFixtureDefects lists the harness's own faults apart from the
// violations, so that no reader takes them for the implementation's.
func printFixtureDefects(w io.Writer, ds []checker.FixtureDefect) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nFIXTURE DEFECTS: %d (the harness's files are wrong, not the implementation)\n", len(ds))
	for _, d := range ds {
		fmt.Fprintf(w, "  %-28s %s\n", fmt.Sprintf("%s:%d", d.File, d.Line), d.Detail)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// tooLargeHint says how to judge a file past the size bound anyway.
func tooLargeHint(err error) error {
	if errors.Is(err, safefile.ErrTooLarge) {
		return fmt.Errorf("%w (raise the bound with --max-file-bytes)", err)
	}
	return err
}
