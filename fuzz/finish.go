package fuzz

import (
	"fmt"
	"path/filepath"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

// A promotion is finished when the repository is green with the new
// scenario in it. Two things in the repository depend on the published set:
// the committed baseline (testdata/baseline.json, which 'amr regress' and a
// test read) must have a row for the new scenario with every built-in
// implementation, and every published scenario must catch some weak
// implementation (suite's TestEveryWeakImplementationIsCaughtByItsScenario).
// FinishPromotion does the first and checks the second; what it cannot do
// it names as a step to take.

// PromotionEnd is what finishing a promotion did and what is left.
type PromotionEnd struct {
	// Baseline is the baseline file the new rows went into, and Rows how
	// many; empty when none was written.
	Baseline string
	Rows     int
	// Catches are the weak implementations that fail the new scenario.
	Catches []string
	// ToDo are the steps left for a person, each with its command or file.
	ToDo []string
}

// PublishedSet is the repository whose published scenarios a --scenarios
// directory is: the root holding it as its scenarios/ folder. Scenarios
// promoted anywhere else are not embedded by any build.
func PublishedSet(scenariosDir string) (string, error) {
	abs, err := filepath.Abs(scenariosDir)
	if err != nil {
		return "", err
	}
	root, ok := suite.RepoRoot(abs)
	if !ok || filepath.Join(root, "scenarios") != abs {
		return "", fmt.Errorf("%s is not the scenarios/ folder of the amr repository", scenariosDir)
	}
	return root, nil
}

// FinishPromotion measures the promoted bundle against impls as 'amr
// regress' does, adds those rows to the repository's baseline when the
// promotion went into the repository's scenarios/, and lists the
// implementations other than reference that it catches.
func FinishPromotion(p *Promotion, scenariosDir string, referencePasses bool, impls []play.Impl, reference string) (*PromotionEnd, error) {
	end := &PromotionEnd{}
	name := p.Bundle.Meta.Name
	root, setErr := PublishedSet(scenariosDir)
	runs := 5
	var base *suite.Baseline
	basePath := ""
	if setErr == nil {
		basePath = filepath.Join(root, suite.DefaultBaseline)
		if b, err := suite.ReadBaseline(basePath); err == nil {
			base, runs = b, b.Runs
		} else {
			end.ToDo = append(end.ToDo, fmt.Sprintf("the baseline could not be read (%v): run 'go run ./cmd/amr regress --update' in %s and commit %s",
				err, root, suite.DefaultBaseline))
		}
	}
	rows, err := suite.Measure([]*scenarios.Bundle{p.Bundle}, impls, runs)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Impl != reference && failsAny(r.Levels) {
			end.Catches = append(end.Catches, r.Impl)
		}
	}
	if base != nil {
		if err := addToBaseline(basePath, name, rows); err != nil {
			return nil, err
		}
		end.Baseline, end.Rows = basePath, len(rows)
	}
	if setErr != nil {
		end.ToDo = append(end.ToDo, fmt.Sprintf("%v: no build embeds it and no baseline was touched; run it by its path (amr run %s)",
			setErr, p.Path))
	}
	if !referencePasses {
		end.ToDo = append(end.ToDo, fmt.Sprintf("the reference fails %s (promoted with --force): fix the reference (examples/) until 'go run ./cmd/amr run %s' passes, then run 'go run ./cmd/amr regress --update'",
			name, p.Path))
	}
	if len(end.Catches) == 0 {
		end.ToDo = append(end.ToDo, fmt.Sprintf("no built-in weak implementation fails %s, and every published scenario must catch one: add one to examples/registry.go with scenario %q (and its targets), or remove %s",
			name, name, p.Path))
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

// addToBaseline adds the scenario's rows to the baseline under a lock on
// its directory, reading it again inside the lock: two promotions of
// different scenarios at once both land, neither overwrites the other's
// rows, and the file is replaced atomically.
func addToBaseline(path, name string, rows []suite.BaselineResult) error {
	return safefile.WithDirLock(filepath.Dir(path), func() error {
		base, err := suite.ReadBaseline(path)
		if err != nil {
			return err
		}
		data, err := base.WithScenario(name, rows).Marshal()
		if err != nil {
			return err
		}
		return safefile.WriteFile(path, data, 0o644)
	})
}
