package main

import (
	"github.com/spf13/cobra"
)

// version is the harness version recorded in reports and provenance.
const version = "0.1.0"

func newRoot() *cobra.Command {
	root := bareRoot()
	for _, add := range commands {
		root.AddCommand(add())
	}
	return root
}

// rootFor is the root command that runs args. An instance of a built-in
// implementation (serve-impl) starts at every crash of a process run, so
// it builds its own command alone, not every command's flags and help: the
// command it runs is the same (D174).
func rootFor(args []string) *cobra.Command {
	if len(args) > 0 && args[0] == serveImplName {
		root := bareRoot()
		root.AddCommand(newServeImplCmd())
		return root
	}
	return newRoot()
}

// bareRoot is the root command with no subcommand.
func bareRoot() *cobra.Command {
	return &cobra.Command{
		Use:   "amr",
		Short: "Deterministic harness for the Async Message Responder benchmark",
		Long: `amr runs scenario bundles of the Async Message Responder benchmark against an
implementation on a deterministic simulator and judges the artifacts level by
level (L0-L6). A run is a pure function of (bundle, implementation, seed).

Seeds have three levels, one word each. A campaign seed (amr fuzz --seed)
gives run i of the campaign its run seed. A run seed (amr run --seed,
amr replay --seed, amr shrink --seed, and what amr fuzz prints for a
counterexample) gives scored run k of a bundle its engine seed; without one,
a bundle's run seed derives from its name. The engine seed is what the
simulator plays with. Every command that plays prints its seeds first, as
"seed: campaign=... run=... engine=...", and JSON carries them as decimal
strings: campaign_seed, run_seed, engine_seed. See docs/fuzz.md.

Exit codes: 0 all good, 1 an invariant failed, 2 bad usage or bad input,
3 harness-invalid (the oracles disagree, or determinism broke), 130 and 143
stopped by SIGINT and SIGTERM (docs/hostile.md).`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
}

// commands lists the constructors of every subcommand; each command's file
// registers itself in an init function, so commands live in separate files.
var commands []func() *cobra.Command
