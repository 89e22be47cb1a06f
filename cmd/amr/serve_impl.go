package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/sim"
)

func init() { commands = append(commands, newServeImplCmd) }

// serveImplName is the command's name, which rootFor looks for.
const serveImplName = "serve-impl"

func newServeImplCmd() *cobra.Command {
	var cfg sim.ServeConfig
	cmd := &cobra.Command{
		Use:   serveImplName + " NAME",
		Short: "Run a built-in implementation as a process speaking the sandbox contract",
		Long: `Serve-impl runs a built-in implementation (see 'amr impls') the way any program
under test runs: in the sandbox directory named by AMR_SANDBOX (or LITMUS_SANDBOX,
or the working directory), calling the stub model at AMR_MODEL_URL (or
LITMUS_STUB_URL) over HTTP, with its seed from AMR_SEED. It is what
'amr run --impl-cmd' needs to run the reference as a process.

The clock regime comes from --regime, else AMR_REGIME, else quiescence:
  quiescence  look at the sandbox every --poll and work until quiet; runs until killed
  step        read "tick N" lines on stdin, work until quiet, answer "idle N" on stdout
  once        work until quiet and exit: 0 done, 1 the last step failed

Working until quiet means stepping until a step writes nothing to drafts,
outbox or audit, at most --max-steps steps. See docs/processes.md.`,
		Example: `  amr run --impl-cmd "amr serve-impl reference" --regime step
  amr run --impl-cmd "amr serve-impl weak-no-send" --regime once scenarios/l0-respond`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Stdin, cfg.Stdout, cfg.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return serveImpl(cmd.Context(), args[0], cfg)
		},
	}
	serveFlags(cmd.Flags(), &cfg)
	return cmd
}

// serveFlags defines serve-impl's flags, the command's and the quick
// path's alike.
func serveFlags(f *pflag.FlagSet, cfg *sim.ServeConfig) {
	f.StringVar(&cfg.Regime, "regime", "", "clock regime: quiescence, step or once (default: AMR_REGIME, else quiescence)")
	f.DurationVar(&cfg.Poll, "poll", 10*time.Millisecond, "quiescence regime: how often to look at the sandbox")
	f.IntVar(&cfg.MaxSteps, "max-steps", sim.DefaultMaxSteps, "steps at most per round of work")
}

// serveImpl runs the built-in implementation name as a process.
func serveImpl(ctx context.Context, name string, cfg sim.ServeConfig) error {
	impl, ok := examples.Lookup(name)
	if !ok {
		_, err := lookupImpl(name)
		return err
	}
	if cfg.MaxSteps < 1 {
		return usageErr("--max-steps must be at least 1")
	}
	err := sim.Serve(ctx, impl.New(), cfg)
	if errors.Is(err, sim.ErrStepFailed) {
		return &exitError{code: exitFail, err: err}
	}
	if err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// quickServeImpl reads a serve-impl command line that names a built-in
// implementation and sets only good flags, the one every instance of a
// process run starts with, without building any command: it reports false
// for anything else (help, a bad flag, no name or two, an unknown one), which
// the command itself answers, with its own messages (D226).
func quickServeImpl(args []string) (string, sim.ServeConfig, bool) {
	var cfg sim.ServeConfig
	if len(args) < 2 || args[0] != serveImplName {
		return "", cfg, false
	}
	f := pflag.NewFlagSet(serveImplName, pflag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.Usage = func() {}
	serveFlags(f, &cfg)
	if f.Parse(args[1:]) != nil || f.NArg() != 1 || cfg.MaxSteps < 1 {
		return "", cfg, false
	}
	if _, ok := examples.Lookup(f.Arg(0)); !ok {
		return "", cfg, false
	}
	return f.Arg(0), cfg, true
}
