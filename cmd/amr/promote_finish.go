package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

// A promotion is finished when the repository is green with the new
// scenario in it. Two things in the repository depend on the published set:
// the committed baseline (testdata/baseline.json, which 'amr regress' and a
// test read) must have a row for the new scenario with every built-in
// implementation, and every published scenario must catch some weak
// implementation (suite's TestEveryWeakImplementationIsCaughtByItsScenario).
// finishPromotion does the first and checks the second; what it cannot do
// it prints as a step to take.

// promotionEnd is what finishing a promotion did and what is left.
type promotionEnd struct {
	// Baseline is the baseline file the new rows went into, and Rows how
	// many; empty when none was written.
	Baseline string
	Rows     int
	// Catches are the weak implementations that fail the new scenario.
	Catches []string
	// ToDo are the steps left for a person, each with its command or file.
	ToDo []string
}

// finishPromotion measures the promoted bundle against every built-in
// implementation, adds those rows to the repository's baseline, and lists
// the weak implementations it catches.
func finishPromotion(p *promotion, scenariosDir string, referencePasses bool) (*promotionEnd, error) {
	end := &promotionEnd{}
	name := p.bundle.Meta.Name
	root, setErr := publishedSet(scenariosDir)
	runs := 5
	var base *baseline
	basePath := ""
	if setErr == nil {
		basePath = filepath.Join(root, defaultBaseline)
		b, err := readBaseline(basePath)
		if err == nil {
			base, runs = b, b.Runs
		} else {
			end.ToDo = append(end.ToDo, fmt.Sprintf("the baseline could not be read (%v): run 'go run ./cmd/amr regress --update' in %s and commit %s",
				err, root, defaultBaseline))
		}
	}
	rows, err := measure([]*scenarios.Bundle{p.bundle}, regressImpls(), runs)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Impl != examples.ReferenceName && failsAny(r.Levels) {
			end.Catches = append(end.Catches, r.Impl)
		}
	}
	if base != nil {
		if err := addBaselineRows(basePath, base, name, rows); err != nil {
			return nil, err
		}
		end.Baseline, end.Rows = shownPath(basePath), len(rows)
	}
	if setErr != nil {
		end.ToDo = append(end.ToDo, fmt.Sprintf("%v: no build embeds it and no baseline was touched; run it by its path (amr run %s)",
			setErr, p.path))
	}
	if !referencePasses {
		end.ToDo = append(end.ToDo, fmt.Sprintf("the reference fails %s (promoted with --force): fix the reference (examples/) until 'go run ./cmd/amr run %s' passes, then run 'go run ./cmd/amr regress --update'",
			name, p.path))
	}
	if len(end.Catches) == 0 {
		end.ToDo = append(end.ToDo, fmt.Sprintf("no built-in weak implementation fails %s, and every published scenario must catch one: add one to examples/registry.go with scenario %q (and its targets), or remove %s",
			name, name, p.path))
	}
	return end, nil
}

func failsAny(levels map[string]string) bool {
	for _, v := range levels {
		if v == suite.Fail {
			return true
		}
	}
	return false
}

// addBaselineRows writes base with the rows of scenario replaced by rows.
// No other row changes: the rest of the published set is as it was.
func addBaselineRows(path string, base *baseline, scenario string, rows []baselineResult) error {
	kept := make([]baselineResult, 0, len(base.Results)+len(rows))
	for _, r := range base.Results {
		if r.Scenario != scenario {
			kept = append(kept, r)
		}
	}
	kept = append(kept, rows...)
	sortResults(kept)
	data, err := marshalBaseline(baseline{Format: baselineFormat, Runs: base.Runs, Results: kept})
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func printPromotionEnd(w io.Writer, p *promotion, end *promotionEnd) {
	if end.Baseline != "" {
		fmt.Fprintf(w, "  baseline      %d rows for %s added to %s (every built-in implementation, as 'amr regress' measures them)\n",
			end.Rows, p.bundle.Meta.Name, end.Baseline)
	}
	if len(end.Catches) > 0 {
		fmt.Fprintf(w, "  catches       %s\n", strings.Join(end.Catches, ", "))
	}
	if len(end.ToDo) == 0 {
		fmt.Fprintf(w, "nothing left to do: 'go run ./cmd/amr run' includes it from the next build (published scenarios are embedded), and 'amr regress' and 'go test ./...' stay green; commit %s and %s.\n",
			p.path, end.Baseline)
		return
	}
	fmt.Fprintln(w, "left to do before the repository is green:")
	for _, t := range end.ToDo {
		fmt.Fprintf(w, "  - %s\n", t)
	}
}
