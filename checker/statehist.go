package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// stateHistory is every version of state.json the run log gives, kept as
// what each version changed, work item by work item. An implementation may
// list every work item it ever admitted in every version, so the versions
// kept whole would grow with the square of the run (and did: gigabytes at
// 10^4 messages); the changes grow with what happened. Version 0 is the
// file before any write.
type stateHistory struct {
	versions []stateVersion
	changes  []workContent
	byWork   map[string][]int // work id -> indices into changes, oldest first
	workIDs  map[string]bool  // every work id a work_items entry of some version had
	agentIDs map[string]bool  // every agent id an agents entry of some version had
	listed   map[string]bool  // agents some version listed so far
	named    map[string]bool  // agents some version gave work to so far
}

// stateVersion is one version of state.json.
type stateVersion struct {
	missing bool
	err     *sandbox.LineError
	agents  []sandbox.AgentState // shared with the version before while unchanged
	// changes[from:to] are the works this version changed.
	from, to int
	// newListed and newNamed are the agents this version is the first to
	// list, and to give work to (a fleet only ever grows by them, D28).
	newListed, newNamed []string
}

// workContent is a work's entries in one version: its work_items entries
// and the agents of its assignments entries, in list order.
type workContent struct {
	version  int
	work     string
	items    []sandbox.WorkItemState
	assigned []string
}

// It has room for n versions after the first.
func newStateHistory(n int) *stateHistory {
	versions := make([]stateVersion, 1, n+1)
	versions[0] = stateVersion{missing: true}
	return &stateHistory{versions: versions, byWork: map[string][]int{},
		workIDs: map[string]bool{}, agentIDs: map[string]bool{}, listed: map[string]bool{}, named: map[string]bool{}}
}

// last is the index of the latest version.
func (h *stateHistory) last() int { return len(h.versions) - 1 }

// addUnread adds a version that holds nothing readable: missing, or err.
func (h *stateHistory) addUnread(missing bool, err *sandbox.LineError) {
	n := len(h.changes)
	h.versions = append(h.versions, stateVersion{missing: missing, err: err, agents: h.versions[h.last()].agents, from: n, to: n})
}

// addRead adds a version as the follower read it.
func (h *stateHistory) addRead(snap sandbox.Snapshot, err *sandbox.LineError, ch sandbox.StateChange, follow *sandbox.StateFollower) {
	v := stateVersion{err: err, agents: h.versions[h.last()].agents, from: len(h.changes)}
	version := len(h.versions)
	if ch.Agents || ch.Whole {
		v.agents = append([]sandbox.AgentState(nil), snap.Agents...)
		for _, a := range v.agents {
			h.agentIDs[a.ID] = true
			if err == nil && !h.listed[a.ID] {
				h.listed[a.ID] = true
				v.newListed = append(v.newListed, a.ID)
			}
		}
	}
	for _, w := range ch.Works {
		items, assigned := follow.Entries(w)
		h.byWork[w] = append(h.byWork[w], len(h.changes))
		h.changes = append(h.changes, workContent{version: version, work: w, items: items, assigned: assigned})
		for _, wi := range items {
			h.workIDs[wi.WorkID] = true
		}
		if err != nil {
			continue
		}
		name := func(a string) {
			if a != "" && !h.named[a] {
				h.named[a] = true
				v.newNamed = append(v.newNamed, a)
			}
		}
		// The agents the work's entries give it to, in list order.
		for _, wi := range items {
			if wi.AssignedAgent != nil {
				name(*wi.AssignedAgent)
			}
		}
		for _, a := range assigned {
			name(a)
		}
	}
	v.to = len(h.changes)
	h.versions = append(h.versions, v)
}

// readable reports whether version v parsed.
func (h *stateHistory) readable(v int) bool {
	return v >= 0 && v < len(h.versions) && !h.versions[v].missing && h.versions[v].err == nil
}

// content returns a work's entries in version v.
func (h *stateHistory) content(v int, w string) *workContent {
	idx := h.byWork[w]
	i := sort.Search(len(idx), func(i int) bool { return h.changes[idx[i]].version > v })
	if i == 0 {
		return nil
	}
	return &h.changes[idx[i-1]]
}

// holder is sandbox.Snapshot.Holder of version v.
func (h *stateHistory) holder(v int, w string) string {
	c := h.content(v, w)
	if c == nil {
		return ""
	}
	return holderOf(c.items, c.assigned)
}

func holderOf(items []sandbox.WorkItemState, assigned []string) string {
	for _, wi := range items {
		if wi.AssignedAgent != nil && *wi.AssignedAgent != "" {
			return *wi.AssignedAgent
		}
	}
	for _, a := range assigned {
		if a != "" {
			return a
		}
	}
	return ""
}

// stateJudge compares the versions of state.json with views of the logs,
// version after version, re-judging only the work items whose entries or
// whose log lines changed since the comparison before: what compareState
// answers for a whole snapshot, at the cost of what changed. It holds one
// judgement per tick of the lag allowance (slot 0 the tick judged, slot k
// k ticks behind it), each over its own view moved forward.
type stateJudge struct {
	h       *stateHistory
	version int                     // the version cur is at
	cur     map[string]*workContent // work -> its entries in that version
	slots   [stateLag + 1]*slotJudge
}

// slotJudge is one judgement, kept work by work.
type slotJudge struct {
	cursor  *viewCursor
	judged  bool
	version int // the version last judged
	perWork map[string][]stateProblem
	agents  []sandbox.AgentState // the agents list last judged
	alive   []stateProblem
}

func newStateJudge(f *facts) *stateJudge {
	j := &stateJudge{h: f.states, cur: map[string]*workContent{}}
	events := viewEvents(f)
	for i := range j.slots {
		j.slots[i] = &slotJudge{cursor: newViewCursor(f, events), perWork: map[string][]stateProblem{}}
	}
	return j
}

// advance moves the entries to version v, a version no earlier than the
// last.
func (j *stateJudge) advance(v int) {
	for u := j.version + 1; u <= v; u++ {
		ver := j.h.versions[u]
		for i := ver.from; i < ver.to; i++ {
			c := &j.h.changes[i]
			j.cur[c.work] = c
		}
	}
	if v > j.version {
		j.version = v
	}
}

// compare compares the current version with the view at the end of tick
// t, seen through a slot, and lists the disagreements sorted by key.
func (j *stateJudge) compare(slot, t int) []stateProblem {
	s := j.slots[slot]
	v := s.cursor.viewAt(t)
	ver := j.h.versions[j.version]
	rejudge := func(w string) {
		var items []sandbox.WorkItemState
		var assigned []string
		if c := j.cur[w]; c != nil {
			items, assigned = c.items, c.assigned
		}
		if p := compareWork(w, items, assigned, v); len(p) > 0 {
			s.perWork[w] = p
		} else {
			delete(s.perWork, w)
		}
	}
	whole := !s.judged || s.cursor.restarted
	if whole {
		clear(s.perWork)
		for w := range j.cur {
			rejudge(w)
		}
		for w := range v.isAdmitted {
			rejudge(w)
		}
	} else {
		for w := range s.cursor.dirty {
			rejudge(w)
		}
		for i := j.h.versions[s.version].to; i < ver.to; i++ {
			rejudge(j.h.changes[i].work)
		}
	}
	if whole || s.cursor.deadChanged || !sameAgents(s.agents, ver.agents) {
		s.agents, s.alive = ver.agents, compareAlive(ver.agents, v.dead)
	}
	s.cursor.settled()
	s.judged, s.version = true, j.version
	switch {
	case ver.err != nil:
		text := lineErrText(ver.err)
		return []stateProblem{{key: "schema:" + text, schema: true, detail: text}}
	case ver.missing:
		if len(v.admitted) == 0 {
			return nil
		}
		return []stateProblem{{key: keyMissing, detail: fmt.Sprintf("%s is missing while work items are admitted", sandbox.State)}}
	}
	out := append([]stateProblem(nil), s.alive...)
	for _, p := range s.perWork {
		out = append(out, p...)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
	return out
}

// sameAgents reports whether two agents lists are the same list: versions
// share the list while it does not change.
func sameAgents(a, b []sandbox.AgentState) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// compareWork is what compareState finds about one work item, given its
// entries in list order: the same problems, with the same details.
func compareWork(w string, items []sandbox.WorkItemState, assigned []string, v *logView) []stateProblem {
	var out []stateProblem
	if v.isAdmitted[w] && len(items) == 0 {
		out = append(out, stateProblem{key: "absent:" + w, work: w,
			detail: fmt.Sprintf("work item %s is admitted but missing from %s", w, sandbox.State)})
	}
	for _, wi := range items {
		if !v.isAdmitted[w] {
			out = append(out, stateProblem{key: "extra:" + w, work: w,
				detail: fmt.Sprintf("%s lists work item %s, which is not admitted", sandbox.State, w)})
			continue
		}
		out = append(out, compareItem(wi, v)...)
	}
	if p, ok := assignProblem(w, items, assigned); ok {
		out = append(out, p)
	}
	return dedupe(out)
}

// assignProblem is compareAssignments for one work item.
func assignProblem(w string, items []sandbox.WorkItemState, assigned []string) (stateProblem, bool) {
	var got []string
	for _, a := range assigned {
		if !contains(got, a) {
			got = append(got, a)
		}
	}
	held := false
	for _, wi := range items {
		held = held || wi.AssignedAgent != nil && *wi.AssignedAgent != ""
	}
	if len(got) == 0 && !held {
		return stateProblem{}, false
	}
	want := ""
	if len(items) > 0 && items[0].AssignedAgent != nil {
		want = *items[0].AssignedAgent
	}
	if len(got) == 0 && want == "" || len(got) == 1 && got[0] == want {
		return stateProblem{}, false
	}
	sort.Strings(got)
	return stateProblem{key: "assign:" + w, work: w,
		detail: fmt.Sprintf("assignments give work item %s to [%s] but work_items say %q", w, strings.Join(got, ", "), want)}, true
}

// compareAlive lists the agents a snapshot keeps alive that an AGENT_DEATH
// named dead.
func compareAlive(agents []sandbox.AgentState, dead []string) []stateProblem {
	var out []stateProblem
	for _, agent := range agents {
		if agent.Alive && contains(dead, agent.ID) {
			out = append(out, stateProblem{key: "alive:" + agent.ID,
				detail: fmt.Sprintf("agent %s is dead by AGENT_DEATH but alive in %s", agent.ID, sandbox.State)})
		}
	}
	return dedupe(out)
}
