package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

// namedSeedsLine is the seed line of a command that plays several bundles,
// each from the run seed its name gives (amr run shows each in its RUN SEED
// column).
const namedSeedsLine = "seed: run=each bundle's own, derived from its name"

// runSeedsLine is the first line of a command that plays bundles from their
// run seeds: the one given to all, the one bundle's own, or the rule.
func runSeedsLine(given *uint64, bundles []namedBundle) string {
	switch {
	case given != nil:
		return seeds.OfRun(*given).Line()
	case len(bundles) == 1:
		return seeds.OfRun(seeds.Named(bundles[0].bundle.Meta.Name)).Line()
	}
	return namedSeedsLine
}

// cell renders one level verdict for the table.
func cell(v string) string {
	switch v {
	case suite.Pass:
		return suite.Pass
	case suite.Fail:
		return "FAIL"
	case suite.Vacuous:
		return suite.Vacuous
	}
	return "-"
}

// levelCell renders a report's level: a pass that judged no obligation in
// some of its runs is marked "pass*" (see the legend).
func levelCell(r *suite.Report, level string) string {
	s := r.Status(level)
	if s == suite.Pass && r.PartlyVacuous(level) {
		return "pass*"
	}
	return cell(s)
}

// printLegend explains the vacuous and pass* cells of a table, when it has
// any, naming each such level.
func printLegend(w io.Writer, reports []*suite.Report) {
	var vacuous, partly []string
	for _, r := range reports {
		for _, name := range suite.LevelNames {
			switch {
			case r.Status(name) == suite.Vacuous:
				vacuous = append(vacuous, r.Scenario+" "+name)
			case r.PartlyVacuous(name):
				partly = append(partly, fmt.Sprintf("%s %s in %d of %d runs", r.Scenario, name, r.VacuousRuns[name], len(r.Runs)))
			}
		}
	}
	if len(vacuous) > 0 {
		fmt.Fprintf(w, "\nvacuous: passed with no obligation judged in any run; nothing the level is about happened, so it is no evidence:\n  %s\n",
			strings.Join(vacuous, ", "))
	}
	if len(partly) > 0 {
		fmt.Fprintf(w, "\npass*: passed, but no obligation was judged in some runs:\n  %s\n", strings.Join(partly, ", "))
	}
}

// vacuousLevels counts the vacuous levels of the reports.
func vacuousLevels(reports []*suite.Report) int {
	n := 0
	for _, r := range reports {
		n += len(r.Vacuous)
	}
	return n
}

// printTable writes the per-scenario, per-level table and, under it, the
// violations of failed scenarios (at most maxShown each). With runSeeds,
// when the seed line cannot name one run seed for all rows (several
// bundles, each with the run seed its name gives), a RUN SEED column shows
// each row's: 'amr run --seed' with it plays the row's runs again.
func printTable(w io.Writer, reports []*suite.Report, maxShown int, runSeeds bool) {
	// The tab writer hands each cell to its writer on its own: buffered, the
	// table is one write instead of one per cell and padding.
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	header := "SCENARIO\tL0\tL1\tL2\tL3\tL4\tL5\tL6\tORIGIN\tRUNS"
	procs := anyProcess(reports)
	if procs {
		header += "\tPROCESS"
	}
	if runSeeds {
		header += "\tRUN SEED"
	}
	fmt.Fprintln(tw, header)
	for _, r := range reports {
		var cells []string
		for _, name := range suite.LevelNames {
			cells = append(cells, levelCell(r, name))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d", r.Scenario, strings.Join(cells, "\t"), r.Origin, len(r.Runs))
		if procs {
			fmt.Fprintf(tw, "\t%s", processCell(r))
		}
		if runSeeds && r.Run != nil {
			fmt.Fprintf(tw, "\t%s", r.Run)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	bw.Flush()
	printLegend(w, reports)
	if procs {
		printProcessEvents(w, reports)
	}
	for _, r := range reports {
		if len(r.Violations) == 0 {
			continue
		}
		who := r.Scenario
		if r.Impl != "" {
			who += " (" + r.Impl + ")"
		}
		fmt.Fprintf(w, "\n%s: %d violation(s)\n", who, len(r.Violations))
		printViolations(w, r.Violations, maxShown)
	}
}

func printViolations(w io.Writer, vs []checker.Violation, maxShown int) {
	for i, v := range vs {
		if maxShown > 0 && i == maxShown {
			fmt.Fprintf(w, "  ... %d more (use --json for all)\n", len(vs)-maxShown)
			break
		}
		ids := []string{}
		if v.MessageID != "" {
			ids = append(ids, "message "+v.MessageID)
		}
		if v.WorkID != "" {
			ids = append(ids, "work "+v.WorkID)
		}
		if v.DraftID != "" {
			ids = append(ids, "draft "+v.DraftID)
		}
		fmt.Fprintf(w, "  %-28s tick %-4d %s\n", v.Invariant, v.Tick, v.Detail)
		if len(ids) > 0 || len(v.Evidence) > 0 {
			fmt.Fprintf(w, "  %-28s           %s  [%s]\n", "", strings.Join(ids, ", "), strings.Join(v.Evidence, " "))
		}
	}
}

// printJSON writes v as indented JSON: the --json output of every command.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// emit writes a command's result: doc as JSON with --json, else what human
// prints for a person.
func emit(w io.Writer, asJSON bool, doc any, human func()) error {
	if asJSON {
		return printJSON(w, doc)
	}
	human()
	return nil
}
