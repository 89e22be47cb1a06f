package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/report"
	"github.com/amr-bench/amr/timeline"
)

func init() { commands = append(commands, newReportCmd) }

const reportLong = `Report writes one self-contained HTML page (no network: its CSS, script and
data inline; it opens from disk and prints) from what amr run --out, amr fuzz
--out and amr replay --out keep. Each DIR is a report.json or a folder with
one (its kept runs are read too), a counterexample folder (raw/ and shrunk/)
or one run folder (sandbox/ and run.jsonl).

The page holds the scoreboard (implementations × levels over the latest result
of each scenario, with drafting origin, runs and forced advances, and effort
context: harness-observed, and self-reported marked as such), every FAIL with
its class (mechanism, adapter, fixture-defect: annulled and not counted), each
run's lanes over virtual ticks with every violation and the lines it cites,
the message flow per work item, and each counterexample's raw and shrunk
bundles side by side with the commands that replay it.

--submission DIR (repeatable) reads a submission directory: submission.json,
its code (lines counted mechanically, adapters/ apart), and optionally
classes.json (the failure classes it discloses) and effort.json
(self-reported effort). --classes FILE (repeatable) overrides classes; every
entry needs a justification. docs/report.md has the formats.

--max-file-bytes refuses a kept sandbox file or run log larger than this
(64 MiB unless raised): a run of 10^5 messages keeps an audit log and a run
log past it, and the refusal names the flag.

--json prints the page's data instead of writing HTML. Exit 2 on bad input.`

func newReportCmd() *cobra.Command {
	var (
		out             string
		asJSON, allRuns bool
		subs, classes   []string
		maxFileBytes    int64
	)
	cmd := &cobra.Command{
		Use:   "report DIR... [-o report.html]",
		Short: "write a self-contained HTML report: scoreboard, failure classes, run timelines, counterexamples",
		Long:  reportLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxFileBytes <= 0 {
				return usageErr("--max-file-bytes must be a positive number of bytes")
			}
			p, err := report.Build(args, report.Options{Submissions: subs, Overrides: classes, AllRuns: allRuns, MaxFileBytes: maxFileBytes})
			if err != nil {
				return &exitError{code: exitBad, err: tooLargeHint(err)}
			}
			return writePage(cmd, p, out, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", "report.html", "the HTML file to write (- for stdout)")
	f.BoolVar(&asJSON, "json", false, "print the page's data as JSON instead of writing HTML")
	f.BoolVar(&allRuns, "all-runs", false, "show every kept run, not only each scenario's first and its failed ones")
	f.StringArrayVar(&subs, "submission", nil, "a submission directory (or bare submission.json): effort context and disclosed failure classes")
	f.StringArrayVar(&classes, "classes", nil, "a failure-class override file; every entry must carry a justification")
	maxFileBytesFlag(cmd, &maxFileBytes)

	cmd.AddCommand(newReportDiffCmd())
	return cmd
}

// newReportDiffCmd is amr report diff.
func newReportDiffCmd() *cobra.Command {
	var diffOut string
	var asJSON bool
	var maxFileBytes int64
	diff := &cobra.Command{
		Use:   "diff A B [-o diff.html]",
		Short: "show where two runs' artifacts first differ",
		Long: `Diff compares two runs of the same bundle (two implementations, or two
seeds): two run folders, two amr run --out folders (paired by scenario and run)
or two counterexample folders (raw with raw, shrunk with shrunk). For each pair
it prints the first timeline entry at which they part and, per artifact, the
first line that differs, and writes the same as an HTML page beside both runs'
timelines with -o. Exit 0 when every artifact is byte-identical, 1 when they
differ, 2 on bad input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxFileBytes <= 0 {
				return usageErr("--max-file-bytes must be a positive number of bytes")
			}
			p, err := report.BuildDiff(args[0], args[1], report.Options{MaxFileBytes: maxFileBytes})
			if err != nil {
				return &exitError{code: exitBad, err: tooLargeHint(err)}
			}
			if asJSON || diffOut != "" {
				if err := writePage(cmd, p, diffOut, asJSON); err != nil {
					return err
				}
			}
			if !asJSON {
				printDiff(cmd.OutOrStdout(), p.Diff)
			}
			if !p.Diff.Same {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	diff.Flags().StringVarP(&diffOut, "out", "o", "", "also write the diff as an HTML page here")
	diff.Flags().BoolVar(&asJSON, "json", false, "print the diff page's data as JSON")
	maxFileBytesFlag(diff, &maxFileBytes)
	return diff
}

// maxFileBytesFlag is the bound on a kept sandbox file or run log a report
// reads, as amr check has it (D179, D228).
func maxFileBytesFlag(cmd *cobra.Command, v *int64) {
	cmd.Flags().Int64Var(v, "max-file-bytes", safefile.DefaultLimit,
		"refuse a kept sandbox file or run log larger than this many bytes (a bound against hostile input; raise it for runs of 10^5 messages)")
}

// writePage writes a page as HTML to a file (or stdout for "-"), or its
// data as JSON.
func writePage(cmd *cobra.Command, p *report.Page, out string, asJSON bool) error {
	if asJSON {
		return printJSON(cmd.OutOrStdout(), p)
	}
	var buf bytes.Buffer
	if err := p.WriteHTML(&buf); err != nil {
		return err
	}
	if out == "-" {
		_, err := cmd.OutOrStdout().Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "report written to %s (%d bytes)\n", out, buf.Len())
	return nil
}

// printDiff writes where two runs first differ, pair by pair.
func printDiff(w io.Writer, d *report.Diff) {
	fmt.Fprintf(w, "A: %s\nB: %s\n", d.A, d.B)
	for _, k := range d.OnlyA {
		fmt.Fprintf(w, "only in A: %s\n", k)
	}
	for _, k := range d.OnlyB {
		fmt.Fprintf(w, "only in B: %s\n", k)
	}
	for _, p := range d.Pairs {
		name := p.Key
		if name == "" {
			name = "the runs"
		}
		if p.Same {
			fmt.Fprintf(w, "%s: identical\n", name)
			continue
		}
		fmt.Fprintf(w, "%s: differ\n", name)
		if t := p.Timeline; t != nil {
			fmt.Fprintf(w, "  timeline: first differs at tick %d (entry %d)\n", t.Tick, t.Index)
			fmt.Fprintf(w, "    A: %s\n    B: %s\n", entryText(t.A), entryText(t.B))
		}
		for _, f := range p.Files {
			if f.Same {
				continue
			}
			where := fmt.Sprintf("line %d", f.Line)
			if f.Missing != "" {
				where += " (missing in " + f.Missing + ")"
			}
			fmt.Fprintf(w, "  %s: %s\n    A: %s\n    B: %s\n", f.File, where, f.A, f.B)
		}
	}
	if d.Same {
		fmt.Fprintln(w, "no difference")
	}
}

func entryText(e *timeline.Entry) string {
	if e == nil {
		return "(the timeline ends)"
	}
	s := fmt.Sprintf("tick %d %s %s %s", e.Tick, e.Who, e.What, e.Text)
	if e.Ref != "" {
		s += " [" + e.Ref + "]"
	}
	return s
}
