package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim"
)

func init() { commands = append(commands, newImplsCmd) }

// lookupImpl resolves --impl to a runnable implementation.
func lookupImpl(name string) (play.Impl, error) {
	impl, ok := examples.Lookup(name)
	if !ok {
		var names []string
		for _, i := range examples.All() {
			names = append(names, i.Name)
		}
		sort.Strings(names)
		return play.Impl{}, usageErr("unknown implementation %q (built in: %s)", name, strings.Join(names, ", "))
	}
	return play.Impl{Name: impl.Name, New: impl.New}, nil
}

// processFlags are the flags that run an implementation as an OS process;
// every command that runs an implementation registers them with
// addProcessFlags and resolves its implementation with resolveImpl.
type processFlags struct {
	cmdline     string
	regime      string
	window      time.Duration
	timeout     time.Duration
	stepTimeout time.Duration
	hangLimit   int
	noFreeze    bool
	noTrace     bool
	// name is what a process implementation is called in tables, --json
	// and reports; empty means its command line.
	name string
	// countWrites and ignoreWrites name private files that count, or do
	// not, as writes for a crash after k writes.
	countWrites, ignoreWrites []string
	// ready is the readiness handshake, readyTimeout its bounded wait.
	ready        string
	readyTimeout time.Duration
	// maxRunDir bounds the whole run directory while the process works.
	maxRunDir byteSize
}

func addProcessFlags(cmd *cobra.Command) *processFlags {
	p := &processFlags{maxRunDir: sim.DefaultMaxRunDirBytes}
	f := cmd.Flags()
	f.StringVar(&p.cmdline, "impl-cmd", "", `run the implementation as an OS process: "CMD ARGS", no shell (docs/processes.md)`)
	f.StringVar(&p.regime, "regime", sim.RegimeQuiescence, "clock regime of a process implementation: quiescence, step or once")
	f.DurationVar(&p.window, "window", sim.DefaultWindow, "quiescence regime: the stability window before the clock advances")
	f.DurationVar(&p.timeout, "timeout", sim.DefaultTimeout, "quiescence regime: forced advance after this long; once regime: the limit of one invocation")
	f.DurationVar(&p.stepTimeout, "step-timeout", sim.DefaultStepTimeout, `step regime: how long to wait for "idle N"`)
	f.IntVar(&p.hangLimit, "hang-limit", sim.DefaultHangLimit, "forced advances in a row before a process implementation is killed as hung")
	f.BoolVar(&p.noFreeze, "no-freeze", false, "do not hold a process at each write while a crash after k writes is armed (docs/processes.md)")
	f.BoolVar(&p.noTrace, "no-trace", false, "land crashes after k writes by watching the sandbox, not by stopping the process before each file-changing call (docs/processes.md)")
	f.StringArrayVar(&p.countWrites, "count-writes", nil, "a crash after k writes also counts new versions of these sandbox paths (a pattern, or a directory ending in /; repeatable)")
	f.StringArrayVar(&p.ignoreWrites, "ignore-writes", nil, "a crash after k writes does not count these sandbox paths (state.json included; repeatable)")
	f.StringVar(&p.ready, "ready", "", `readiness handshake to wait for after every start and restart, holding the clock: "stdout" (a line "ready") or "file" (the process creates $AMR_READY_FILE); step and quiescence regimes`)
	f.DurationVar(&p.readyTimeout, "ready-timeout", sim.DefaultReadyTimeout, "with --ready: the longest wait for the handshake (wall clock)")
	f.Var(&p.maxRunDir, "max-run-dir", "bound of the whole run directory (the sandbox, its subdirectories and the logs), measured while the process works; past it the implementation is killed for good")
	f.StringVar(&p.name, "name", "", "with --impl-cmd: the name the process implementation is reported under (default: its command line)")
	return p
}

// resolveImpl resolves the implementation a command runs: the built-in one
// named by implName, or, with --impl-cmd, an OS process, named by --name,
// else by its command line. --impl and --impl-cmd are exclusive: with both,
// a verdict of the process would be credited to the built-in's name.
func resolveImpl(cmd *cobra.Command, implName string, p *processFlags) (play.Impl, error) {
	if err := p.exclusive(cmd); err != nil {
		return play.Impl{}, err
	}
	if p == nil || p.cmdline == "" {
		return lookupImpl(implName)
	}
	spec, err := p.spec()
	if err != nil {
		return play.Impl{}, err
	}
	return play.Impl{Name: p.implName(), Process: spec}, nil
}

// exclusive refuses --impl with --impl-cmd, and --name without --impl-cmd.
func (p *processFlags) exclusive(cmd *cobra.Command) error {
	if p == nil {
		return nil
	}
	implGiven := false
	if f := cmd.Flags().Lookup("impl"); f != nil && f.Changed {
		implGiven = true
	}
	switch {
	case p.cmdline != "" && implGiven:
		return usageErr("--impl and --impl-cmd are exclusive: --impl names a built-in implementation, --impl-cmd runs a process (name it with --name)")
	case p.cmdline == "" && p.name != "":
		return usageErr("--name names a process implementation: it needs --impl-cmd")
	}
	return nil
}

// implName is the name a process implementation is reported under.
func (p *processFlags) implName() string {
	if p.name != "" {
		return p.name
	}
	return p.cmdline
}

// spec builds the process spec from the flags; the command line is
// resolved against the working directory, since the process runs in its
// sandbox directory.
func (p *processFlags) spec() (*sim.ProcessSpec, error) {
	words, err := sim.ResolveCommand(p.cmdline)
	if err != nil {
		return nil, usageErr("--impl-cmd: %v", err)
	}
	spec := &sim.ProcessSpec{Command: words, Regime: p.regime, Window: p.window, Timeout: p.timeout,
		StepTimeout: p.stepTimeout, HangLimit: p.hangLimit, NoFreeze: p.noFreeze, NoTrace: p.noTrace,
		CountWrites: p.countWrites, IgnoreWrites: p.ignoreWrites, Ready: p.ready, ReadyTimeout: p.readyTimeout,
		MaxRunDirBytes: int64(p.maxRunDir)}
	if err := spec.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}
	return spec, nil
}

// interruptContext is a context cancelled by Ctrl-C or SIGTERM. Calling
// stop restores the signals' default handling and kills whatever process
// a run may have left, so nothing outlives the command.
func interruptContext(cmd *cobra.Command) (ctx context.Context, stop func()) {
	parent := cmd.Context()
	if parent == nil {
		parent = context.Background()
	}
	// The signals themselves are caught once, in main (interrupt.go), which
	// cancels the command's context.
	ctx, cancel := context.WithCancel(parent)
	return ctx, func() {
		cancel()
		sim.KillAll()
	}
}

// printProcess prints how a process implementation's clock was driven and
// what that cost, and where the directories of failed runs were left.
func printProcess(w io.Writer, doc runJSON) {
	p := doc.Process
	switch p["regime"] {
	case sim.RegimeQuiescence:
		fmt.Fprintf(w, "process regime quiescence: window %s, forced advance after %s", p["window"], p["timeout"])
	case sim.RegimeStep:
		fmt.Fprintf(w, "process regime step: answer within %s", p["step_timeout"])
	default:
		fmt.Fprintf(w, "process regime %s: invocation limit %s", p["regime"], p["timeout"])
	}
	forced, crashes := 0, 0
	var kept []string
	for _, r := range doc.Results {
		for _, run := range r.Runs {
			forced += run.Forced
			crashes += run.Crashes
			if run.Kept != "" {
				kept = append(kept, run.Kept)
			}
		}
	}
	fmt.Fprintf(w, "; %d forced advance(s), %d crash(es) over all runs\n", forced, crashes)
	for _, k := range kept {
		fmt.Fprintf(w, "failed run left in %s\n", k)
	}
}

func newImplsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "impls",
		Short: "List the built-in implementations: the reference and the weak ones",
		Long: `Impls lists the implementations compiled into amr, each with its kind:

  reference  correct at every level under every fault
  weak       the reference with one planted defect: it names the invariant ids
             the defect must trip (any one counts as caught) and the published
             scenario whose verdict must show one
  costly     the reference with a planted cost defect: it passes every level
             of every scenario, and its target is a diagnostic (surprise.*)
             that its scenario's runs must raise (docs/history.md)`,
		Example: `  amr impls
  amr impls --json | jq -r '.[] | select(.kind=="weak") | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			type row struct {
				Name        string   `json:"name"`
				Kind        string   `json:"kind"`
				Targets     []string `json:"targets,omitempty"`
				Scenario    string   `json:"scenario,omitempty"`
				Description string   `json:"description"`
			}
			var rows []row
			for _, i := range examples.All() {
				rows = append(rows, row{Name: i.Name, Kind: i.ShownKind(), Targets: i.Targets, Scenario: i.Scenario, Description: i.Description})
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, rows)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tSCENARIO\tTARGETS\tDESCRIPTION")
			for _, r := range rows {
				scen := r.Scenario
				if scen == "" {
					scen = "-"
				}
				targets := strings.Join(r.Targets, ",")
				if targets == "" {
					targets = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, scen, targets, r.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// implFlags are the flags that select the implementation a command ran,
// so a printed replay command runs the same one: --impl for a built-in
// implementation; --impl-cmd with its regime and every timing that matters
// in that regime for a process, and --name when the process was named.
func implFlags(implName string, p *processFlags) []string {
	if p == nil || p.cmdline == "" {
		return []string{"--impl", implName}
	}
	var args []string
	if implName != "" && implName != p.cmdline {
		args = append(args, "--name", implName)
	}
	args = append(args, "--impl-cmd", p.cmdline, "--regime", p.regime)
	switch p.regime {
	case sim.RegimeQuiescence:
		args = append(args, "--window", p.window.String(), "--timeout", p.timeout.String())
	case sim.RegimeOnce:
		args = append(args, "--timeout", p.timeout.String())
	case sim.RegimeStep:
		if p.stepTimeout != sim.DefaultStepTimeout {
			args = append(args, "--step-timeout", p.stepTimeout.String())
		}
	}
	if p.hangLimit != sim.DefaultHangLimit {
		args = append(args, "--hang-limit", strconv.Itoa(p.hangLimit))
	}
	if p.noFreeze {
		args = append(args, "--no-freeze")
	}
	if p.noTrace {
		args = append(args, "--no-trace")
	}
	if p.ready != "" {
		args = append(args, "--ready", p.ready)
		if p.readyTimeout != sim.DefaultReadyTimeout {
			args = append(args, "--ready-timeout", p.readyTimeout.String())
		}
	}
	if p.maxRunDir > 0 && p.maxRunDir != sim.DefaultMaxRunDirBytes {
		args = append(args, "--max-run-dir", p.maxRunDir.String())
	}
	for _, c := range p.countWrites {
		args = append(args, "--count-writes", c)
	}
	for _, c := range p.ignoreWrites {
		args = append(args, "--ignore-writes", c)
	}
	return args
}

// implArgs is implFlags as one string for a shell.
func implArgs(implName string, p *processFlags) string {
	return shell.Join(implFlags(implName, p)...)
}
