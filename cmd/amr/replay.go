package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
	"github.com/amr-bench/amr/timeline"
)

func init() { commands = append(commands, newReplayCmd) }

// readRecording reads the run log at path (a run.jsonl, or a directory
// holding one, as amr run --out and amr fuzz keep them) for a replay of b.
func readRecording(path string, b *scenarios.Bundle) (*play.Recording, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, sandbox.RunLogFile)
	}
	data, err := safefile.ReadFile(path, 0)
	if err != nil {
		return nil, usageErr("--cut-from: %v", err)
	}
	rec, err := play.ReadRecording(data, b)
	if err != nil {
		return nil, usageErr("--cut-from %s: %v", path, err)
	}
	return rec, nil
}

// replayImpl picks the implementation to replay: --impl when given, else the
// one a shrunk or promoted bundle names in its provenance, else the one a
// run folder's run log recorded, else the reference.
func replayImpl(flag string, changed bool, b *scenarios.Bundle, recorded string) (play.Impl, error) {
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

const replayLong = `Replay plays a bundle once and prints what happened, tick by tick: what the
harness delivered, approved (and which draft the approval bound), signalled and
crashed; what the implementation admitted, claimed, drafted, sent and resolved;
and where each violation fired, with its evidence. Quiet ticks are skipped and
long quiet stretches collapsed. A run with a downtime ends with a table of what
piled up while the implementation was down: when each delivery, approval,
signal, posture or rules change fired, and when the implementation first acted
on it (or never). --json prints the same as records.

--seed is the run seed, as 'amr fuzz' prints it and 'amr run --seed' takes
it; without it the bundle's name gives it. Replay plays scored run 1 of it,
the run 'amr run --runs 1 [--seed N]' plays, so the replay command printed
for a counterexample shows exactly the run that failed. A folder amr fuzz
wrote (raw/ or shrunk/) replays its bundle/ with the engine seed its
run.jsonl recorded, unless --seed is given. The timeline starts with the
seeds: "seed: run=... engine=...". Without --impl, a bundle
whose meta.origin names a built-in implementation (a shrunk or promoted
counterexample) replays against it, a folder against the built-in
implementation its run log names; any other against the reference.

--out DIR keeps the run as 'amr run --out' does (sandbox/, run.jsonl,
verdict.json) plus timeline.txt and timeline.json. --impl-cmd replays an
implementation that runs as an OS process, as 'amr run --impl-cmd' does.

A crash inside a tick kills a process once its k-th write is seen, and the
process may have got further by then; the run log records how far.
--cut-from RUN.jsonl (or a directory holding run.jsonl) replays such a run:
its engine seed, and each crash killing at the write count that run recorded
instead of k. Best effort: a process that writes faster than the harness
looks may again get further, and the replay's run log says where it cut.

Exit 0 when every level passes, 1 when one fails, 2 on bad input, 3 when the
two oracles disagree on the run.`

type replayOptions struct {
	implName, out, cutFrom string
	seed                   uint64
	asJSON, refs           bool
	quiet                  int
	proc                   *processFlags
}

func newReplayCmd() *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay BUNDLE",
		Short: "Re-run one bundle deterministically and print its timeline, tick by tick",
		Long:  replayLong,
		Example: `  amr replay .amr/fuzz/latest/shrunk      # the newest counterexample amr fuzz found
  amr replay shrunk/
  amr replay scenarios/l4-operator-escalation --impl weak-ignore-escalation --refs
  amr replay found.json --impl reference --seed 7 --json
  amr replay found/ --impl-cmd "./my-daemon" --regime step --cut-from found/run.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReplay(cmd, args, o) },
	}
	o.proc = addProcessFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.implName, "impl", examples.ReferenceName, "implementation to run (default: meta.origin.impl when built in, else the reference)")
	f.Uint64Var(&o.seed, "seed", 0, "run seed, as 'amr fuzz' prints it and 'amr run --seed' takes it (default: derived from the bundle's name)")
	f.StringVar(&o.out, "out", "", "keep the run's sandbox, run log, verdict and timeline under this directory")
	f.BoolVar(&o.asJSON, "json", false, "print the timeline as JSON records")
	f.BoolVar(&o.refs, "refs", false, "show each entry's file:line")
	f.IntVar(&o.quiet, "quiet", timeline.DefaultQuiet, "collapse quiet stretches of at least this many ticks into one line")
	f.StringVar(&o.cutFrom, "cut-from", "", "a process run's run.jsonl (or its directory): replay its seed and kill each crash at the write count it recorded")
	return cmd
}

func runReplay(cmd *cobra.Command, args []string, o replayOptions) error {
	bundles, err := loadBundles(cmd.ErrOrStderr(), args)
	if err != nil {
		return err
	}
	b := bundles[0].bundle
	impl, s, err := replayWhat(cmd, args[0], b, o)
	if err != nil {
		return err
	}
	p, err := play.Play(b, impl, s, play.Options{})
	if err != nil {
		return &exitError{code: exitBad, err: fmt.Errorf("playing bundle %s: %w", b.Meta.Name, err)}
	}
	tl := timeline.Build(timeline.Input{Bundle: b, Files: p.Result.Files.Files(), Log: p.Result.Log, Verdict: p.Verdict(),
		Seeds: &p.Seeds})
	if o.out != "" {
		if err := keepReplay(o.out, p, tl); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if o.asJSON {
		if err := printJSON(w, tl); err != nil {
			return err
		}
	} else if err := tl.WriteText(w, timeline.TextOptions{Quiet: o.quiet, Refs: o.refs}); err != nil {
		return err
	}
	if p.Invalid() {
		return &exitError{code: exitInvalid, err: fmt.Errorf("harness-invalid: the level checker and the history oracle disagree on this run")}
	}
	if p.Verdict().Failed() {
		return &exitError{code: exitFail}
	}
	return nil
}

// replayWhat is the implementation and the seeds a replay plays: as 'amr
// run --runs 1 [--seed N]' would, as the run folder at path recorded, or as
// the run log --cut-from names did.
func replayWhat(cmd *cobra.Command, path string, b *scenarios.Bundle, o replayOptions) (play.Impl, seeds.Seeds, error) {
	rec, recorded, note := fuzz.ReadFolderRun(path, b)
	var impl play.Impl
	var err error
	if o.proc.cmdline != "" {
		impl, err = resolveImpl(cmd, o.implName, o.proc)
	} else {
		impl, err = replayImpl(o.implName, cmd.Flags().Changed("impl"), b, rec.Impl)
	}
	if err != nil {
		return impl, seeds.Seeds{}, err
	}
	var s seeds.Seeds
	if cmd.Flags().Changed("seed") {
		s = seeds.OfRun(o.seed)
	}
	if o.cutFrom == "" {
		if s.Run == nil {
			if recorded {
				s = rec.Seeds
			} else if note != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", note)
			}
		}
		return impl, s, nil
	}
	if impl.Process == nil {
		return impl, s, usageErr("--cut-from replays where a process run's crashes landed; it needs --impl-cmd (in process a crash lands exactly at its write)")
	}
	if s.Run != nil {
		return impl, s, usageErr("--cut-from replays the engine seed of its run log; --seed does not apply")
	}
	cut, err := readRecording(o.cutFrom, b)
	if err != nil {
		return impl, s, err
	}
	impl, s = cut.Replay(impl)
	return impl, s, nil
}

// keepReplay writes a replayed run the way 'amr run --out' keeps one, plus
// its timeline.
func keepReplay(dir string, p *play.Run, tl *timeline.Timeline) error {
	rr := suite.NewRunReport(1, p.Seeds, p.Result, p.Judgement)
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
