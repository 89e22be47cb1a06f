package report

import (
	"sort"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/suite"
)

// How a scoreboard cell reads, besides suite's pass, fail, untested and
// vacuous.
const (
	// Annulled: the level failed only in results classified
	// fixture-defect, which are shown and not counted (spec §5).
	Annulled = "annulled"
	// Invalid: the two oracles disagreed on a run: a harness bug, neither
	// pass nor fail.
	Invalid = "invalid"
)

// Scoreboard is implementations × levels over the latest result of every
// scenario per implementation.
type Scoreboard struct {
	Levels []string `json:"levels"`
	Rows   []Row    `json:"rows"`
}

// Row is one implementation.
type Row struct {
	Impl      string   `json:"impl"`
	Scenarios int      `json:"scenarios"`
	Cells     []Cell   `json:"cells"`
	Observed  Observed `json:"harness_observed"`
	// SelfReported is what the submission says of its own effort, when a
	// submission directory with an effort file was given.
	SelfReported *SelfReported `json:"self_reported,omitempty"`
}

// Cell is one implementation at one level.
type Cell struct {
	Level string `json:"level"`
	// Status is pass, fail, vacuous, untested, annulled or invalid.
	Status string `json:"status"`
	// Origin is the drafting origin of the runs behind the cell:
	// model-based, model-free, mixed, or none.
	Origin string `json:"origin"`
	// Scenarios test the level; Runs and Forced count their scored runs
	// and forced advances.
	Scenarios int      `json:"scenarios"`
	Runs      int      `json:"runs"`
	Forced    int      `json:"forced_advances"`
	Failed    []string `json:"failed"`
	Annulled  []string `json:"annulled"`
}

// Observed is the effort the harness sees (spec §6 "harness-observed").
type Observed struct {
	// Runs counts every scored run of every report read for the
	// implementation, superseded ones included: the runs it needed.
	Runs   int `json:"runs"`
	Forced int `json:"forced_advances"`
	// Lines are counted from the submission directory, when one was given.
	Submission *Submission `json:"submission,omitempty"`
}

// result is one scenario's report for one implementation, with where it
// came from.
type result struct {
	report *suite.Report
	source string
}

// buildScoreboard scores the latest result of each (implementation,
// scenario): the one read last. Every result read counts toward the runs
// the implementation needed.
func buildScoreboard(all []result, failures []Failure, subs map[string]*Submission) Scoreboard {
	sb := Scoreboard{Levels: suite.LevelNames[:]}
	latest := map[string]map[string]*suite.Report{}
	observed := map[string]*Observed{}
	var impls []string
	for _, r := range all {
		impl := r.report.Impl
		if latest[impl] == nil {
			latest[impl] = map[string]*suite.Report{}
			observed[impl] = &Observed{}
			impls = append(impls, impl)
		}
		latest[impl][r.report.Scenario] = r.report
		observed[impl].Runs += len(r.report.Runs)
		observed[impl].Forced += forcedOf(r.report)
	}
	sort.Strings(impls)
	annulled := map[classKey]bool{}
	for _, f := range failures {
		if f.Annulled {
			annulled[classKey{f.Impl, f.Scenario, f.Level}] = true
		}
	}
	for _, impl := range impls {
		row := Row{Impl: impl, Scenarios: len(latest[impl]), Observed: *observed[impl]}
		if s := subs[impl]; s != nil {
			row.Observed.Submission = s
			row.SelfReported = s.SelfReported
		}
		names := make([]string, 0, len(latest[impl]))
		for name := range latest[impl] {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, level := range suite.LevelNames {
			row.Cells = append(row.Cells, buildCell(impl, level, names, latest[impl], annulled))
		}
		sb.Rows = append(sb.Rows, row)
	}
	if sb.Rows == nil {
		sb.Rows = []Row{}
	}
	return sb
}

// buildCell scores one level over the scenarios that test it: fail when a
// counted result failed, invalid when a run's oracles disagreed, pass when
// one passed with evidence, vacuous when every counted pass judged
// nothing, annulled when only annulled failures tested it, untested when
// no scenario did.
func buildCell(impl, level string, names []string, reports map[string]*suite.Report, annulled map[classKey]bool) Cell {
	c := Cell{Level: level, Status: suite.Untested, Failed: []string{}, Annulled: []string{}}
	origins := map[string]bool{}
	var pass, vacuous, fail, invalid bool
	for _, name := range names {
		r := reports[name]
		s := r.Status(level)
		if s == suite.Untested || s == "" {
			continue
		}
		if s == suite.Fail && annulled[classKey{impl, name, level}] {
			c.Annulled = append(c.Annulled, name)
			continue
		}
		c.Scenarios++
		c.Runs += len(r.Runs)
		c.Forced += forcedOf(r)
		if r.Origin != checker.OriginNone && r.Origin != "" {
			origins[r.Origin] = true
		}
		switch {
		case r.Invalid:
			invalid = true
		case s == suite.Fail:
			fail = true
			c.Failed = append(c.Failed, name)
		case s == suite.Vacuous:
			vacuous = true
		default:
			pass = true
		}
	}
	switch {
	case fail:
		c.Status = suite.Fail
	case invalid:
		c.Status = Invalid
	case pass:
		c.Status = suite.Pass
	case vacuous:
		c.Status = suite.Vacuous
	case len(c.Annulled) > 0:
		c.Status = Annulled
	}
	c.Origin = combineOrigins(origins)
	return c
}

// combineOrigins tags a cell: the one origin its runs share, mixed when
// they differ, none when no run declared a draft.
func combineOrigins(origins map[string]bool) string {
	switch len(origins) {
	case 0:
		return checker.OriginNone
	case 1:
		for o := range origins {
			return o
		}
	}
	return checker.OriginMixed
}

func forcedOf(r *suite.Report) int {
	n := 0
	for _, run := range r.Runs {
		n += run.Forced
	}
	return n
}
