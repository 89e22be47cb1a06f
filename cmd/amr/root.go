package main

import (
	"github.com/spf13/cobra"
)

// version is the harness version recorded in reports and provenance.
const version = "0.1.0"

func newRoot() *cobra.Command {
	root := &cobra.Command{
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
	for _, add := range commands {
		root.AddCommand(add())
	}
	return root
}

// commands lists the constructors of every subcommand; each command's file
// registers itself in an init function, so commands live in separate files.
var commands []func() *cobra.Command
