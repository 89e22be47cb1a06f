package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/conform"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
)

func init() { commands = append(commands, newConformCmd) }

const conformLong = `Conform reads a submission declaration (submission.json: the levels attempted,
the drafting origin, the mechanism per invariant and the known gaps; see
docs/conformance.md), runs the probes every declared capability implies (the
published scenarios that evaluate it) against the implementation, and reports
per capability:

  match         declared, and the probes hold it
  mismatch      declared, and a probe violates it (the evidence is shown)
  unverifiable  declared absent, so never exercised; never counted as a match

The implementation is the declaration's "implementation" unless --impl names
another; --impl-cmd probes an OS process instead (docs/processes.md), reported
under --name, else under the declaration's implementation. Exit 0 when nothing mismatched, 1 on any mismatch, 2 on bad input,
3 when the two oracles disagreed on a probe.`

func newConformCmd() *cobra.Command {
	var (
		declPath, implName string
		runs               int
		asJSON             bool
		proc               *processFlags
	)
	cmd := &cobra.Command{
		Use:   "conform --declaration FILE [--impl NAME]",
		Short: "Compare what a submission declares with what its runs show",
		Long:  conformLong,
		Example: `  amr conform --declaration examples/submissions/reference.json
  amr conform --declaration examples/submissions/weak-ignore-escalation.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if declPath == "" {
				return usageErr("conform needs --declaration FILE")
			}
			if runs < 1 {
				return usageErr("--runs must be at least 1")
			}
			sub, err := conform.Load(declPath)
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			impl, err := conformImpl(cmd, sub, implName, proc)
			if err != nil {
				return err
			}
			_, stop := interruptContext(cmd)
			defer stop()
			rep, err := conform.Check(sub, impl, conform.Config{Runs: runs})
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			w := cmd.OutOrStdout()
			if err := emit(w, asJSON, rep, func() { printConformance(w, rep) }); err != nil {
				return err
			}
			switch {
			case rep.Counts[conform.Invalid] > 0:
				return invalidErr()
			case !rep.Conforms():
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&declPath, "declaration", "", "the submission declaration (submission.json)")
	f.StringVar(&implName, "impl", "", "implementation to probe (default: the declaration's)")
	f.IntVar(&runs, "runs", scenarios.ScoredRuns, "runs per probe scenario")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	proc = addProcessFlags(cmd)
	return cmd
}

// conformImpl is the implementation conform probes: the declaration's, or
// the one --impl names, or with --impl-cmd a process that carries the
// declaration's name unless --name gives another.
func conformImpl(cmd *cobra.Command, sub *conform.Submission, implName string, proc *processFlags) (play.Impl, error) {
	if proc.cmdline == "" {
		if err := proc.exclusive(cmd); err != nil {
			return play.Impl{}, err
		}
		name := sub.Implementation
		if implName != "" {
			name = implName
		}
		return lookupImpl(name)
	}
	if proc.name == "" && sub.Implementation != "" {
		proc.name = sub.Implementation
	}
	return resolveImpl(cmd, implName, proc)
}

func printConformance(w io.Writer, rep *conform.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CAPABILITY\tDECLARED\tSTATUS\tPROBES")
	for _, r := range rep.Results {
		declared := r.Declared
		if r.Observed != "" {
			declared += " (observed " + r.Observed + ")"
		}
		status := r.Status
		if status == conform.Mismatch {
			status = "MISMATCH"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.Capability, declared, status, len(r.Probes))
	}
	tw.Flush()
	for _, r := range rep.Results {
		if r.Status != conform.Mismatch {
			continue
		}
		fmt.Fprintf(w, "\n%s: declared %s, but:\n", r.Capability, r.Declared)
		for _, e := range r.Evidence {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	var parts []string
	for _, s := range []string{conform.Match, conform.Mismatch, conform.Unverifiable, conform.Invalid} {
		if n := rep.Counts[s]; n > 0 || s != conform.Invalid {
			parts = append(parts, fmt.Sprintf("%d %s", rep.Counts[s], s))
		}
	}
	fmt.Fprintf(w, "\n%s (impl %s, %d run(s) per probe)\n", strings.Join(parts, ", "), rep.Implementation, rep.Runs)
}
