package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/shrink"
)

func init() { commands = append(commands, newShrinkCmd) }

// shrinkJSON is the --json document of amr shrink.
type shrinkJSON struct {
	Scenario  string `json:"scenario"`
	Impl      string `json:"impl"`
	Invariant string `json:"invariant"`
	seeds.Seeds
	Control      string            `json:"control,omitempty"`
	OriginalHash string            `json:"original_hash"`
	ShrunkHash   string            `json:"shrunk_hash"`
	Stats        shrink.Stats      `json:"stats"`
	Out          string            `json:"out,omitempty"`
	Replay       string            `json:"replay"`
	Bundle       *scenarios.Bundle `json:"bundle"`
}

const shrinkLong = `Shrink minimizes a bundle on which an implementation violates an invariant: it
removes conversations and events (delta debugging), fleet agents, rules,
conditions and anchors, shortens texts, compresses time and renumbers ids,
keeping only candidates that validate and on which the implementation still
violates the same invariant id. Without --invariant, the first violation of the
original run is the target. The result is 1-minimal over events.

Each candidate is run once, as 'amr run --runs 1 [--seed N]' plays it
(--seed is the run seed; without it the bundle's name gives it), so the
printed replay command shows the same run. The first line printed is the
seeds of the original's failing run. With a control (the
reference by default) a candidate counts only when the control passes every
level of it: the failure stays the implementation's, not the scenario's.

The shrunk bundle records its provenance in meta.origin (kind "shrunk", the
implementation, the invariant, the original and shrunk canonical hashes, and
the campaign seed and run of a generated original). --out DIR writes it in the directory form; otherwise its
single-JSON form is printed. --time bounds the shrink (checked between runs);
the report says when the budget stopped it before the end.

Exit 0 when the bundle was shrunk, 2 when it does not fail as asked.`

type shrinkOptions struct {
	implName, invariant, out, control string
	seed                              uint64
	budget                            time.Duration
	asJSON                            bool
	proc                              *processFlags
}

func newShrinkCmd() *cobra.Command {
	var o shrinkOptions
	cmd := &cobra.Command{
		Use:   "shrink BUNDLE --impl NAME [--invariant ID]",
		Short: "Shrink a failing bundle to the smallest one that still fails the same way",
		Long:  shrinkLong,
		Example: `  amr shrink scenarios/l2-govern --impl weak-send-without-approval --out shrunk/
  amr shrink found.json --impl reference --invariant L1.duplicate-effect --seed 7 --control ''`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runShrink(cmd, args[0], o) },
	}
	o.proc = addProcessFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.implName, "impl", "", "implementation that fails the bundle (see 'amr impls')")
	f.StringVar(&o.invariant, "invariant", "", "invariant id the shrunk bundle must still violate (default: the first violation)")
	f.Uint64Var(&o.seed, "seed", 0, "run seed of the failing run, as 'amr fuzz' prints it and 'amr run --seed' takes it (default: derived from the bundle's name)")
	f.DurationVar(&o.budget, "time", shrink.DefaultBudget, "time budget of the shrink")
	f.StringVar(&o.out, "out", "", "write the shrunk bundle to this directory (directory form)")
	f.StringVar(&o.control, "control", examples.ReferenceName, "implementation that must pass every candidate ('' for none)")
	f.BoolVar(&o.asJSON, "json", false, "print the report and the shrunk bundle as JSON")
	return cmd
}

// shrinkRequest turns the flags into a shrink request.
func shrinkRequest(cmd *cobra.Command, o shrinkOptions) (fuzz.ShrinkRequest, error) {
	if o.implName == "" && o.proc.cmdline == "" {
		return fuzz.ShrinkRequest{}, usageErr("shrink needs --impl (or --impl-cmd)")
	}
	impl, err := resolveImpl(cmd, o.implName, o.proc)
	if err != nil {
		return fuzz.ShrinkRequest{}, err
	}
	if o.invariant != "" {
		if _, ok := checker.Lookup(o.invariant); !ok {
			return fuzz.ShrinkRequest{}, usageErr("unknown invariant %q (see docs/invariants.md)", o.invariant)
		}
	}
	req := fuzz.ShrinkRequest{Impl: impl, Invariant: o.invariant, Budget: o.budget, HarnessVersion: version, Context: cmd.Context()}
	if cmd.Flags().Changed("seed") {
		req.RunSeed = &o.seed
	}
	if o.control != "" && o.control != impl.Name {
		c, err := lookupImpl(o.control)
		if err != nil {
			return fuzz.ShrinkRequest{}, err
		}
		req.Control = &c
	}
	return req, nil
}

func runShrink(cmd *cobra.Command, path string, o shrinkOptions) error {
	req, err := shrinkRequest(cmd, o)
	if err != nil {
		return err
	}
	bundles, err := loadBundles(cmd.ErrOrStderr(), []string{path})
	if err != nil {
		return err
	}
	b := bundles[0].bundle
	folderRunSeed(cmd, path, b, &req)
	res, err := fuzz.Shrink(b, req)
	if err != nil {
		return &exitError{code: exitBad, err: err}
	}
	if o.out != "" {
		if err := scenarios.SaveDir(res.Bundle, o.out); err != nil {
			return err
		}
	}
	target := o.out
	if target == "" {
		target = "BUNDLE"
	}
	doc := shrinkJSON{Scenario: b.Meta.Name, Impl: req.Impl.Name, Invariant: res.Invariant, Seeds: res.Seeds,
		OriginalHash: res.OriginalHash, ShrunkHash: res.ShrunkHash, Stats: res.Stats, Out: o.out,
		Replay: fuzz.TimelineCommand(target, implArgs(req.Impl.Name, o.proc), req.RunSeed), Bundle: res.Bundle}
	if req.Control != nil {
		doc.Control = req.Control.Name
	}
	w := cmd.OutOrStdout()
	if o.asJSON {
		return printJSON(w, doc)
	}
	printShrink(w, doc)
	if o.out == "" {
		data, err := res.Bundle.MarshalIndent()
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
		w.Write(data)
	}
	return nil
}

// folderRunSeed takes the run seed of a run folder's failing run (a fuzz
// counterexample's raw/ or shrunk/) when --seed does not give one: the seed
// its name derives would play another run, which may well pass.
func folderRunSeed(cmd *cobra.Command, path string, b *scenarios.Bundle, req *fuzz.ShrinkRequest) {
	if req.RunSeed != nil {
		return
	}
	run, ok, _ := fuzz.ReadFolderRun(path, b)
	if !ok || run.Seeds.Run == nil {
		return
	}
	seed := uint64(*run.Seeds.Run)
	req.RunSeed = &seed
	fmt.Fprintf(cmd.ErrOrStderr(), "run seed %d, from the run folder %s\n", seed, path)
}

// printShrink writes the human report of a shrink.
func printShrink(w io.Writer, d shrinkJSON) {
	st := d.Stats
	fmt.Fprintln(w, d.Line())
	fmt.Fprintf(w, "shrunk %s: %s violates %s\n", d.Scenario, d.Impl, d.Invariant)
	fmt.Fprintf(w, "  events  %4d -> %d\n", st.EventsBefore, st.EventsAfter)
	fmt.Fprintf(w, "  horizon %4d -> %d\n", st.TicksBefore, st.TicksAfter)
	fmt.Fprintf(w, "  oracle  %d calls, %d cache hits, %d invalid candidates skipped, %d rounds, %s\n",
		st.OracleCalls, st.CacheHits, st.Invalid, st.Rounds, st.Elapsed.Round(time.Millisecond))
	if d.Control != "" {
		fmt.Fprintf(w, "  control %s passes every candidate kept\n", d.Control)
	}
	if st.BudgetHit {
		fmt.Fprintln(w, "  the time budget ran out: the result still fails, but may not be minimal (raise --time)")
	}
	if d.Out != "" {
		fmt.Fprintf(w, "written to %s\n", d.Out)
	}
	fmt.Fprintf(w, "replay: %s\n", d.Replay)
}
