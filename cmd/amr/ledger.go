package main

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newLedgerCmd) }

// defaultLedger is the ledger file when none is named.
const defaultLedger = "ledger.jsonl"

func newLedgerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Verify the ledger of run receipts that 'amr run --ledger' writes",
		Long: `Every run of 'amr run --ledger FILE' appends a receipt to FILE: the bundle's
canonical hash, the implementation's fingerprint, the harness version, the run
seed, the status (ran, skipped, failed-to-run), the verdict, the hash of every
artifact, and the content hash of the previous receipt. See docs/receipts.md.`,
	}
	cmd.AddCommand(newLedgerVerifyCmd())
	return cmd
}

func newLedgerVerifyCmd() *cobra.Command {
	var (
		head   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "verify [FILE]",
		Short: "Recompute every receipt's hash, walk the chain, re-hash the kept artifacts",
		Long: `Verify recomputes every receipt's content hash over its canonical JSON, follows
every prev link from the first receipt, checks that each skipped receipt copies
the verdict of an earlier ran receipt of the same run, and re-hashes every
artifact that is still on disk (paths are relative to the ledger's directory).
Any edit, deletion or reordering is reported by position: the line of the
ledger file. A receipt deleted from the end leaves no trace in the chain; pass
the head you published with --head to catch that too.

FILE defaults to ` + defaultLedger + `. Exit 0 when the ledger verifies clean,
1 on any problem, 2 when the file cannot be read.`,
		Example: `  amr run --runs 1 --out out/ --ledger out/ledger.jsonl
  amr ledger verify out/ledger.jsonl
  amr ledger verify --head sha256:4f2a... out/ledger.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := defaultLedger
			if len(args) == 1 {
				path = args[0]
			}
			rep, err := ledger.Verify(path, head)
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			w := cmd.OutOrStdout()
			if err := emit(w, asJSON, rep, func() { printLedgerReport(w, rep) }); err != nil {
				return err
			}
			if !rep.OK() {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&head, "head", "", "the content hash the last receipt must have")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printLedgerReport(w io.Writer, rep *ledger.Report) {
	fmt.Fprintf(w, "%s: %d receipt(s): %d ran, %d skipped, %d failed-to-run\n",
		rep.Path, rep.Receipts, rep.Ran, rep.Skipped, rep.Failed)
	fmt.Fprintf(w, "artifacts: %d re-hashed, %d not on disk\n", rep.ArtifactsChecked, rep.ArtifactsMissing)
	if rep.Head != "" {
		fmt.Fprintf(w, "head: %s\n", rep.Head)
	}
	if rep.OK() {
		fmt.Fprintln(w, "ok: every hash and every link verifies")
		return
	}
	fmt.Fprintf(w, "%d problem(s):\n", len(rep.Problems))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range rep.Problems {
		fmt.Fprintf(tw, "  position %d\t%s\t%s\n", p.Position, p.Kind, p.Detail)
	}
	tw.Flush()
}

// openLedger opens the ledger amr run appends to.
func openLedger(path string) (*ledger.Ledger, error) {
	l, err := ledger.Open(path)
	if err != nil {
		return nil, &exitError{code: exitBad, err: fmt.Errorf("--ledger: %w", err)}
	}
	return l, nil
}

// printDiagnostics writes what the table does not show: runs the two
// oracles disagreed on, model calls no surprise justified, and what the
// ledger did.
func printDiagnostics(w io.Writer, reports []*suite.Report, l *ledger.Ledger, before int) {
	for _, r := range reports {
		if r.Invalid {
			for _, run := range r.Runs {
				if run.Invalid {
					fmt.Fprintf(w, "INVALID %s run %d: %s (a harness bug, not a verdict)\n", r.Scenario, run.Run, run.Guard.String())
				}
			}
		}
	}
	for _, r := range reports {
		if r.Surprise.Unattributed > 0 {
			fmt.Fprintf(w, "surprise: %s: %d of %d model call(s) justified by no surprise\n", r.Scenario, r.Surprise.Unattributed, r.Surprise.Calls)
		}
	}
	if l != nil {
		skipped, runs := 0, 0
		for _, r := range reports {
			skipped += r.Skipped
			runs += len(r.Runs)
		}
		fmt.Fprintf(w, "ledger %s: %d receipt(s) appended, %d run(s) skipped as already receipted; artifact copies in %s\n",
			l.Path(), len(l.Receipts())-before, skipped, filepath.Join(filepath.Dir(l.Path()), ledger.ObjectsDir)+string(filepath.Separator))
	}
}

// anyInvalid reports whether any report's oracles disagreed.
func anyInvalid(reports []*suite.Report) bool {
	for _, r := range reports {
		if r.Invalid {
			return true
		}
	}
	return false
}

// invalidErr is the exit of a command whose oracles disagreed.
func invalidErr() error {
	return &exitError{code: exitInvalid, err: fmt.Errorf("the two oracles disagree: the results are invalid (see INVALID above)")}
}
