package report

import (
	"fmt"
	"sort"

	"github.com/amr-bench/amr/suite"
)

// Failure is one FAIL (an implementation's scenario at one level) with its
// class.
type Failure struct {
	Impl     string `json:"impl"`
	Scenario string `json:"scenario"`
	Level    string `json:"level"`
	// Invariants are the level's invariants the scenario's runs violated.
	Invariants []string `json:"invariants"`
	Class      string   `json:"class"`
	// Source is where the class comes from: "disclosure FILE",
	// "override FILE", or "unclassified" (counted as mechanism).
	Source        string `json:"source"`
	Justification string `json:"justification,omitempty"`
	// Annulled is set for a fixture-defect: shown, not counted.
	Annulled bool `json:"annulled"`
}

// Unclassified is the source of a FAIL no file classifies: it counts as a
// mechanism failure, the system's own, until someone says otherwise in the
// open.
const Unclassified = "unclassified"

// classify lists the FAILs of the latest results and gives each its
// class: an override's over the submission's disclosure, and mechanism
// where neither says. Classifications that match no FAIL are returned
// apart, so a stale one is seen rather than silently dropped.
func classify(all []result, disclosed, overrides []sourced) ([]Failure, []Classification) {
	latest := map[[2]string]*suite.Report{}
	var keys [][2]string
	for _, r := range all {
		k := [2]string{r.report.Impl, r.report.Scenario}
		if _, ok := latest[k]; !ok {
			keys = append(keys, k)
		}
		latest[k] = r.report
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	byKey := map[classKey]sourced{}
	for _, s := range disclosed {
		byKey[classKey{s.c.Impl, s.c.Scenario, s.c.Level}] = s
	}
	for _, s := range overrides {
		byKey[classKey{s.c.Impl, s.c.Scenario, s.c.Level}] = s
	}
	used := map[classKey]bool{}
	failures := []Failure{}
	for _, k := range keys {
		r := latest[k]
		for _, level := range suite.LevelNames {
			if r.Status(level) != suite.Fail {
				continue
			}
			f := Failure{Impl: k[0], Scenario: k[1], Level: level, Invariants: invariantsAt(r, level),
				Class: ClassMechanism, Source: Unclassified}
			ck := classKey{k[0], k[1], level}
			if s, ok := byKey[ck]; ok {
				used[ck] = true
				f.Class, f.Source, f.Justification = s.c.Class, s.source, s.c.Justification
				f.Annulled = s.c.Class == ClassFixtureDefect
			}
			failures = append(failures, f)
		}
	}
	var unmatched []Classification
	for _, list := range [][]sourced{disclosed, overrides} {
		for _, s := range list {
			if !used[classKey{s.c.Impl, s.c.Scenario, s.c.Level}] {
				unmatched = append(unmatched, s.c)
			}
		}
	}
	if unmatched == nil {
		unmatched = []Classification{}
	}
	return failures, unmatched
}

// sourced is a classification with where it was read.
type sourced struct {
	c      Classification
	source string
}

func sourcedAll(list []Classification, kind, path string) []sourced {
	out := make([]sourced, len(list))
	for i, c := range list {
		out[i] = sourced{c: c, source: fmt.Sprintf("%s %s", kind, path)}
	}
	return out
}

// invariantsAt lists, sorted and once each, the invariants of a level that
// the report's violations name.
func invariantsAt(r *suite.Report, level string) []string {
	n, _ := levelIndex(level)
	seen := map[string]bool{}
	out := []string{}
	for _, v := range r.Violations {
		if v.Level == n && !seen[v.Invariant] {
			seen[v.Invariant] = true
			out = append(out, v.Invariant)
		}
	}
	sort.Strings(out)
	return out
}
