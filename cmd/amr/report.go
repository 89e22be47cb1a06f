package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/suite"
)

// cell renders one level verdict for the table.
func cell(v string) string {
	switch v {
	case suite.Pass:
		return "pass"
	case suite.Fail:
		return "FAIL"
	}
	return "-"
}

// printTable writes the per-scenario, per-level table and, under it, the
// violations of failed scenarios (at most maxShown each). Reports of runs
// amr played get a SEED column: the campaign seed that plays them again.
func printTable(w io.Writer, reports []*suite.Report, maxShown int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	seeded := len(reports) > 0 && reports[0].Seed != nil
	header := "SCENARIO\tL0\tL1\tL2\tL3\tL4\tL5\tL6\tORIGIN\tRUNS"
	if seeded {
		header += "\tSEED"
	}
	fmt.Fprintln(tw, header)
	for _, r := range reports {
		var cells []string
		for _, name := range suite.LevelNames {
			cells = append(cells, cell(r.Levels[name]))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d", r.Scenario, strings.Join(cells, "\t"), r.Origin, len(r.Runs))
		if seeded && r.Seed != nil {
			fmt.Fprintf(tw, "\t%d", *r.Seed)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, r := range reports {
		if len(r.Violations) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s): %d violation(s)\n", r.Scenario, r.Impl, len(r.Violations))
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
