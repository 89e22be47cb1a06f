package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// The artifacts a receipt's own fields can be checked against: the verdict
// the run kept and the first record of its run log. A receipt whose content
// hash and chain verify may still be a consistent lie (edited, then
// re-hashed, and every later receipt re-linked); these files were hashed
// into it when it was sealed, so what they say must be what it says.
const (
	verdictArtifact = "verdict.json"
	runLogArtifact  = "run.jsonl"
)

// keptVerdict is what a run's verdict.json says, as far as a receipt copies
// it (suite.RunReport, read without importing it).
type keptVerdict struct {
	Run         int               `json:"run"`
	EngineSeed  string            `json:"engine_seed"`
	Levels      map[string]string `json:"levels"`
	Obligations map[string]int    `json:"obligations"`
	Judged      map[string]int    `json:"judged"`
	Vacuous     []string          `json:"vacuous"`
	Origin      string            `json:"origin"`
	Violations  []Violation       `json:"violations"`
	Invalid     bool              `json:"invalid"`
	History     struct {
		Counts map[string]int `json:"counts"`
	} `json:"history"`
	Surprise struct {
		Unattributed int `json:"unattributed"`
	} `json:"surprise"`
}

// runStart is the run log's first record, as far as a receipt names it.
type runStart struct {
	Kind       string `json:"kind"`
	Bundle     string `json:"bundle"`
	BundleHash string `json:"bundle_hash"`
	EngineSeed string `json:"engine_seed"`
}

// checkVerdict compares a ran receipt with the verdict.json it names.
func (rep *Report) checkVerdict(e entry, name string, data []byte) {
	var v keptVerdict
	if err := json.Unmarshal(data, &v); err != nil {
		rep.add(e.pos, ProblemArtifactDisagrees, fmt.Sprintf("%s is not a verdict: %v", name, err))
		return
	}
	r := e.r
	var diffs []string
	if v.Run != r.Run {
		diffs = append(diffs, fmt.Sprintf("run %d, the receipt %d", v.Run, r.Run))
	}
	if v.EngineSeed != r.Seed {
		diffs = append(diffs, fmt.Sprintf("engine seed %s, the receipt %s", orNone(v.EngineSeed), orNone(r.Seed)))
	}
	diffs = append(diffs, levelDiffs(v.Levels, r.Verdict.Levels)...)
	if v.Origin != r.Verdict.Origin {
		diffs = append(diffs, fmt.Sprintf("origin %s, the receipt %s", orNone(v.Origin), orNone(r.Verdict.Origin)))
	}
	if v.Invalid != r.Verdict.Invalid {
		diffs = append(diffs, fmt.Sprintf("invalid %t, the receipt %t", v.Invalid, r.Verdict.Invalid))
	}
	if !sameViolations(v.Violations, r.Verdict.Violations) {
		diffs = append(diffs, fmt.Sprintf("%d violation(s) %s, the receipt %d %s",
			len(v.Violations), invariants(v.Violations), len(r.Verdict.Violations), invariants(r.Verdict.Violations)))
	}
	diffs = append(diffs, countDiffs("history", nonZeroCounts(v.History.Counts), nonZeroCounts(r.Verdict.History))...)
	if v.Surprise.Unattributed != r.Verdict.UnattributedCalls {
		diffs = append(diffs, fmt.Sprintf("%d unattributed call(s), the receipt %d", v.Surprise.Unattributed, r.Verdict.UnattributedCalls))
	}
	// A receipt sealed before obligations were kept says nothing about
	// them (see Verdict), so only a receipt that has them is held to them.
	if r.Verdict.Obligations != nil || r.Verdict.Judged != nil || r.Verdict.Vacuous != nil {
		diffs = append(diffs, countDiffs("obligations", v.Obligations, r.Verdict.Obligations)...)
		diffs = append(diffs, countDiffs("judged", v.Judged, r.Verdict.Judged)...)
		if !sameStrings(v.Vacuous, r.Verdict.Vacuous) {
			diffs = append(diffs, fmt.Sprintf("vacuous %v, the receipt %v", v.Vacuous, r.Verdict.Vacuous))
		}
	}
	if len(diffs) > 0 {
		rep.add(e.pos, ProblemArtifactDisagrees, fmt.Sprintf("%s says %s", name, strings.Join(diffs, "; ")))
	}
}

// checkRunLog compares a ran receipt with the first record of the run log
// it names: the bundle, its hash and the engine seed the engine wrote.
func (rep *Report) checkRunLog(e entry, name string, data []byte) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var s runStart
	if err := json.Unmarshal(first, &s); err != nil || s.Kind != "start" {
		rep.add(e.pos, ProblemArtifactDisagrees, fmt.Sprintf("%s does not begin with the run's start record", name))
		return
	}
	r := e.r
	var diffs []string
	if s.Bundle != r.Scenario {
		diffs = append(diffs, fmt.Sprintf("bundle %s, the receipt %s", orNone(s.Bundle), orNone(r.Scenario)))
	}
	if s.BundleHash != r.BundleHash {
		diffs = append(diffs, fmt.Sprintf("bundle hash %s, the receipt %s", orNone(s.BundleHash), orNone(r.BundleHash)))
	}
	if s.EngineSeed != r.Seed {
		diffs = append(diffs, fmt.Sprintf("engine seed %s, the receipt %s", orNone(s.EngineSeed), orNone(r.Seed)))
	}
	if len(diffs) > 0 {
		rep.add(e.pos, ProblemArtifactDisagrees, fmt.Sprintf("%s says %s", name, strings.Join(diffs, "; ")))
	}
}

func levelDiffs(kept, receipt map[string]string) []string {
	var out []string
	for _, k := range unionKeys(kept, receipt) {
		if kept[k] != receipt[k] {
			out = append(out, fmt.Sprintf("%s %s, the receipt %s", k, orNone(kept[k]), orNone(receipt[k])))
		}
	}
	return out
}

func countDiffs(what string, kept, receipt map[string]int) []string {
	var out []string
	for _, k := range unionKeys(kept, receipt) {
		if kept[k] != receipt[k] {
			out = append(out, fmt.Sprintf("%s %s %d, the receipt %d", what, k, kept[k], receipt[k]))
		}
	}
	return out
}

// unionKeys returns the keys of both maps, sorted, so a report reads the
// same every time.
func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

func nonZeroCounts(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range m {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// sameViolations compares two violation lists as records: an empty
// evidence list and a missing one are the same record.
func sameViolations(a, b []Violation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if len(x.Evidence) == 0 && len(y.Evidence) == 0 {
			x.Evidence, y.Evidence = nil, nil
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func sameStrings(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func invariants(vs []Violation) string {
	ids := make([]string, 0, len(vs))
	for _, v := range vs {
		ids = append(ids, v.Invariant)
	}
	if len(ids) == 0 {
		return "(none)"
	}
	return "(" + strings.Join(ids, ", ") + ")"
}
