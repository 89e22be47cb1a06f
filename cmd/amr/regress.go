package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newRegressCmd) }

// baselineFormat tags a baseline file.
const baselineFormat = "amr.baseline/v1"

// defaultBaseline is where the committed baseline lives, from the
// repository's root.
const defaultBaseline = "testdata/baseline.json"

// baseline is the committed record of how every built-in implementation
// does on every published scenario.
type baseline struct {
	Format  string           `json:"format"`
	Runs    int              `json:"runs"`
	Results []baselineResult `json:"results"`
}

// baselineResult is one (scenario, implementation) pair: the level verdicts
// of its tested levels and the scenario's content hash when it was recorded.
type baselineResult struct {
	Scenario   string            `json:"scenario"`
	Impl       string            `json:"impl"`
	BundleHash string            `json:"bundle_hash"`
	Levels     map[string]string `json:"levels"`
}

// change is one (scenario, implementation, level) whose verdict moved.
type change struct {
	Scenario string `json:"scenario"`
	Impl     string `json:"impl"`
	Level    string `json:"level"`
	Before   string `json:"before"`
	After    string `json:"after"`
}

// regression is a regress run compared with the baseline.
type regression struct {
	Baseline string `json:"baseline"`
	Runs     int    `json:"runs"`
	Results  int    `json:"results"`
	// Regressions are levels that passed and now fail; Lost are levels
	// where a weak implementation failed and now passes (a planted defect
	// no longer caught); Improvements are levels the reference failed and
	// now passes; Other every other move (a level or scenario that
	// appeared or disappeared).
	Regressions  []change `json:"regressions"`
	Lost         []change `json:"lost"`
	Improvements []change `json:"improvements"`
	Other        []change `json:"other"`
	// Edited lists scenarios whose content hash differs from the
	// baseline's: their verdicts may move for that reason.
	Edited  []string `json:"edited"`
	Updated bool     `json:"updated"`
	Passed  bool     `json:"passed"`
}

// Hooks for tests: what regress runs and against what.
var (
	regressImpls     = builtinImpls
	regressScenarios = publishedBundles
)

func builtinImpls() []suite.Impl {
	var out []suite.Impl
	for _, im := range examples.All() {
		out = append(out, suite.Impl{Name: im.Name, New: im.New})
	}
	return out
}

func publishedBundles() ([]*scenarios.Bundle, error) {
	pubs, err := scenarios.Published()
	if err != nil {
		return nil, err
	}
	var out []*scenarios.Bundle
	for _, p := range pubs {
		out = append(out, p.Bundle)
	}
	return out, nil
}

// measure runs every scenario against every implementation, in parallel,
// and returns the results sorted by scenario then implementation.
func measure(bundles []*scenarios.Bundle, impls []suite.Impl, runs int) ([]baselineResult, error) {
	type job struct {
		b    *scenarios.Bundle
		impl suite.Impl
	}
	var jobs []job
	for _, b := range bundles {
		for _, im := range impls {
			jobs = append(jobs, job{b, im})
		}
	}
	results := make([]baselineResult, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				rep, err := suite.Run(j.b, j.impl, suite.Config{Runs: runs})
				if err != nil {
					errs[i] = err
					continue
				}
				if rep.Invalid {
					errs[i] = &exitError{code: exitInvalid, err: fmt.Errorf("%s with %s: the two oracles disagree (harness-invalid)", rep.Scenario, rep.Impl)}
					continue
				}
				results[i] = baselineResult{Scenario: rep.Scenario, Impl: rep.Impl, BundleHash: rep.BundleHash,
					Levels: testedLevels(rep.Levels)}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sortResults(results)
	return results, nil
}

// testedLevels keeps the levels a scenario tests.
func testedLevels(levels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range levels {
		if v != suite.Untested {
			out[k] = v
		}
	}
	return out
}

func sortResults(rs []baselineResult) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Scenario != rs[j].Scenario {
			return rs[i].Scenario < rs[j].Scenario
		}
		return rs[i].Impl < rs[j].Impl
	})
}

// compare lists every level whose verdict moved from the baseline to now.
func compare(base, now []baselineResult) regression {
	r := regression{Regressions: []change{}, Lost: []change{}, Improvements: []change{}, Other: []change{}, Edited: []string{}}
	type key struct{ scenario, impl string }
	old := map[key]baselineResult{}
	for _, b := range base {
		old[key{b.Scenario, b.Impl}] = b
	}
	cur := map[key]baselineResult{}
	for _, n := range now {
		cur[key{n.Scenario, n.Impl}] = n
	}
	keys := make([]key, 0, len(old)+len(cur))
	for k := range old {
		keys = append(keys, k)
	}
	for k := range cur {
		if _, ok := old[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].scenario != keys[j].scenario {
			return keys[i].scenario < keys[j].scenario
		}
		return keys[i].impl < keys[j].impl
	})
	edited := map[string]bool{}
	for _, k := range keys {
		b, n := old[k], cur[k]
		if b.BundleHash != "" && n.BundleHash != "" && b.BundleHash != n.BundleHash && !edited[k.scenario] {
			edited[k.scenario] = true
			r.Edited = append(r.Edited, k.scenario)
		}
		for _, level := range suite.LevelNames {
			before, after := verdict(b.Levels, level), verdict(n.Levels, level)
			if before == after {
				continue
			}
			c := change{Scenario: k.scenario, Impl: k.impl, Level: level, Before: before, After: after}
			switch {
			case before == suite.Pass && after == suite.Fail:
				r.Regressions = append(r.Regressions, c)
			case before == suite.Fail && after == suite.Pass && k.impl != examples.ReferenceName:
				r.Lost = append(r.Lost, c)
			case before == suite.Fail && after == suite.Pass:
				r.Improvements = append(r.Improvements, c)
			default:
				r.Other = append(r.Other, c)
			}
		}
	}
	r.Passed = len(r.Regressions) == 0 && len(r.Lost) == 0
	return r
}

func verdict(levels map[string]string, level string) string {
	if v, ok := levels[level]; ok {
		return v
	}
	return suite.Untested
}

// readBaseline reads a baseline file; a missing file is reported as such.
func readBaseline(path string) (*baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if b.Format != baselineFormat {
		return nil, fmt.Errorf("%s: format %q is not %q", path, b.Format, baselineFormat)
	}
	return &b, nil
}

// marshalBaseline renders a baseline with one result per line, so a change
// reads as a one-line diff.
func marshalBaseline(b baseline) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"format\": %q,\n  \"runs\": %d,\n  \"results\": [\n", b.Format, b.Runs)
	for i, r := range b.Results {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.WriteString("    ")
		buf.Write(line)
		if i < len(b.Results)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("  ]\n}\n")
	return buf.Bytes(), nil
}

func newRegressCmd() *cobra.Command {
	var (
		path           string
		runs           int
		update, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "regress",
		Short: "Compare every built-in implementation on every published scenario with the baseline",
		Long: `Regress runs every published scenario against every built-in implementation
(--runs runs each, seeds derived from the scenario names as 'amr run' does) and
compares the verdict of every (scenario, implementation, level) with the
committed baseline. It fails when a level that passed now fails, and when a
weak implementation passes a level it failed (a scenario that stopped
catching its defect: lost detection); it lists every change in either
direction. The reference passing a level it failed is an improvement.

--update rewrites the baseline from this run, deliberately; commit it with the
change that explains it.

The baseline is the repository's testdata/baseline.json, found from the
working directory upward (the nearest go.mod of the amr module), so regress
reads and --update writes the same file from any folder of the repository;
outside the repository it refuses unless --baseline names a file.

Exit 0 when nothing that passed now fails and no detection was lost, 1
otherwise, 2 on bad
input (a missing or unreadable baseline without --update), 3 when the two
oracles disagree on a run.`,
		Example: `  amr regress
  amr regress --update                     # after a deliberate change
  amr regress --runs 1 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runs < 1 {
				return usageErr("--runs must be at least 1")
			}
			if !cmd.Flags().Changed("baseline") {
				var err error
				if path, err = committedBaseline(); err != nil {
					return err
				}
			}
			var base *baseline
			if !update {
				var err error
				if base, err = readBaseline(path); err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						return usageErr("no baseline at %s: create it with 'amr regress --update'", path)
					}
					return &exitError{code: exitBad, err: err}
				}
			}
			bundles, err := regressScenarios()
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			now, err := measure(bundles, regressImpls(), runs)
			if err != nil {
				var ee *exitError
				if errors.As(err, &ee) {
					return &exitError{code: ee.code, err: err}
				}
				return &exitError{code: exitBad, err: err}
			}
			// With --update, the changes listed are those against the
			// baseline being replaced, when there is one.
			prev := now
			if base != nil {
				prev = base.Results
			} else if old, err := readBaseline(path); err == nil {
				prev = old.Results
			}
			r := compare(prev, now)
			r.Baseline, r.Runs, r.Results = path, runs, len(now)
			w := cmd.OutOrStdout()
			if update {
				data, err := marshalBaseline(baseline{Format: baselineFormat, Runs: runs, Results: now})
				if err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					return err
				}
				r.Updated, r.Passed = true, true
			}
			if err := emit(w, asJSON, r, func() { printRegression(w, r, base, len(bundles), len(regressImpls())) }); err != nil {
				return err
			}
			if !r.Passed {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&path, "baseline", defaultBaseline, "the baseline file (default: the repository's, found from the working directory)")
	f.IntVar(&runs, "runs", 5, "scored runs per scenario and implementation")
	f.BoolVar(&update, "update", false, "rewrite the baseline from this run")
	f.BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}

func printRegression(w io.Writer, r regression, base *baseline, nScenarios, nImpls int) {
	fmt.Fprintf(w, "%d scenario(s) x %d implementation(s), %d run(s) each, against %s\n", nScenarios, nImpls, r.Runs, r.Baseline)
	if base != nil && base.Runs != r.Runs {
		fmt.Fprintf(w, "note: the baseline was recorded with %d run(s) each\n", base.Runs)
	}
	for _, s := range r.Edited {
		fmt.Fprintf(w, "note: %s changed since the baseline (content hash differs)\n", s)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label string, c change, note string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", label, c.Scenario, c.Impl, c.Level)
		if note != "" {
			fmt.Fprintf(tw, "\t%s", note)
		}
		fmt.Fprintln(tw)
	}
	for _, c := range r.Regressions {
		row("pass -> FAIL", c, "regression")
	}
	for _, c := range r.Lost {
		row("FAIL -> pass", c, "lost: a weak implementation is no longer caught here")
	}
	for _, c := range r.Improvements {
		row("FAIL -> pass", c, "")
	}
	// Levels that appeared or disappeared together read as one row.
	for i := 0; i < len(r.Other); {
		c, levels := r.Other[i], []string{r.Other[i].Level}
		j := i + 1
		for ; j < len(r.Other); j++ {
			d := r.Other[j]
			if d.Scenario != c.Scenario || d.Impl != c.Impl || d.Before != c.Before || d.After != c.After {
				break
			}
			levels = append(levels, d.Level)
		}
		c.Level = strings.Join(levels, " ")
		row(fmt.Sprintf("%s -> %s", cell(c.Before), cell(c.After)), c, "")
		i = j
	}
	tw.Flush()
	switch {
	case r.Updated:
		fmt.Fprintf(w, "baseline written: %s (%d results)\n", r.Baseline, r.Results)
	case len(r.Regressions)+len(r.Lost)+len(r.Improvements)+len(r.Other) == 0:
		fmt.Fprintf(w, "no change: %d results match the baseline\n", r.Results)
	default:
		fmt.Fprintf(w, "%d regression(s), %d lost detection(s), %d improvement(s), %d other change(s)\n",
			len(r.Regressions), len(r.Lost), len(r.Improvements), len(r.Other))
	}
}
