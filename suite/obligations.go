package suite

import "github.com/amr-bench/amr/checker"

// A level that passed in every run but judged no obligation in any of them
// is vacuous: nothing the level is about happened, so its pass is no
// evidence (decision D31). A level vacuous in some runs only still passes,
// with the evidence of the other runs; VacuousRuns says how many runs gave
// none, and the table marks it.

// ObligationMap is a verdict's obligation count per tested level.
func ObligationMap(v checker.Verdict) map[string]int {
	m := map[string]int{}
	for i, l := range v.Levels {
		if l != checker.Untested {
			m[LevelNames[i]] = v.Obligations[i]
		}
	}
	return m
}

// VacuousNames names a verdict's vacuous levels, in level order.
func VacuousNames(v checker.Verdict) []string {
	out := []string{}
	for _, l := range v.Vacuous {
		if l >= 0 && l < len(LevelNames) {
			out = append(out, LevelNames[l])
		}
	}
	return out
}

// foldObligations sums the runs' counts and decides which passed levels
// are vacuous: those vacuous in every run.
func (r *Report) foldObligations() {
	r.Obligations, r.Judged, r.VacuousRuns, r.Vacuous = map[string]int{}, map[string]int{}, map[string]int{}, []string{}
	for i, name := range LevelNames {
		if i > r.TopLevel {
			break
		}
		r.Obligations[name], r.VacuousRuns[name] = 0, 0
		for _, run := range r.Runs {
			r.Obligations[name] += run.Obligations[name]
			if contains(run.Vacuous, name) {
				r.VacuousRuns[name]++
			}
		}
		if r.Levels[name] == Pass && len(r.Runs) > 0 && r.VacuousRuns[name] == len(r.Runs) {
			r.Vacuous = append(r.Vacuous, name)
		}
	}
	for _, run := range r.Runs {
		for id, n := range run.Judged {
			r.Judged[id] += n
		}
	}
}

// Status is how a level of the report reads: pass, fail, untested, or
// vacuous for a pass with no obligation judged in any run.
func (r *Report) Status(level string) string {
	if contains(r.Vacuous, level) {
		return Vacuous
	}
	if v, ok := r.Levels[level]; ok {
		return v
	}
	return Untested
}

// PartlyVacuous reports whether a passed level judged no obligation in some
// of its runs but not all: its pass rests on fewer runs than were scored.
func (r *Report) PartlyVacuous(level string) bool {
	n := r.VacuousRuns[level]
	return r.Levels[level] == Pass && n > 0 && n < len(r.Runs)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
