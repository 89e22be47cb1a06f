package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// stateLag is how many visited ticks state.json may lag the logs after a
// forced advance (spec §2 state: "a lag allowance of 2 ticks").
const stateLag = 2

// logView is what the logs say at the end of one tick, in the terms
// state.json must agree with.
type logView struct {
	admitted   []string // work ids, sorted
	isAdmitted map[string]bool
	outcome    map[string]string // work id -> latest resolution outcome
	winner     map[string]string // work id -> its one current winner, when claims name exactly one
	dead       []string          // agents named by a fired AGENT_DEATH, sorted
}

func (f *facts) viewAt(t int) *logView {
	v := &logView{outcome: map[string]string{}, winner: map[string]string{}, isAdmitted: map[string]bool{}}
	for _, a := range f.admissions {
		if a.at.by(t) && !v.isAdmitted[a.WorkID] {
			v.isAdmitted[a.WorkID] = true
			v.admitted = append(v.admitted, a.WorkID)
		}
	}
	sort.Strings(v.admitted)
	for _, r := range f.resolutions {
		if r.at.by(t) {
			v.outcome[r.WorkID] = r.Outcome
		}
	}
	claims := map[string]claimState{}
	for _, c := range f.claims {
		if !c.at.by(t) {
			continue
		}
		if claims[c.WorkID] == nil {
			claims[c.WorkID] = claimState{}
		}
		claims[c.WorkID][c.AgentID] = c.Outcome
	}
	for w, cs := range claims {
		if win, ok := cs.soleWinner(); ok {
			v.winner[w] = win
		}
	}
	deadSeen := map[string]bool{}
	for _, s := range f.deaths {
		if s.at.by(t) && !deadSeen[s.Target] {
			deadSeen[s.Target] = true
			v.dead = append(v.dead, s.Target)
		}
	}
	sort.Strings(v.dead)
	return v
}

const keyMissing = "missing"

// stateProblem is one disagreement between state.json and the logs; key
// identifies it across ticks so a run of ticks collapses into one report.
type stateProblem struct {
	key, work, detail string
	// schema marks a snapshot that does not follow the spec's schema: it is
	// L3.state-schema, and nothing else of it can be compared.
	schema bool
}

// compareState lists every disagreement between a snapshot and a view of
// the logs, sorted by key.
func compareState(st snapshot, v *logView) []stateProblem {
	if st.err != nil {
		text := lineErrText(st.err)
		return []stateProblem{{key: "schema:" + text, schema: true, detail: text}}
	}
	if st.missing {
		if len(v.admitted) == 0 {
			return nil
		}
		return []stateProblem{{key: keyMissing, detail: fmt.Sprintf("%s is missing while work items are admitted", sandbox.State)}}
	}
	var out []stateProblem
	add := func(key, work, format string, args ...any) {
		out = append(out, stateProblem{key: key + ":" + work, work: work, detail: fmt.Sprintf(format, args...)})
	}
	items := map[string]sandbox.WorkItemState{}
	for _, wi := range st.snap.WorkItems {
		if _, dup := items[wi.WorkID]; !dup {
			items[wi.WorkID] = wi
		}
	}
	for _, w := range v.admitted {
		if _, ok := items[w]; !ok {
			add("absent", w, "work item %s is admitted but missing from %s", w, sandbox.State)
		}
	}
	for _, wi := range st.snap.WorkItems {
		w := wi.WorkID
		if !v.isAdmitted[w] {
			add("extra", w, "%s lists work item %s, which is not admitted", sandbox.State, w)
			continue
		}
		out = append(out, compareItem(wi, v)...)
	}
	out = append(out, compareAssignments(st.snap, items)...)
	for _, agent := range st.snap.Agents {
		if agent.Alive && contains(v.dead, agent.ID) {
			out = append(out, stateProblem{key: "alive:" + agent.ID,
				detail: fmt.Sprintf("agent %s is dead by AGENT_DEATH but alive in %s", agent.ID, sandbox.State)})
		}
	}
	return dedupe(out)
}

// dedupe sorts problems by key and keeps the first of each key.
func dedupe(ps []stateProblem) []stateProblem {
	sortStable(ps, func(a, b stateProblem) bool { return a.key < b.key })
	var out []stateProblem
	for i, p := range ps {
		if i == 0 || p.key != ps[i-1].key {
			out = append(out, p)
		}
	}
	return out
}

// compareItem checks one work item's status and assigned agent.
func compareItem(wi sandbox.WorkItemState, v *logView) []stateProblem {
	var out []stateProblem
	w := wi.WorkID
	outcome, resolved := v.outcome[w]
	switch {
	case resolved && wi.Status != outcome:
		out = append(out, stateProblem{key: "status:" + w, work: w,
			detail: fmt.Sprintf("work item %s has status %q but is resolved %s", w, wi.Status, outcome)})
	case !resolved && (wi.Status == sandbox.OutcomeCompleted || wi.Status == sandbox.OutcomeAbandoned):
		out = append(out, stateProblem{key: "status:" + w, work: w,
			detail: fmt.Sprintf("work item %s has status %q but no resolution record", w, wi.Status)})
	}
	want, claimed := v.winner[w]
	if !claimed {
		return out
	}
	got := ""
	if wi.AssignedAgent != nil {
		got = *wi.AssignedAgent
	}
	if got != want && !(resolved && got == "") {
		out = append(out, stateProblem{key: "agent:" + w, work: w,
			detail: fmt.Sprintf("work item %s is assigned to %q but its claims name %s", w, got, want)})
	}
	return out
}

// compareAssignments checks that assignments and work_items' assigned_agent
// say the same thing.
func compareAssignments(s sandbox.Snapshot, items map[string]sandbox.WorkItemState) []stateProblem {
	agents := map[string][]string{}
	var works []string
	for _, a := range s.Assignments {
		if agents[a.WorkID] == nil {
			works = append(works, a.WorkID)
		}
		if !contains(agents[a.WorkID], a.AgentID) {
			agents[a.WorkID] = append(agents[a.WorkID], a.AgentID)
		}
	}
	for _, wi := range s.WorkItems {
		if agents[wi.WorkID] == nil && wi.AssignedAgent != nil && *wi.AssignedAgent != "" {
			works = append(works, wi.WorkID)
		}
	}
	var out []stateProblem
	seen := map[string]bool{}
	for _, w := range works {
		if seen[w] {
			continue
		}
		seen[w] = true
		want := ""
		if wi, ok := items[w]; ok && wi.AssignedAgent != nil {
			want = *wi.AssignedAgent
		}
		got := agents[w]
		if len(got) == 0 && want == "" || len(got) == 1 && got[0] == want {
			continue
		}
		sort.Strings(got)
		out = append(out, stateProblem{key: "assign:" + w, work: w,
			detail: fmt.Sprintf("assignments give work item %s to [%s] but work_items say %q", w, strings.Join(got, ", "), want)})
	}
	return out
}

func lineErrText(e *sandbox.LineError) string {
	if e.Field != "" {
		return e.Field + ": " + e.Msg
	}
	return e.Msg
}

// checkStateConsistency: state.json follows the spec's schema
// (L3.state-schema) and agrees with the logs exactly at every quiescent
// tick, within the lag allowance after a forced advance, and at the end of
// the run (L3.state-consistency). A state.json missing at the end is itself
// a violation. Both read the same versions over the same tick ranges, so
// they are judged in one pass.
func checkStateConsistency(f *facts) []Violation {
	var out []Violation
	reported := false
	if f.ordered {
		out, reported = f.stateOverRun()
	} else {
		f.judgedWhen(!f.final.missing, "L3.state-consistency")
		for _, p := range compareState(f.final, f.viewAt(f.tl.last())) {
			if p.key == keyMissing {
				continue
			}
			out = append(out, stateViolation(p, f.tl.last(), f.tl.last()))
		}
	}
	if f.final.missing && !reported {
		f.judged("L3.state-consistency")
		out = append(out, Violation{Invariant: "L3.state-consistency", Level: 3, Tick: f.tl.last(),
			Evidence: []string{sandbox.State + ":1"},
			Detail:   fmt.Sprintf("%s is missing at the end of the run.", sandbox.State)})
	}
	return out
}

// openRange is a disagreement seen at consecutive ticks.
type openRange struct {
	p          stateProblem
	start, end int
}

// stateOverRun judges the snapshot at the end of every tick of the run log
// and collapses consecutive ticks with the same disagreement. It also says
// whether a missing state.json was among them.
func (f *facts) stateOverRun() ([]Violation, bool) {
	var out []Violation
	missing := false
	judge := newStateJudge(f)
	open := map[string]*openRange{}
	for i, te := range f.tickEnds {
		if _, down := f.downAt(te.tick); down {
			// Nobody runs to keep the snapshot: what the crash left is
			// judged again when the restarted instance is quiet (D73).
			continue
		}
		judge.advance(te.state)
		problems := judge.compare(0, te.tick)
		if te.forced {
			for k := i - stateLag; k < i; k++ {
				t := -1 // before the run: nothing written yet
				if k >= 0 {
					t = f.tickEnds[k].tick
				}
				problems = intersect(problems, judge.compare(i-k, t))
			}
		}
		f.judgedWhen(!f.states.versions[te.state].missing || len(problems) > 0, "L3.state-consistency")
		now := map[string]bool{}
		for _, p := range problems {
			now[p.key] = true
			missing = missing || p.key == keyMissing
			if r, ok := open[p.key]; ok {
				r.end = te.tick
			} else {
				open[p.key] = &openRange{p: p, start: te.tick, end: te.tick}
			}
		}
		for _, k := range sortedKeys(open) {
			if !now[k] {
				r := open[k]
				out = append(out, stateViolation(r.p, r.start, r.end))
				delete(open, k)
			}
		}
	}
	for _, k := range sortedKeys(open) {
		r := open[k]
		out = append(out, stateViolation(r.p, r.start, r.end))
	}
	return out, missing
}

func stateViolation(p stateProblem, start, end int) Violation {
	when := fmt.Sprintf("at tick %d", start)
	if end != start {
		when = fmt.Sprintf("from tick %d to tick %d", start, end)
	}
	v := Violation{Invariant: "L3.state-consistency", Level: 3, Tick: start, WorkID: p.work,
		Evidence: []string{sandbox.State + ":1"},
		Detail:   fmt.Sprintf("state.json disagrees with the logs %s: %s.", when, p.detail)}
	if p.schema {
		v.Invariant = "L3.state-schema"
		v.Detail = fmt.Sprintf("state.json does not follow the spec's schema %s: %s.", when, p.detail)
	}
	return v
}

// intersect keeps the problems of a that b also has: with a lag allowance a
// disagreement counts only if no allowed view of the logs explains it.
func intersect(a, b []stateProblem) []stateProblem {
	keys := map[string]bool{}
	for _, p := range b {
		keys[p.key] = true
	}
	var out []stateProblem
	for _, p := range a {
		if keys[p.key] {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
