package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
	"github.com/amr-bench/amr/timeline"
)

func init() { commands = append(commands, newReplayCmd) }

// violates reports whether a verdict holds a violation of the invariant.
func violates(v checker.Verdict, invariant string) bool {
	for _, x := range v.Violations {
		if x.Invariant == invariant {
			return true
		}
	}
	return false
}

// cutSource is an earlier process run whose cuts a replay reproduces.
type cutSource struct {
	seed uint64
	cuts []sim.Cut
}

// readCuts reads the run log at path (a run.jsonl, or a directory holding
// one, as amr run --out and amr fuzz keep them) for a replay of bundle b:
// its run seed and the cuts of its crashes after k writes.
func readCuts(path string, b *scenarios.Bundle) (*cutSource, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, sandbox.RunLogFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("--cut-from: %v", err)
	}
	log, err := sandbox.ParseRunLog(data)
	if err != nil {
		return nil, usageErr("--cut-from %s: %v", path, err)
	}
	if len(log) == 0 || log[0].Kind != sandbox.LogStart || log[0].Seed == nil {
		return nil, usageErr("--cut-from %s: the run log does not start with a start record carrying the seed", path)
	}
	hash, err := reserve.BundleHash(b)
	if err != nil {
		return nil, err
	}
	if h := log[0].BundleHash; h != "" && h != hash {
		return nil, usageErr("--cut-from %s: the run log is of another bundle (%s, this one is %s)", path, h, hash)
	}
	return &cutSource{seed: *log[0].Seed, cuts: sim.CutsOf(log)}, nil
}

// replayImpl picks the implementation to replay: --impl when given, else the
// one a shrunk or promoted bundle names in its provenance, else the one a
// run folder's run log recorded, else the reference.
func replayImpl(flag string, changed bool, b *scenarios.Bundle, recorded string) (suite.Impl, error) {
	name := flag
	if !changed {
		for _, n := range []string{originImpl(b), recorded} {
			if _, ok := examples.Lookup(n); ok && n != "" {
				name = n
				break
			}
		}
	}
	return lookupImpl(name)
}

func originImpl(b *scenarios.Bundle) string {
	if o := b.Meta.Origin; o != nil {
		return o.Impl
	}
	return ""
}

func newReplayCmd() *cobra.Command {
	var (
		implName, out string
		seed          uint64
		asJSON, refs  bool
		quiet         int
		proc          *processFlags
		cutFrom       string
	)
	cmd := &cobra.Command{
		Use:   "replay BUNDLE",
		Short: "Re-run one bundle deterministically and print its timeline, tick by tick",
		Long: `Replay plays a bundle once and prints what happened, tick by tick: what the
harness delivered, approved (and which draft the approval bound), signalled and
crashed; what the implementation admitted, claimed, drafted, sent and resolved;
and where each violation fired, with its evidence. Quiet ticks are skipped and
long quiet stretches collapsed. --json prints the same as records.

The run seed is the one 'amr run --runs 1 [--seed N]' uses: derived from --seed
when given, from the bundle's name otherwise, so the replay command printed for
a counterexample shows exactly the run that failed. A folder amr fuzz wrote
(raw/ or shrunk/) replays its bundle/ with the run seed its run.jsonl
recorded, unless --seed is given. Without --impl, a bundle
whose meta.origin names a built-in implementation (a shrunk or promoted
counterexample) replays against it, a folder against the built-in
implementation its run log names; any other against the reference.

--out DIR keeps the run as 'amr run --out' does (sandbox/, run.jsonl,
verdict.json) plus timeline.txt and timeline.json. --impl-cmd replays an
implementation that runs as an OS process, as 'amr run --impl-cmd' does.

A crash inside a tick kills a process once its k-th write is seen, and the
process may have got further by then; the run log records how far.
--cut-from RUN.jsonl (or a directory holding run.jsonl) replays such a run:
its run seed, and each crash killing at the write count that run recorded
instead of k. Best effort: a process that writes faster than the harness
looks may again get further, and the replay's run log says where it cut.

Exit 0 when every level passes, 1 when one fails, 2 on bad input, 3 when the
two oracles disagree on the run.`,
		Example: `  amr replay .amr/fuzz/latest/shrunk      # the newest counterexample amr fuzz found
  amr replay shrunk/
  amr replay scenarios/l4-operator-escalation --impl weak-ignore-escalation --refs
  amr replay found.json --impl reference --seed 7 --json
  amr replay found/ --impl-cmd "./my-daemon" --regime step --cut-from found/run.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bundles, err := loadBundles(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			b := bundles[0].bundle
			rec, recorded, note := readRecordedRun(args[0], b)
			var impl suite.Impl
			if proc.cmdline != "" {
				impl, err = resolveImpl(cmd, implName, proc)
			} else {
				impl, err = replayImpl(implName, cmd.Flags().Changed("impl"), b, rec.impl)
			}
			if err != nil {
				return err
			}
			var campaign *uint64
			if cmd.Flags().Changed("seed") {
				campaign = &seed
			}
			runSeed := suite.RunSeed(b, campaign, 1)
			if campaign == nil && cutFrom == "" {
				if recorded {
					runSeed = rec.seed
				} else if note != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", note)
				}
			}
			if cutFrom != "" {
				if impl.Process == nil {
					return usageErr("--cut-from replays where a process run's crashes landed; it needs --impl-cmd (in process a crash lands exactly at its write)")
				}
				if campaign != nil {
					return usageErr("--cut-from replays the run seed of its run log; --seed does not apply")
				}
				src, err := readCuts(cutFrom, b)
				if err != nil {
					return err
				}
				runSeed = src.seed
				spec := *impl.Process
				spec.Cuts = src.cuts
				impl.Process = &spec
			}
			p, err := faults.PlayEngine(b, impl, runSeed, 0)
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			tl := timeline.Build(timeline.Input{Bundle: b, Files: p.Result.Files.Files(), Log: p.Result.Log, Verdict: p.Verdict})
			if out != "" {
				if err := keepReplay(out, p, tl); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if err := printJSON(w, tl); err != nil {
					return err
				}
			} else if err := tl.WriteText(w, timeline.TextOptions{Quiet: quiet, Refs: refs}); err != nil {
				return err
			}
			if p.Invalid() {
				return &exitError{code: exitInvalid, err: fmt.Errorf("harness-invalid: the level checker and the history oracle disagree on this run")}
			}
			if p.Verdict.Failed() {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	proc = addProcessFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&implName, "impl", examples.ReferenceName, "implementation to run (default: meta.origin.impl when built in, else the reference)")
	f.Uint64Var(&seed, "seed", 0, "campaign seed, as for 'amr run --runs 1 --seed N' (default: derived from the bundle)")
	f.StringVar(&out, "out", "", "keep the run's sandbox, run log, verdict and timeline under this directory")
	f.BoolVar(&asJSON, "json", false, "print the timeline as JSON records")
	f.BoolVar(&refs, "refs", false, "show each entry's file:line")
	f.IntVar(&quiet, "quiet", timeline.DefaultQuiet, "collapse quiet stretches of at least this many ticks into one line")
	f.StringVar(&cutFrom, "cut-from", "", "a process run's run.jsonl (or its directory): replay its seed and kill each crash at the write count it recorded")
	return cmd
}

// keepReplay writes a replayed run the way 'amr run --out' keeps one, plus
// its timeline.
func keepReplay(dir string, p *faults.Run, tl *timeline.Timeline) error {
	rr := suite.NewRunReport(1, p.EngineSeed, p.Result, p.Judgement)
	if err := suite.KeepJudged(dir, p.Result, rr, p.Judgement); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "timeline.txt"))
	if err != nil {
		return err
	}
	if err := tl.WriteText(f, timeline.TextOptions{Refs: true}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "timeline.json"), tl)
}
