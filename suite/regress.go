package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
)

// BaselineFormat tags a baseline file.
const BaselineFormat = "amr.baseline/v1"

// DefaultBaseline is where the committed baseline lives, from the
// repository's root.
const DefaultBaseline = "testdata/baseline.json"

// Baseline is the committed record of how every built-in implementation
// does on every published scenario.
type Baseline struct {
	Format  string           `json:"format"`
	Runs    int              `json:"runs"`
	Results []BaselineResult `json:"results"`
}

// BaselineResult is one (scenario, implementation) pair: the level verdicts
// of its tested levels, those of its passed levels that judged nothing in
// any run (decision D31), and the scenario's content hash when it was
// recorded.
type BaselineResult struct {
	Scenario   string            `json:"scenario"`
	Impl       string            `json:"impl"`
	BundleHash string            `json:"bundle_hash"`
	Levels     map[string]string `json:"levels"`
	Vacuous    []string          `json:"vacuous,omitempty"`
}

// Change is one (scenario, implementation, level) whose verdict moved.
type Change struct {
	Scenario string `json:"scenario"`
	Impl     string `json:"impl"`
	Level    string `json:"level"`
	Before   string `json:"before"`
	After    string `json:"after"`
}

// Comparison is a regress run compared with the baseline.
type Comparison struct {
	Baseline string `json:"baseline"`
	Runs     int    `json:"runs"`
	Results  int    `json:"results"`
	// Regressions are levels that passed (vacuously or not) and now fail;
	// Lost are levels where a weak implementation failed and now passes (a
	// planted defect no longer caught); Hollowed are levels that passed
	// with something judged and now pass vacuously (the scenario stopped
	// exercising them); Improvements are levels the reference failed and
	// now passes; Other every other move (a level or scenario that
	// appeared or disappeared, a vacuous level now exercised).
	Regressions  []Change `json:"regressions"`
	Lost         []Change `json:"lost"`
	Hollowed     []Change `json:"hollowed"`
	Improvements []Change `json:"improvements"`
	Other        []Change `json:"other"`
	// Edited lists scenarios whose content hash differs from the
	// baseline's: their verdicts may move for that reason.
	Edited  []string `json:"edited"`
	Updated bool     `json:"updated"`
	Passed  bool     `json:"passed"`
}

// ErrInvalid marks a measurement in which the two oracles disagreed on a
// run: no verdict of it can be compared.
var ErrInvalid = errors.New("the two oracles disagree (harness-invalid)")

// Measure runs every scenario against every implementation, in parallel,
// and returns the results sorted by scenario then implementation.
func Measure(bundles []*scenarios.Bundle, impls []play.Impl, runs int) ([]BaselineResult, error) {
	type job struct {
		b    *scenarios.Bundle
		impl play.Impl
	}
	var jobs []job
	for _, b := range bundles {
		for _, im := range impls {
			jobs = append(jobs, job{b, im})
		}
	}
	results := make([]BaselineResult, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = measureOne(jobs[i].b, jobs[i].impl, runs)
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
	SortResults(results)
	return results, nil
}

func measureOne(b *scenarios.Bundle, impl play.Impl, runs int) (BaselineResult, error) {
	rep, err := Run(b, impl, Config{Runs: runs})
	if err != nil {
		return BaselineResult{}, err
	}
	if rep.Invalid {
		return BaselineResult{}, fmt.Errorf("%s with %s: %w", rep.Scenario, rep.Impl, ErrInvalid)
	}
	return BaselineResult{Scenario: rep.Scenario, Impl: rep.Impl, BundleHash: rep.BundleHash,
		Levels: testedLevels(rep.Levels), Vacuous: append([]string(nil), rep.Vacuous...)}, nil
}

// testedLevels keeps the levels a scenario tests.
func testedLevels(levels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range levels {
		if v != Untested {
			out[k] = v
		}
	}
	return out
}

// SortResults orders results by scenario, then implementation, as a
// baseline file holds them.
func SortResults(rs []BaselineResult) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Scenario != rs[j].Scenario {
			return rs[i].Scenario < rs[j].Scenario
		}
		return rs[i].Impl < rs[j].Impl
	})
}

type resultKey struct{ scenario, impl string }

// Compare lists every level whose verdict moved from the baseline to now.
// reference names the implementation that is meant to pass: its passing a
// level it failed is an improvement, any other implementation's is a lost
// detection.
func Compare(base, now []BaselineResult, reference string) Comparison {
	r := Comparison{Regressions: []Change{}, Lost: []Change{}, Hollowed: []Change{}, Improvements: []Change{}, Other: []Change{},
		Edited: []string{}}
	old, cur := byKey(base), byKey(now)
	edited := map[string]bool{}
	for _, k := range unionKeys(old, cur) {
		b, n := old[k], cur[k]
		if b.BundleHash != "" && n.BundleHash != "" && b.BundleHash != n.BundleHash && !edited[k.scenario] {
			edited[k.scenario] = true
			r.Edited = append(r.Edited, k.scenario)
		}
		for _, level := range LevelNames {
			before, after := b.Verdict(level), n.Verdict(level)
			if before != after {
				r.add(Change{Scenario: k.scenario, Impl: k.impl, Level: level, Before: before, After: after}, reference)
			}
		}
	}
	r.Passed = len(r.Regressions) == 0 && len(r.Lost) == 0 && len(r.Hollowed) == 0
	return r
}

func (r *Comparison) add(c Change, reference string) {
	switch {
	case passes(c.Before) && c.After == Fail:
		r.Regressions = append(r.Regressions, c)
	case c.Before == Fail && passes(c.After) && c.Impl != reference:
		r.Lost = append(r.Lost, c)
	case c.Before == Fail && passes(c.After):
		r.Improvements = append(r.Improvements, c)
	case c.Before == Pass && c.After == Vacuous:
		r.Hollowed = append(r.Hollowed, c)
	default:
		r.Other = append(r.Other, c)
	}
}

// passes reports whether a level verdict is a pass, vacuous or not.
func passes(v string) bool { return v == Pass || v == Vacuous }

func byKey(rs []BaselineResult) map[resultKey]BaselineResult {
	m := map[resultKey]BaselineResult{}
	for _, x := range rs {
		m[resultKey{x.Scenario, x.Impl}] = x
	}
	return m
}

// unionKeys lists the keys of both maps, each once, sorted.
func unionKeys(old, cur map[resultKey]BaselineResult) []resultKey {
	keys := make([]resultKey, 0, len(old)+len(cur))
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
	return keys
}

// Verdict is how a result's level reads: pass, fail, untested, or vacuous
// for a pass that judged nothing.
func (b BaselineResult) Verdict(level string) string {
	v, ok := b.Levels[level]
	switch {
	case !ok:
		return Untested
	case v == Pass && slices.Contains(b.Vacuous, level):
		return Vacuous
	}
	return v
}

// ReadBaseline reads a baseline file; a missing file is reported as such
// (errors.Is fs.ErrNotExist).
func ReadBaseline(path string) (*Baseline, error) {
	data, err := safefile.ReadFile(path, 0)
	if err != nil {
		return nil, err
	}
	if err := jsondepth.Check(data, 0); err != nil {
		return nil, fmt.Errorf("%s:%w", path, jsondepth.At(err))
	}
	var b Baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if b.Format != BaselineFormat {
		return nil, fmt.Errorf("%s: format %q is not %q", path, b.Format, BaselineFormat)
	}
	return &b, nil
}

// Marshal renders a baseline with one result per line, so a change reads
// as a one-line diff.
func (b Baseline) Marshal() ([]byte, error) {
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

// WriteBaseline writes a baseline of results measured with runs runs each
// to path, making its directory when needed.
func WriteBaseline(path string, runs int, results []BaselineResult) error {
	data, err := Baseline{Format: BaselineFormat, Runs: runs, Results: results}.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// Atomic: an interrupted --update leaves the old baseline whole.
	return safefile.WriteFile(path, data, 0o644)
}
