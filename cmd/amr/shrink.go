package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/shrink"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newShrinkCmd) }

// originShrunk is the provenance kind of a bundle amr shrink wrote.
const originShrunk = "shrunk"

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

// failsWith is the oracle of amr shrink and amr fuzz: a candidate bundle,
// run once against impl with the seed faults.Play derives, shows a violation of
// the given invariant id — the same id as the original failure, so a shrink
// never slips to another bug — and the two oracles agree on the run, so it
// never slips into a harness defect either. With a control implementation (normally the
// reference), the control must also pass every level of the candidate, so
// the failure stays the implementation's and not the scenario's.
//
// A process implementation may get further than a crash meant to cut it
// (docs/processes.md), so one play of a candidate is not the whole answer:
// it gets up to processTries plays and fails when any of them does.
func failsWith(impl suite.Impl, invariant string, runSeed *uint64, control *suite.Impl, maxSteps int) shrink.Oracle {
	return func(b *scenarios.Bundle) bool {
		if _, ok := failingPlay(b, impl, invariant, runSeed, maxSteps); !ok {
			return false
		}
		if control == nil {
			return true
		}
		c, err := faults.Play(b, *control, runSeed, maxSteps)
		return err == nil && !c.Invalid() && !c.Verdict.Failed()
	}
}

// processTries is how many plays a process implementation gets to show a
// failure before a bundle counts as passing. In process one play decides.
const processTries = 3

// failingPlay plays b until a play, judged valid by both oracles, violates
// the invariant: once in process, up to processTries times for a process.
func failingPlay(b *scenarios.Bundle, impl suite.Impl, invariant string, runSeed *uint64, maxSteps int) (*faults.Run, bool) {
	p, err := playUntil(b, impl, runSeed, maxSteps, func(r *faults.Run) bool { return violates(r.Verdict, invariant) })
	return p, err == nil && !p.Invalid() && violates(p.Verdict, invariant)
}

// playUntil plays b until a valid play satisfies want, at most once in
// process and processTries times for a process, and returns the last play.
func playUntil(b *scenarios.Bundle, impl suite.Impl, runSeed *uint64, maxSteps int, want func(*faults.Run) bool) (*faults.Run, error) {
	tries := 1
	if impl.Process != nil {
		tries = processTries
	}
	var p *faults.Run
	var err error
	for range tries {
		p, err = faults.Play(b, impl, runSeed, maxSteps)
		if err != nil || (!p.Invalid() && want(p)) {
			break
		}
	}
	return p, err
}

// shrinkRequest is what one shrink needs besides the bundle.
type shrinkRequest struct {
	impl      suite.Impl
	invariant string // empty: the first violation of the original run
	runSeed   *uint64
	control   *suite.Impl
	budget    time.Duration
	maxSteps  int // steps per tick, as the failing run had them (0: the default)
}

// shrinkOutcome is a finished shrink with the provenance written into it.
type shrinkOutcome struct {
	seeds        seeds.Seeds // of the original's failing play
	bundle       *scenarios.Bundle
	invariant    string
	stats        shrink.Stats
	originalHash string
	shrunkHash   string
}

// shrinkBundle checks that the bundle fails the way the request says, shrinks
// it, and records the provenance in the result's meta. Errors are bad input:
// the bundle does not fail, or fails another way, or the control fails it.
func shrinkBundle(b *scenarios.Bundle, req shrinkRequest) (*shrinkOutcome, error) {
	first, err := playUntil(b, req.impl, req.runSeed, req.maxSteps, func(r *faults.Run) bool {
		if req.invariant == "" {
			return r.Failed()
		}
		return violates(r.Verdict, req.invariant)
	})
	if err != nil {
		return nil, err
	}
	if first.Invalid() {
		return nil, fmt.Errorf("%s: the level checker and the history oracle disagree on the run (harness-invalid), so no invariant verdict can be trusted", b.Meta.Name)
	}
	inv := req.invariant
	if inv == "" {
		if len(first.Verdict.Violations) == 0 {
			return nil, fmt.Errorf("%s passes every level with %s: nothing to shrink", b.Meta.Name, req.impl.Name)
		}
		inv = first.Verdict.Violations[0].Invariant
	} else if !violates(first.Verdict, inv) {
		return nil, fmt.Errorf("%s does not violate %s with %s (it violates: %s)", b.Meta.Name, inv, req.impl.Name,
			invariantList(first.Verdict))
	}
	if req.control != nil {
		c, err := faults.Play(b, *req.control, req.runSeed, req.maxSteps)
		if err != nil {
			return nil, err
		}
		if c.Invalid() || c.Verdict.Failed() {
			return nil, fmt.Errorf("the control %s fails %s too (%s): shrink without a control (--control '')",
				req.control.Name, b.Meta.Name, invariantList(c.Verdict))
		}
	}
	res, err := shrink.Shrink(b, failsWith(req.impl, inv, req.runSeed, req.control, req.maxSteps), shrink.Options{Budget: req.budget})
	if err != nil {
		return nil, err
	}
	out := &shrinkOutcome{seeds: first.Seeds, bundle: res.Bundle, invariant: inv, stats: res.Stats, originalHash: first.BundleHash}
	out.shrunkHash, err = withProvenance(out.bundle, b, req, inv, first.BundleHash)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// withProvenance writes meta.description and meta.origin of a shrunk bundle
// and returns its shrunk_hash: the canonical hash of the bundle without its
// origin (a hash cannot be part of what it hashes).
func withProvenance(s, original *scenarios.Bundle, req shrinkRequest, inv, originalHash string) (string, error) {
	s.Meta.Description = fmt.Sprintf("Shrunk from %s: %s violates %s.", original.Meta.Name, req.impl.Name, inv)
	s.Meta.Origin = nil
	hash, err := s.Hash()
	if err != nil {
		return "", err
	}
	o := &scenarios.Origin{Kind: originShrunk, Impl: req.impl.Name, Invariant: inv,
		OriginalHash: originalHash, ShrunkHash: hash, HarnessVersion: version}
	// A generated bundle's campaign seed and run stay: they say where the
	// failure was found, and the fuzz corpus derives the replay seed from
	// them.
	if prev := original.Meta.Origin; prev != nil {
		o.CampaignSeed, o.Run = prev.CampaignSeed, prev.Run
	}
	s.Meta.Origin = o
	return hash, nil
}

func invariantList(v checker.Verdict) string {
	var ids []string
	seen := map[string]bool{}
	for _, x := range v.Violations {
		if !seen[x.Invariant] {
			seen[x.Invariant] = true
			ids = append(ids, x.Invariant)
		}
	}
	if len(ids) == 0 {
		return "nothing"
	}
	return strings.Join(ids, ", ")
}

// replayCommand is the command that replays a bundle's run.
func replayCommand(path, implFlags string, runSeed *uint64) string {
	cmd := "amr replay " + shell.Quote(path) + " " + implFlags
	if runSeed != nil {
		cmd += " --seed " + strconv.FormatUint(*runSeed, 10)
	}
	return cmd
}

func newShrinkCmd() *cobra.Command {
	var (
		implName, invariant, out, controlName string
		seed                                  uint64
		budget                                time.Duration
		asJSON                                bool
		proc                                  *processFlags
	)
	cmd := &cobra.Command{
		Use:   "shrink BUNDLE --impl NAME [--invariant ID]",
		Short: "Shrink a failing bundle to the smallest one that still fails the same way",
		Long: `Shrink minimizes a bundle on which an implementation violates an invariant: it
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

Exit 0 when the bundle was shrunk, 2 when it does not fail as asked.`,
		Example: `  amr shrink scenarios/l2-govern --impl weak-send-without-approval --out shrunk/
  amr shrink found.json --impl reference --invariant L1.duplicate-effect --seed 7 --control ''`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if implName == "" && proc.cmdline == "" {
				return usageErr("shrink needs --impl (or --impl-cmd)")
			}
			impl, err := resolveImpl(cmd, implName, proc)
			if err != nil {
				return err
			}
			if invariant != "" {
				if _, ok := checker.Lookup(invariant); !ok {
					return usageErr("unknown invariant %q (see docs/invariants.md)", invariant)
				}
			}
			req := shrinkRequest{impl: impl, invariant: invariant, budget: budget}
			if cmd.Flags().Changed("seed") {
				req.runSeed = &seed
			}
			if controlName != "" && controlName != impl.Name {
				c, err := lookupImpl(controlName)
				if err != nil {
					return err
				}
				req.control = &c
			}
			bundles, err := loadBundles(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			b := bundles[0].bundle
			res, err := shrinkBundle(b, req)
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			if out != "" {
				if err := scenarios.SaveDir(res.bundle, out); err != nil {
					return err
				}
			}
			target := out
			if target == "" {
				target = "BUNDLE"
			}
			doc := shrinkJSON{Scenario: b.Meta.Name, Impl: impl.Name, Invariant: res.invariant, Seeds: res.seeds,
				OriginalHash: res.originalHash, ShrunkHash: res.shrunkHash, Stats: res.stats, Out: out,
				Replay: replayCommand(target, implArgs(impl.Name, proc), req.runSeed), Bundle: res.bundle}
			if req.control != nil {
				doc.Control = req.control.Name
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return printJSON(w, doc)
			}
			printShrink(w, doc)
			if out == "" {
				data, err := res.bundle.MarshalIndent()
				if err != nil {
					return err
				}
				fmt.Fprintln(w)
				w.Write(data)
			}
			return nil
		},
	}
	proc = addProcessFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&implName, "impl", "", "implementation that fails the bundle (see 'amr impls')")
	f.StringVar(&invariant, "invariant", "", "invariant id the shrunk bundle must still violate (default: the first violation)")
	f.Uint64Var(&seed, "seed", 0, "run seed of the failing run, as 'amr fuzz' prints it and 'amr run --seed' takes it (default: derived from the bundle's name)")
	f.DurationVar(&budget, "time", shrink.DefaultBudget, "time budget of the shrink")
	f.StringVar(&out, "out", "", "write the shrunk bundle to this directory (directory form)")
	f.StringVar(&controlName, "control", examples.ReferenceName, "implementation that must pass every candidate ('' for none)")
	f.BoolVar(&asJSON, "json", false, "print the report and the shrunk bundle as JSON")
	return cmd
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
