package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
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
		Short: "Recompute every receipt's hash, walk the chain, check each receipt against its kept artifacts",
		Long: `Verify recomputes every receipt's content hash over its canonical JSON, follows
every prev link from the first receipt, checks that each skipped receipt copies
the verdict of an earlier ran receipt of the same run, and re-hashes every
artifact that is still on disk (paths are relative to the ledger's directory).
A ran receipt is then held to what its artifacts say: the verdict.json it names
(levels, origin, violations, counts, run and seed) and its run log's start
record (bundle, bundle hash, seed), so a receipt edited and re-hashed, the chain
re-linked after it, is still found (artifact-disagrees). Any problem is
reported by position: the line of the ledger file. The artifacts that could
not be read back are named, receipt by receipt. A receipt deleted from the end
leaves no trace in the chain; pass the head you published with --head to catch
that too.

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
	printUnavailable(w, rep.Unavailable)
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

// printUnavailable names, receipt by receipt, what verify could not read
// back, so a clean report never hides what it did not check.
func printUnavailable(w io.Writer, us []ledger.Unavailable) {
	if len(us) == 0 {
		return
	}
	fmt.Fprintf(w, "not available to check, %d receipt(s):\n", len(us))
	for _, u := range us {
		what := strings.Join(u.Artifacts, ", ")
		if u.VerdictUnchecked {
			if what != "" {
				what += "; "
			}
			what += "its verdict was checked against no verdict.json"
		}
		fmt.Fprintf(w, "  position %d (%s run %d): %s\n", u.Position, u.Scenario, u.Run, what)
	}
}

// openLedger opens the ledger amr run appends to.
func openLedger(path string) (*ledger.Ledger, error) {
	l, err := ledger.Open(path)
	if err != nil {
		return nil, &exitError{code: exitBad, err: fmt.Errorf("--ledger: %w", err)}
	}
	return l, nil
}

// identityFlags declare what a process implementation is, beyond the
// files its command names (ledger.ProcessIdentity).
type identityFlags struct {
	dir, version string
}

func addIdentityFlags(cmd *cobra.Command) *identityFlags {
	f := &identityFlags{}
	cmd.Flags().StringVar(&f.dir, "identity-dir", "", "with --ledger and --impl-cmd: a directory whose content is part of the implementation's identity (its sources)")
	cmd.Flags().StringVar(&f.version, "identity-version", "", "with --ledger and --impl-cmd: a version string that is part of the implementation's identity")
	return f
}

// ledgerConfig opens the ledger and fixes the implementation's identity
// for its receipts, once for the whole command.
func ledgerConfig(cfg *suite.Config, at string, f *identityFlags, impl play.Impl) error {
	declared := f != nil && (f.dir != "" || f.version != "")
	switch {
	case declared && at == "":
		return usageErr("--identity-dir and --identity-version name the implementation in a ledger: give --ledger")
	case declared && impl.Process == nil:
		return usageErr("--identity-dir and --identity-version describe a process implementation (--impl-cmd); a built-in one is named by amr's version")
	case at == "":
		return nil
	}
	l, err := openLedger(at)
	if err != nil {
		return err
	}
	var d ledger.Declared
	if f != nil {
		d = ledger.Declared{Dir: f.dir, Version: f.version}
	}
	id, err := suite.Identity(impl, cfg.HarnessVersion, d)
	if err != nil {
		return usageErr("%v", err)
	}
	cfg.Ledger, cfg.Identity = l, &id
	return nil
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
		printLedgerTrust(w, l, before)
	}
}

// printLedgerTrust says why runs were played that a ledger might have
// skipped: receipts that failed verification, an identity amr cannot know.
func printLedgerTrust(w io.Writer, l *ledger.Ledger, before int) {
	if n := l.Withheld(); n > 0 {
		fmt.Fprintf(w, "ledger: %d ran receipt(s) fail verification and were not reused ('amr ledger verify %s' says why)\n", n, l.Path())
	}
	rs := l.Receipts()
	if len(rs) > before && rs[before].Impl.IdentityUnknown != "" {
		fmt.Fprintf(w, "ledger: the identity of %s is unknown (%s): no run was skipped; --identity-dir or --identity-version declares it\n",
			rs[before].Impl.Name, rs[before].Impl.IdentityUnknown)
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
