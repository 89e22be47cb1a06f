package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newRegressCmd) }

// Hooks for tests: what regress runs and against what.
var (
	regressImpls     = builtinImpls
	regressScenarios = publishedBundles
)

func builtinImpls() []play.Impl {
	var out []play.Impl
	for _, im := range examples.All() {
		out = append(out, play.Impl{Name: im.Name, New: im.New})
	}
	return out
}

func publishedBundles() ([]*scenarios.Bundle, error) {
	pubs, err := scenarios.Published()
	if err != nil {
		return nil, err
	}
	var out []*scenarios.Bundle
	for _, p := range pubs {
		out = append(out, p.Bundle)
	}
	return out, nil
}

const regressLong = `Regress runs every published scenario against every built-in implementation
(--runs runs each, seeds derived from the scenario names as 'amr run' does) and
compares the verdict of every (scenario, implementation, level) with the
committed baseline. It fails when a level that passed now fails, and when a
weak implementation passes a level it failed (a scenario that stopped
catching its defect: lost detection), and when a level that passed with
something judged now passes vacuously, judging nothing (hollowed: the
scenario stopped exercising it); it lists every change in either direction.
The reference passing a level it failed is an improvement.

--update rewrites the baseline from this run, deliberately; commit it with the
change that explains it.

--impl-cmd measures one OS process instead of the built-in implementations
(docs/processes.md), under --name (else its command line), and compares it
with the baseline's rows of that name only; a process is held to its own rows
as the reference is (passing more is an improvement). --update then replaces
that name's rows and keeps every other row. Name it reference to hold the
reference run as a process to the reference's rows.

The baseline is the repository's testdata/baseline.json, found from the
working directory upward (the nearest go.mod of the amr module), so regress
reads and --update writes the same file from any folder of the repository;
outside the repository it refuses unless --baseline names a file.

Exit 0 when nothing that passed now fails, no detection was lost and no level
was hollowed, 1 otherwise, 2 on bad
input (a missing or unreadable baseline without --update), 3 when the two
oracles disagree on a run.`

type regressOptions struct {
	path           string
	runs           int
	update, asJSON bool
	// given is whether --baseline named the file; otherwise it is the
	// repository's, wherever regress runs in it.
	given bool
	// process, when set, is the one implementation measured (--impl-cmd).
	process *play.Impl
}

func newRegressCmd() *cobra.Command {
	var o regressOptions
	var proc *processFlags
	cmd := &cobra.Command{
		Use:   "regress",
		Short: "Compare every built-in implementation on every published scenario with the baseline",
		Long:  regressLong,
		Example: `  amr regress
  amr regress --update                     # after a deliberate change
  amr regress --runs 1 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.given = cmd.Flags().Changed("baseline")
			if proc.cmdline != "" {
				impl, err := resolveImpl(cmd, "", proc)
				if err != nil {
					return err
				}
				o.process = &impl
			} else if err := proc.exclusive(cmd); err != nil {
				return err
			}
			_, stop := interruptContext(cmd)
			defer stop()
			return runRegress(cmd.OutOrStdout(), o)
		},
	}
	proc = addProcessFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.path, "baseline", suite.DefaultBaseline, "the baseline file (default: the repository's, found from the working directory)")
	f.IntVar(&o.runs, "runs", scenarios.ScoredRuns, "scored runs per scenario and implementation")
	f.BoolVar(&o.update, "update", false, "rewrite the baseline from this run")
	f.BoolVar(&o.asJSON, "json", false, "print the comparison as JSON")
	return cmd
}

func runRegress(w io.Writer, o regressOptions) error {
	if o.runs < 1 {
		return usageErr("--runs must be at least 1")
	}
	if !o.given {
		var err error
		if o.path, err = committedBaseline(); err != nil {
			return err
		}
	}
	var base *suite.Baseline
	if !o.update {
		var err error
		if base, err = suite.ReadBaseline(o.path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usageErr("no baseline at %s: create it with 'amr regress --update'", o.path)
			}
			return &exitError{code: exitBad, err: err}
		}
	}
	bundles, err := regressScenarios()
	if err != nil {
		return &exitError{code: exitBad, err: err}
	}
	impls, reference := regressImpls(), examples.ReferenceName
	if o.process != nil {
		impls, reference = []play.Impl{*o.process}, o.process.Name
	}
	now, err := suite.Measure(bundles, impls, o.runs)
	if err != nil {
		if errors.Is(err, suite.ErrInvalid) {
			return &exitError{code: exitInvalid, err: err}
		}
		return &exitError{code: exitBad, err: err}
	}
	// With --update, the changes listed are those against the baseline
	// being replaced, when there is one.
	prev := now
	if base != nil {
		prev = base.Results
	} else if old, err := suite.ReadBaseline(o.path); err == nil {
		prev = old.Results
	}
	written := now
	if o.process != nil {
		written = append(otherRows(prev, reference), now...)
		suite.SortResults(written)
		prev = rowsOf(prev, reference)
	}
	r := suite.Compare(prev, now, reference)
	r.Baseline, r.Runs, r.Results = o.path, o.runs, len(now)
	if o.update {
		if err := suite.WriteBaseline(o.path, o.runs, written); err != nil {
			return err
		}
		r.Updated, r.Passed = true, true
	}
	if err := emit(w, o.asJSON, r, func() { printRegression(w, r, base, len(bundles), len(impls)) }); err != nil {
		return err
	}
	if !r.Passed {
		return &exitError{code: exitFail}
	}
	return nil
}

// rowsOf keeps the baseline rows of one implementation.
func rowsOf(rs []suite.BaselineResult, impl string) []suite.BaselineResult {
	var out []suite.BaselineResult
	for _, r := range rs {
		if r.Impl == impl {
			out = append(out, r)
		}
	}
	return out
}

// otherRows keeps the baseline rows of every other implementation.
func otherRows(rs []suite.BaselineResult, impl string) []suite.BaselineResult {
	var out []suite.BaselineResult
	for _, r := range rs {
		if r.Impl != impl {
			out = append(out, r)
		}
	}
	return out
}

func printRegression(w io.Writer, r suite.Comparison, base *suite.Baseline, nScenarios, nImpls int) {
	fmt.Fprintln(w, namedSeedsLine)
	fmt.Fprintf(w, "%d scenario(s) x %d implementation(s), %d run(s) each, against %s\n", nScenarios, nImpls, r.Runs, r.Baseline)
	if base != nil && base.Runs != r.Runs {
		fmt.Fprintf(w, "note: the baseline was recorded with %d run(s) each\n", base.Runs)
	}
	for _, s := range r.Edited {
		fmt.Fprintf(w, "note: %s changed since the baseline (content hash differs)\n", s)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label string, c suite.Change, note string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", label, c.Scenario, c.Impl, c.Level)
		if note != "" {
			fmt.Fprintf(tw, "\t%s", note)
		}
		fmt.Fprintln(tw)
	}
	for _, c := range r.Regressions {
		row(fmt.Sprintf("%s -> FAIL", cell(c.Before)), c, "regression")
	}
	for _, c := range r.Lost {
		row(fmt.Sprintf("FAIL -> %s", cell(c.After)), c, "lost: a weak implementation is no longer caught here")
	}
	for _, c := range r.Hollowed {
		row("pass -> vacuous", c, "hollowed: the level passes but judges nothing now")
	}
	for _, c := range r.Improvements {
		row(fmt.Sprintf("FAIL -> %s", cell(c.After)), c, "")
	}
	// Levels that appeared or disappeared together read as one row.
	for i := 0; i < len(r.Other); {
		c, levels := r.Other[i], []string{r.Other[i].Level}
		j := i + 1
		for ; j < len(r.Other); j++ {
			d := r.Other[j]
			if d.Scenario != c.Scenario || d.Impl != c.Impl || d.Before != c.Before || d.After != c.After {
				break
			}
			levels = append(levels, d.Level)
		}
		c.Level = strings.Join(levels, " ")
		row(fmt.Sprintf("%s -> %s", cell(c.Before), cell(c.After)), c, "")
		i = j
	}
	tw.Flush()
	switch {
	case r.Updated:
		fmt.Fprintf(w, "baseline written: %s (%d results)\n", r.Baseline, r.Results)
	case len(r.Regressions)+len(r.Lost)+len(r.Hollowed)+len(r.Improvements)+len(r.Other) == 0:
		fmt.Fprintf(w, "no change: %d results match the baseline\n", r.Results)
	default:
		fmt.Fprintf(w, "%d regression(s), %d lost detection(s), %d hollowed level(s), %d improvement(s), %d other change(s)\n",
			len(r.Regressions), len(r.Lost), len(r.Hollowed), len(r.Improvements), len(r.Other))
	}
}
