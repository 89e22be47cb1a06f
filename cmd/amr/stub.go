package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

func init() { commands = append(commands, newStubCmd) }

func newStubCmd() *cobra.Command {
	var addr, dir string
	var limits sim.StubLimits
	cmd := &cobra.Command{
		Use:   "stub BUNDLE",
		Short: "Serve a bundle's stub model alone, to develop an implementation against",
		Long: `Stub serves the bundle's stub model over HTTP, exactly as a run serves it to a
process implementation, and prints its base URL and the variables the official
OpenAI clients read. Every call is logged to model-calls.jsonl in --dir (a new
temporary directory when not given, removed when the stub stops); a call's "at"
is the tick in --dir's clock file, 0 without one. It serves until interrupted,
and then exits 130 (SIGINT) or 143 (SIGTERM).

See docs/processes.md ("The stub model over HTTP") for what each kind of request
gets.`,
		Example: `  amr stub scenarios/l0-respond
  amr stub scenarios/l2-govern --addr 127.0.0.1:8080 --dir /tmp/calls`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStub(cmd, args[0], addr, dir, limits)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0: any free port)")
	f.StringVar(&dir, "dir", "", "directory to log model-calls.jsonl in (default: a new temporary one)")
	f.DurationVar(&limits.HeaderTimeout, "header-timeout", sim.DefaultStubLimits.HeaderTimeout, "a request's header must arrive within this")
	f.DurationVar(&limits.BodyTimeout, "body-timeout", sim.DefaultStubLimits.BodyTimeout, "a request's body must arrive within this")
	f.IntVar(&limits.MaxConcurrent, "max-concurrent", sim.DefaultStubLimits.MaxConcurrent, "requests served at once; more are refused with 429")
	return cmd
}

// runStub serves b's stub until the command's context ends.
func runStub(cmd *cobra.Command, path, addr, dir string, limits sim.StubLimits) error {
	b, err := loadBundle(cmd.ErrOrStderr(), path)
	if err != nil {
		return badInput(err)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "amr-stub-*"); err != nil {
			return err
		}
		// A directory the stub made is the stub's: it goes when
		// the stub stops, however it stops (D67); --dir keeps one.
		tmp := dir
		drop := atInterrupt(func() { os.RemoveAll(tmp) })
		defer func() { drop(); os.RemoveAll(tmp) }()
	}
	store, err := sandbox.OpenDir(dir)
	if err != nil {
		return badInput(fmt.Errorf("--dir: %w", err))
	}
	// The handler is in place before the address is printed, so a
	// caller that stops the stub as soon as it sees the address
	// gets a clean exit.
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	stub := sim.NewBundleStub(b, store, func() int { return clockTick(dir) })
	srv, base, err := sim.ServeStub(stub, addr, limits)
	if err != nil {
		return badInput(err)
	}
	defer srv()
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "stub model for %s at %s\n", b.Meta.Name, base)
	fmt.Fprintf(w, "OPENAI_BASE_URL=%s OPENAI_API_KEY=%s\n", base, sim.StubAPIKey)
	fmt.Fprintf(w, "calls are logged to %s\n", filepath.Join(dir, sandbox.ModelCalls))
	if flagDir := cmd.Flags().Lookup("dir"); flagDir == nil || !flagDir.Changed {
		fmt.Fprintln(w, "(a temporary directory, removed when the stub stops: --dir keeps the log)")
	}
	<-ctx.Done()
	return nil
}

// clockTick reads a clock file the way an implementation does; 0 when
// there is none.
func clockTick(dir string) int {
	data, err := safefile.ReadFile(filepath.Join(dir, sandbox.Clock), 1<<20)
	if err != nil {
		return 0
	}
	var c sandbox.ClockFile
	if jsondepth.Check(data, 0) != nil || json.Unmarshal(data, &c) != nil {
		return 0
	}
	return c.Tick
}
