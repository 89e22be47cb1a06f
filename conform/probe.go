package conform

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

// ReportFormat tags a conformance report.
const ReportFormat = "amr.conformance/v1"

// Statuses of one capability.
const (
	Match        = "match"
	Mismatch     = "mismatch"
	Unverifiable = "unverifiable"
	// Invalid marks a capability whose probes the two oracles disagreed on:
	// a harness bug, not a verdict either way.
	Invalid = "invalid"
)

// Declarations of a capability.
const (
	Present = "present"
	Absent  = "absent"
)

// Result is one capability's outcome.
type Result struct {
	// Capability is "origin", "level:L<n>" or an invariant id.
	Capability string `json:"capability"`
	// Declared is present or absent, or the declared origin.
	Declared string `json:"declared"`
	Status   string `json:"status"`
	// Observed is, for the origin, the origin the runs showed.
	Observed string `json:"observed,omitempty"`
	// Probes are the published scenarios that decided it.
	Probes []string `json:"probes"`
	// Evidence is what decided a mismatch: scenario, run, and the
	// violation with its file:line references.
	Evidence []string `json:"evidence,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

// Report is amr conform's answer.
type Report struct {
	Format         string         `json:"format"`
	Implementation string         `json:"implementation"`
	Runs           int            `json:"runs"`
	Results        []Result       `json:"results"`
	Counts         map[string]int `json:"counts"`
}

// Conforms reports whether no capability mismatched and none was invalid.
func (r *Report) Conforms() bool { return r.Counts[Mismatch] == 0 && r.Counts[Invalid] == 0 }

// Config says how to probe.
type Config struct {
	// Runs per probe scenario (spec §5: five).
	Runs int
	// Probes are the scenarios to probe with; nil means the published ones.
	Probes []scenarios.PublishedBundle
}

// Check runs the probes each declared capability implies against impl and
// compares what the runs show with what the submission declares. A probe
// scenario is played once for all the capabilities that need it.
func Check(s *Submission, impl play.Impl, cfg Config) (*Report, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = 1
	}
	probes := cfg.Probes
	if probes == nil {
		var err error
		if probes, err = scenarios.Published(); err != nil {
			return nil, err
		}
	}
	caps := capabilities(s, probes)
	needed := map[string]bool{}
	for _, c := range caps {
		if c.declared != Absent {
			for _, p := range c.probes {
				needed[p] = true
			}
		}
	}
	reports := map[string]*suite.Report{}
	for _, p := range probes {
		if !needed[p.Name] {
			continue
		}
		rep, err := suite.Run(p.Bundle, impl, suite.Config{Runs: cfg.Runs})
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", p.Name, err)
		}
		reports[p.Name] = rep
	}
	out := &Report{Format: ReportFormat, Implementation: impl.Name, Runs: cfg.Runs, Results: []Result{},
		Counts: map[string]int{Match: 0, Mismatch: 0, Unverifiable: 0, Invalid: 0}}
	for _, c := range caps {
		r := c.judge(reports)
		out.Results = append(out.Results, r)
		out.Counts[r.Status]++
	}
	return out, nil
}

// capability is one declared capability and the probes that decide it.
type capability struct {
	kind     int
	name     string
	declared string
	level    int    // for levels and invariants
	origin   string // for the origin
	probes   []string
}

// Kinds of capability.
const (
	kindOrigin = iota
	kindLevel
	kindInvariant
)

// capabilities lists what a submission declares: its origin, each level
// (attempted or not), and each invariant it names a mechanism or a gap for,
// in that order.
func capabilities(s *Submission, probes []scenarios.PublishedBundle) []capability {
	evaluating := func(level int) []string {
		var out []string
		for _, p := range probes {
			if p.Bundle.Meta.TopLevel >= level {
				out = append(out, p.Name)
			}
		}
		sort.Strings(out)
		return out
	}
	caps := []capability{{kind: kindOrigin, name: "origin", declared: s.DraftingOrigin, origin: s.DraftingOrigin, probes: evaluating(0)}}
	for l := checker.MinLevel; l <= checker.MaxLevel; l++ {
		c := capability{kind: kindLevel, name: fmt.Sprintf("level:L%d", l), declared: Absent, level: l, probes: evaluating(l)}
		if s.attempted(l) {
			c.declared = Present
		}
		caps = append(caps, c)
	}
	var inv []capability
	for _, m := range s.Mechanisms {
		i, _ := checker.Lookup(m.Invariant)
		inv = append(inv, capability{kind: kindInvariant, name: m.Invariant, declared: Present, level: i.Level, probes: evaluating(i.Level)})
	}
	for _, g := range s.KnownGaps {
		i, _ := checker.Lookup(g.Invariant)
		inv = append(inv, capability{kind: kindInvariant, name: g.Invariant, declared: Absent, level: i.Level, probes: evaluating(i.Level)})
	}
	sort.SliceStable(inv, func(a, b int) bool { return catalogueIndex(inv[a].name) < catalogueIndex(inv[b].name) })
	return append(caps, inv...)
}

func catalogueIndex(id string) int {
	for i, inv := range checker.Invariants() {
		if inv.ID == id {
			return i
		}
	}
	return len(checker.Invariants())
}

func (c capability) judge(reports map[string]*suite.Report) Result {
	r := Result{Capability: c.name, Declared: c.declared, Probes: []string{}}
	if c.declared == Absent {
		r.Status, r.Reason = Unverifiable, "declared absent: never exercised"
		return r
	}
	for _, p := range c.probes {
		if reports[p] != nil {
			r.Probes = append(r.Probes, p)
		}
	}
	if len(r.Probes) == 0 {
		r.Status, r.Reason = Unverifiable, "no probe scenario evaluates it"
		return r
	}
	for _, p := range r.Probes {
		if reports[p].Invalid {
			r.Status, r.Reason = Invalid, "the two oracles disagreed on probe "+p
			return r
		}
	}
	switch c.kind {
	case kindOrigin:
		c.judgeOrigin(&r, reports)
	case kindLevel:
		c.judgeLevel(&r, reports)
	default:
		c.judgeInvariant(&r, reports)
	}
	return r
}

func (c capability) judgeOrigin(r *Result, reports map[string]*suite.Report) {
	seen := map[string]bool{}
	for _, p := range r.Probes {
		if o := reports[p].Origin; o != checker.OriginNone {
			seen[o] = true
		}
	}
	switch len(seen) {
	case 0:
		r.Observed, r.Status, r.Reason = checker.OriginNone, Unverifiable, "no probe run declared a draft"
		return
	case 1:
		r.Observed = sortedKeys(seen)[0]
	default:
		r.Observed = checker.OriginMixed
	}
	r.Status = Match
	if r.Observed != c.origin {
		r.Status = Mismatch
		r.Evidence = []string{fmt.Sprintf("declared %s, the probe runs' drafts are %s", c.origin, r.Observed)}
	}
}

func (c capability) judgeLevel(r *Result, reports map[string]*suite.Report) {
	name := suite.LevelNames[c.level]
	r.Status = Match
	evidenced := false
	for _, p := range r.Probes {
		rep := reports[p]
		if rep.Levels[name] == suite.Pass {
			evidenced = evidenced || !slices.Contains(rep.Vacuous, name)
			continue
		}
		r.Status = Mismatch
		for _, v := range rep.Violations {
			if v.Level == c.level {
				r.Evidence = append(r.Evidence, evidence(p, v))
			}
		}
	}
	// A level that passed with nothing judged in every probe confirms
	// nothing: the probes never exercised what the level is about (D31).
	if r.Status == Match && !evidenced {
		r.Status, r.Reason = Unverifiable, "every probe passed "+name+" with no obligation judged (vacuous)"
	}
}

func (c capability) judgeInvariant(r *Result, reports map[string]*suite.Report) {
	r.Status = Match
	for _, p := range r.Probes {
		// One line per distinct violation, naming the runs that showed it.
		var order []string
		runs := map[string][]string{}
		for _, run := range reports[p].Runs {
			for _, v := range run.Violations {
				if v.Invariant != c.name {
					continue
				}
				d := describe(v)
				if _, seen := runs[d]; !seen {
					order = append(order, d)
				}
				runs[d] = append(runs[d], fmt.Sprint(run.Run))
			}
		}
		for _, d := range order {
			r.Status = Mismatch
			r.Evidence = append(r.Evidence, fmt.Sprintf("%s run(s) %s: %s", p, strings.Join(runs[d], ","), d))
		}
	}
}

func evidence(scenario string, v checker.Violation) string {
	return scenario + ": " + describe(v)
}

func describe(v checker.Violation) string {
	s := v.Invariant + " " + v.Detail
	if len(v.Evidence) > 0 {
		s += fmt.Sprintf(" %v", v.Evidence)
	}
	return s
}
