package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newRunCmd) }

// runJSON is the --json document of amr run.
type runJSON struct {
	Impl    string            `json:"impl"`
	Process map[string]string `json:"process,omitempty"`
	Runs    int               `json:"runs"`
	Seed    *uint64           `json:"seed,omitempty"`
	Passed  bool              `json:"passed"`
	Invalid bool              `json:"invalid"`
	Results []*suite.Report   `json:"results"`
}

func newRunCmd() *cobra.Command {
	var (
		implName string
		runs     int
		seed     uint64
		out      string
		asJSON   bool
		maxSteps int
		shown    int
		proc     *processFlags
		ledgerAt string
		force    bool
	)
	cmd := &cobra.Command{
		Use:   "run [BUNDLE...]",
		Short: "Run scenario bundles against an implementation and report each level",
		Long: `Run plays each bundle --runs times on the deterministic simulator against an
implementation, judges every run with the checker, and prints a table with one
row per scenario and one column per level (pass, FAIL, or - for untested). A
level passes only when it holds in every run (spec §5: five consecutive runs).

ORIGIN is the drafting origin tag the spec puts on every level result (§5):
model-based (every draft cites stub model calls), model-free (every draft
says "model-free"), mixed, or none (no draft was declared). SEED is the
campaign seed of the row's runs: run i's run seed derives from it and i.

With no BUNDLE, every published scenario is run. Without --seed each bundle's
campaign seed derives from its name, so two invocations agree byte for byte;
'amr run --seed SEED BUNDLE' plays a row's runs again, and 'amr replay BUNDLE
--seed SEED' shows its run 1 tick by tick. --json has the same seeds
(results[].seed, and each run's run seed in results[].runs[].seed).

--out DIR keeps every run: DIR/<scenario>/run-<i>/sandbox/ (the spec's files),
run.jsonl (the harness's run log) and verdict.json, plus DIR/report.json.
A kept sandbox can be judged again with 'amr check'.

--impl-cmd "CMD ARGS" runs the implementation as an OS process on a sandbox
directory, under the clock regime --regime: quiescence (the spec's: the clock
advances after --window without log writes, or is forced after --timeout),
step ("tick N" on stdin, "idle N" on stdout) or once (the command runs per
tick). A failed process run's directory is left for reading and its path
printed. See docs/processes.md.

Every run is judged by two independent oracles, the level checker and the
history checker (docs/history.md); when their counts disagree the run is
INVALID, a harness bug, and amr exits 3.

--ledger FILE appends one receipt per run to FILE (docs/receipts.md) and skips
a run whose (bundle hash, implementation, harness version, seed) already has a
receipt, writing a cheap "skipped" receipt that copies its verdict; --force
runs everything again.

Exit 0 when every level up to each scenario's top level passed, 1 when any
failed, 2 on bad input, 3 when the oracles disagreed.`,
		Example: `  amr run                                  # the published suite against the reference, 5 runs each
  amr run --impl weak-no-send scenarios/l0-respond
  amr run --runs 1 --seed 7 --out out/ --json
  amr run --impl-cmd "amr serve-impl reference" --regime step`,
		RunE: func(cmd *cobra.Command, args []string) error {
			impl, err := resolveImpl(cmd, implName, proc)
			if err != nil {
				return err
			}
			ctx, stop := interruptContext(cmd)
			defer stop()
			if runs < 1 {
				return usageErr("--runs must be at least 1")
			}
			bundles, err := loadBundles(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			cfg := suite.Config{Runs: runs, Out: out, MaxSteps: maxSteps, Context: ctx}
			if cmd.Flags().Changed("seed") {
				cfg.Seed = &seed
			}
			cfg.Force, cfg.HarnessVersion = force, version
			if ledgerAt != "" {
				if cfg.Ledger, err = openLedger(ledgerAt); err != nil {
					return err
				}
			}
			receipted := len(cfg.Ledger.Receipts())
			doc := runJSON{Impl: impl.Name, Runs: runs, Seed: cfg.Seed, Passed: true}
			if impl.Process != nil {
				doc.Process = impl.Process.Params()
			}
			for _, nb := range bundles {
				rep, err := suite.Run(nb.bundle, impl, cfg)
				if err != nil {
					return &exitError{code: exitBad, err: fmt.Errorf("%s: %w", nb.path, err)}
				}
				doc.Results = append(doc.Results, rep)
				doc.Passed = doc.Passed && rep.Passed()
			}
			doc.Invalid = anyInvalid(doc.Results)
			if out != "" {
				if err := writeJSONFile(filepath.Join(out, "report.json"), doc); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if err := printJSON(w, doc); err != nil {
					return err
				}
			} else {
				printTable(w, doc.Results, shown)
				passed := 0
				for _, r := range doc.Results {
					if r.Passed() {
						passed++
					}
				}
				fmt.Fprintf(w, "\n%d scenario(s): %d passed, %d failed (impl %s, %d run(s) each)\n",
					len(doc.Results), passed, len(doc.Results)-passed, impl.Name, runs)
				if impl.Process != nil {
					printProcess(w, doc)
				}
				if out != "" {
					fmt.Fprintf(w, "artifacts kept in %s\n", out)
				}
				printDiagnostics(w, doc.Results, cfg.Ledger, receipted)
			}
			if doc.Invalid {
				return invalidErr()
			}
			if !doc.Passed {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&implName, "impl", "reference", "implementation to run (see 'amr impls')")
	f.IntVar(&runs, "runs", 5, "scored runs per bundle")
	f.Uint64Var(&seed, "seed", 0, "campaign seed for the run seeds (default: derived from each bundle)")
	f.StringVar(&out, "out", "", "keep every run's sandbox, run log and verdict under this directory")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.IntVar(&maxSteps, "max-steps", 0, "steps per tick before a forced advance (default 64)")
	f.IntVar(&shown, "show", 10, "violations shown per failed scenario in the table (0: all)")
	f.StringVar(&ledgerAt, "ledger", "", "append a receipt per run to this ledger, and skip runs it already holds (docs/receipts.md)")
	f.BoolVar(&force, "force", false, "with --ledger: run everything, even runs the ledger already holds")
	proc = addProcessFlags(cmd)
	return cmd
}

func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func init() {
	runBundle = func(b *scenarios.Bundle, implName string, runs int) ([7]string, error) {
		var levels [7]string
		impl, err := lookupImpl(implName)
		if err != nil {
			return levels, err
		}
		rep, err := suite.Run(b, impl, suite.Config{Runs: runs})
		if err != nil {
			return levels, err
		}
		for i, name := range suite.LevelNames {
			levels[i] = rep.Levels[name]
		}
		return levels, nil
	}
}
