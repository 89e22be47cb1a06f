package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

type drawSource struct{ t *rapid.T }

func (s drawSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(s.t, "n")
}

// wholeVersions is every version of state.json the run log gives, parsed
// whole, and the version at each tick end: how the state pass read the run
// log before stateHistory.
func wholeVersions(log []sandbox.LogRecord) ([]snapshot, []int) {
	states := []snapshot{{missing: true}}
	var at []int
	var replay sandbox.StateReplay
	for _, r := range log {
		if r.Kind != sandbox.LogTickEnd {
			continue
		}
		version, changed, err := replay.Next(r)
		switch {
		case err != nil:
			states = append(states, snapshot{err: &sandbox.LineError{File: sandbox.State, Line: 1, Msg: "the run log's " + err.Error()}})
		case changed:
			states = append(states, readSnapshot(version))
		case r.Detail != "" && bytes.Contains([]byte(r.Detail), []byte(sandbox.State)):
			states = append(states, snapshot{err: &sandbox.LineError{File: sandbox.State, Line: 1, Msg: "not a JSON object"}})
		}
		at = append(at, len(states)-1)
	}
	return states, at
}

// wholeStateOverRun is the state pass judged whole: every version compared
// whole with a view of the logs rebuilt from the start, at every tick.
func wholeStateOverRun(f *facts, log []sandbox.LogRecord) []Violation {
	states, at := wholeVersions(log)
	var out []Violation
	open := map[string]*openRange{}
	for i, te := range f.tickEnds {
		if _, down := f.downAt(te.tick); down {
			continue
		}
		st := states[at[i]]
		problems := compareState(st, f.viewAt(te.tick))
		if te.forced {
			for k := i - stateLag; k < i; k++ {
				t := -1
				if k >= 0 {
					t = f.tickEnds[k].tick
				}
				problems = intersect(problems, compareState(st, f.viewAt(t)))
			}
		}
		now := map[string]bool{}
		for _, p := range problems {
			now[p.key] = true
			if r, ok := open[p.key]; ok {
				r.end = te.tick
			} else {
				open[p.key] = &openRange{p: p, start: te.tick, end: te.tick}
			}
		}
		for _, k := range sortedKeys(open) {
			if !now[k] {
				out = append(out, stateViolation(open[k].p, open[k].start, open[k].end))
				delete(open, k)
			}
		}
	}
	for _, k := range sortedKeys(open) {
		out = append(out, stateViolation(open[k].p, open[k].start, open[k].end))
	}
	return out
}

// mutateVersion changes one version of state.json the way a faulty
// implementation might: a status, an item dropped, listed twice or never
// admitted, a holder, an assignment, an agent kept alive, or a file that
// does not parse.
func mutateVersion(t *rapid.T, data []byte, label string) []byte {
	var doc map[string][]map[string]any
	kind := rapid.IntRange(0, 8).Draw(t, label+"-kind")
	if json.Unmarshal(data, &doc) != nil || kind == 8 {
		return []byte(rapid.SampledFrom([]string{" ", "[]", "{", `{"work_items":[]}`}).Draw(t, label+"-broken"))
	}
	pick := func(list string) int {
		if len(doc[list]) == 0 {
			return -1
		}
		return rapid.IntRange(0, len(doc[list])-1).Draw(t, label+"-"+list)
	}
	agent := func() any {
		return rapid.SampledFrom([]any{nil, "agent-1", "agent-2", "agent-3"}).Draw(t, label+"-agent")
	}
	switch kind {
	case 0, 1, 2, 3:
		if i := pick("work_items"); i >= 0 {
			item := doc["work_items"][i]
			switch kind {
			case 0:
				item["status"] = rapid.SampledFrom([]string{"pending", "completed", "abandoned"}).Draw(t, label+"-status")
			case 1:
				doc["work_items"] = append(doc["work_items"][:i:i], doc["work_items"][i+1:]...)
			case 2:
				twin := map[string]any{"work_id": item["work_id"], "status": "completed", "assigned_agent": agent()}
				doc["work_items"] = append(doc["work_items"], twin)
			case 3:
				item["assigned_agent"] = agent()
			}
		}
	case 4:
		doc["work_items"] = append(doc["work_items"], map[string]any{"work_id": "w-never", "status": "pending", "assigned_agent": nil})
	case 5:
		if i := pick("assignments"); i >= 0 && rapid.Bool().Draw(t, label+"-drop") {
			doc["assignments"] = append(doc["assignments"][:i:i], doc["assignments"][i+1:]...)
		} else if i := pick("work_items"); i >= 0 {
			doc["assignments"] = append(doc["assignments"], map[string]any{"work_id": doc["work_items"][i]["work_id"], "agent_id": "agent-2"})
		}
	case 6:
		if i := pick("agents"); i >= 0 {
			doc["agents"][i]["alive"] = !doc["agents"][i]["alive"].(bool)
		}
	case 7:
		doc["agents"] = append(doc["agents"], map[string]any{"id": "agent-3", "alive": true})
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("encoding a mutated version: %v", err)
	}
	return out
}

// rewriteStates replaces the versions a run log gives, as full copies or
// as edits, and sometimes marks tick ends forced so the lag allowance is
// judged.
func rewriteStates(t *rapid.T, log []sandbox.LogRecord) []sandbox.LogRecord {
	asEdits := rapid.Bool().Draw(t, "as edits")
	var replay sandbox.StateReplay
	var prev []byte
	out := make([]sandbox.LogRecord, len(log))
	for i, r := range log {
		version, changed, err := replay.Next(r)
		if err != nil {
			t.Fatalf("replaying the run log: %v", err)
		}
		if r.Kind == sandbox.LogTickEnd {
			label := fmt.Sprintf("rec%d", i)
			if rapid.IntRange(0, 9).Draw(t, label+"-forced") == 0 {
				r.Forced = true
			}
			if changed && rapid.IntRange(0, 5).Draw(t, label+"-mutate") == 0 {
				version = mutateVersion(t, version, label)
			}
			if changed {
				r.State, r.StateEdit = nil, nil
				edit, ok := sandbox.NewStateEdit(prev, version)
				if asEdits && ok {
					r.StateEdit = &edit
					prev = version
				} else {
					r.State, prev = json.RawMessage(version), nil
				}
			}
		}
		out[i] = r
	}
	return out
}

// The state pass kept as changes answers exactly what the pass over whole
// versions answers, on generated runs of the reference and of weak
// implementations, with versions changed so that they disagree with the
// logs; and the history answers every question the other checks ask of a
// version (its holder of each work item, its agents, what each death's
// agent held) as the whole version does.
func TestStateHistoryJudgesAsWholeVersions(t *testing.T) {
	impls := []string{"reference", "weak-stale-state"}
	for _, im := range examples.All() {
		if im.Kind != examples.KindReference && len(impls) < 8 {
			impls = append(impls, im.Name)
		}
	}
	disagreed, agreed := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		preset := rapid.SampledFrom(faults.PresetNames()).Draw(t, "preset")
		p, err := faults.DrawProfile(drawSource{t}, preset)
		if err != nil {
			t.Fatalf("drawing a profile: %v", err)
		}
		b := faults.Generate(drawSource{t}, p)
		name := rapid.SampledFrom(impls).Draw(t, "impl")
		im, ok := examples.Lookup(name)
		if !ok {
			t.Fatalf("no implementation %s", name)
		}
		res, err := sim.Run(b, im.New, sim.Options{Seed: 1, Impl: name})
		if err != nil {
			t.Skip("the run did not finish: ", err)
		}
		log := res.Log
		if rapid.Bool().Draw(t, "mutate") {
			log = rewriteStates(t, log)
		}
		f := build(Input{Bundle: b, Files: res.Files.Files(), Log: log})
		got, _ := f.stateOverRun()
		want := wholeStateOverRun(f, log)
		require.Equal(t, want, got, "%s on a %s bundle", name, preset)
		if len(want) > 0 {
			disagreed++
		} else {
			agreed++
		}
		states, at := wholeVersions(log)
		for i, te := range f.tickEnds {
			st := states[at[i]]
			v := te.state
			require.Equal(t, !st.missing && st.err == nil, f.states.readable(v), "version at tick %d", te.tick)
			if !f.states.readable(v) {
				continue
			}
			require.Equal(t, nilIfNone(st.snap.Agents), nilIfNone(f.states.versions[v].agents), "agents at tick %d", te.tick)
			for _, w := range append(f.workIDs, "w-never") {
				require.Equal(t, st.snap.Holder(w), f.states.holder(v, w), "holder of %s at tick %d", w, te.tick)
			}
		}
		for _, s := range f.deaths {
			require.Equal(t, wholeHoldings(f, states, at, s.at.tick), f.holdings[s.at.tick], "held at the death at tick %d", s.at.tick)
		}
	})
	t.Logf("%d runs with a disagreement, %d without", disagreed, agreed)
	require.Positive(t, disagreed, "some drawn runs disagree with their logs")
	require.Positive(t, agreed, "some drawn runs agree with their logs")
}

// wholeHoldings is what the version in force before tick t gives out,
// read from the whole version.
func wholeHoldings(f *facts, states []snapshot, at []int, t int) []holding {
	idx := -1
	for i, te := range f.tickEnds {
		if te.tick >= t {
			break
		}
		idx = at[i]
	}
	if idx < 0 || states[idx].missing || states[idx].err != nil {
		return nil
	}
	out := []holding{}
	for _, wi := range states[idx].snap.WorkItems {
		if wi.AssignedAgent != nil {
			out = append(out, holding{wi.WorkID, *wi.AssignedAgent})
		}
	}
	for _, a := range states[idx].snap.Assignments {
		out = append(out, holding{a.WorkID, a.AgentID})
	}
	return out
}

func nilIfNone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// drawState draws a version of state.json over the works and agents
// randomFacts draws its lines about, sometimes listing a work twice, and
// sometimes one that does not parse.
func drawState(t *rapid.T, label string) []byte {
	if rapid.IntRange(0, 9).Draw(t, label+"-broken") == 0 {
		return []byte(rapid.SampledFrom([]string{" ", "{", `{"work_items":[]}`}).Draw(t, label+"-text"))
	}
	works := []string{"w1", "w2", "w3"}
	agents := []any{nil, agent1, agent2, "agent-3"}
	doc := map[string][]map[string]any{"work_items": {}, "agents": {}, "assignments": {}}
	for i, n := 0, rapid.IntRange(0, 4).Draw(t, label+"-items"); i < n; i++ {
		doc["work_items"] = append(doc["work_items"], map[string]any{
			"work_id":        rapid.SampledFrom(works).Draw(t, label+"-work"),
			"status":         rapid.SampledFrom([]string{"pending", sandbox.OutcomeCompleted, sandbox.OutcomeAbandoned}).Draw(t, label+"-status"),
			"assigned_agent": rapid.SampledFrom(agents).Draw(t, label+"-holder")})
	}
	for i, n := 0, rapid.IntRange(0, 2).Draw(t, label+"-assignments"); i < n; i++ {
		doc["assignments"] = append(doc["assignments"], map[string]any{
			"work_id": rapid.SampledFrom(works).Draw(t, label+"-awork"), "agent_id": rapid.SampledFrom(agents[1:]).Draw(t, label+"-aagent")})
	}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, label+"-agents"); i < n; i++ {
		doc["agents"] = append(doc["agents"], map[string]any{"id": agents[1+i], "alive": rapid.Bool().Draw(t, label+"-alive")})
	}
	out, _ := json.Marshal(doc)
	return out
}

// The judge kept work by work answers what compareState answers of the
// whole version against the view rebuilt from the logs, for every slot,
// whichever versions follow each other and whichever ticks the slots look
// at, forward, standing still or back.
func TestStateJudgeIsCompareState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := randomFacts(t)
		h := newStateHistory(0)
		var follow sandbox.StateFollower
		whole := []snapshot{{missing: true}}
		for v, n := 0, rapid.IntRange(1, 8).Draw(t, "versions"); v < n; v++ {
			data := drawState(t, fmt.Sprintf("v%d", v))
			st := readSnapshot(data)
			if st.missing {
				h.addUnread(true, nil)
			} else {
				snap, err, ch := follow.Next(data)
				h.addRead(snap, err, ch, &follow)
			}
			whole = append(whole, st)
		}
		f.states = h
		j := newStateJudge(f)
		version := 0
		ticks := [stateLag + 1]int{-1, -1, -1}
		for i, n := 0, rapid.IntRange(1, 40).Draw(t, "steps"); i < n; i++ {
			if rapid.IntRange(0, 3).Draw(t, "next version") == 0 {
				version = rapid.IntRange(version, h.last()).Draw(t, "version")
			}
			slot := rapid.IntRange(0, stateLag).Draw(t, "slot")
			// Mostly a tick or two forward, as the state pass moves, now
			// and then anywhere.
			tick := min(ticks[slot]+rapid.IntRange(0, 2).Draw(t, "step"), 7)
			if rapid.IntRange(0, 7).Draw(t, "jump") == 0 {
				tick = rapid.IntRange(-1, 7).Draw(t, "tick")
			}
			ticks[slot] = tick
			j.advance(version)
			want := compareState(whole[version], f.viewAt(tick))
			require.Equal(t, nilIfNone(want), nilIfNone(j.compare(slot, tick)), "version %d, slot %d, tick %d", version, slot, tick)
		}
	})
}
