package checker

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// killFor schedules an AGENT_DEATH for a message and fires it as the engine
// binds it: the line names the agent holding the message's work.
func (w *world) killFor(id, msg, agent string, tick int) {
	w.b.Signals = append(w.b.Signals, scenarios.Signal{ID: id, At: tick, Type: scenarios.AgentDeath,
		Target: scenarios.Match{MessageID: msg}})
	w.hline(sandbox.Signals, tick, sandbox.LogSignal, id, sandbox.SignalRecord{SignalID: id,
		SignalType: scenarios.AgentDeath, Target: agent, At: tick})
}

// neverBound schedules an AGENT_DEATH for a message that the harness could
// never bind: no signals.jsonl line, and the engine's unfired record.
func (w *world) neverBound(id, msg string, at int) {
	w.b.Signals = append(w.b.Signals, scenarios.Signal{ID: id, At: at, Type: scenarios.AgentDeath,
		Target: scenarios.Match{MessageID: msg}})
	w.unfired = append(w.unfired, sandbox.LogRecord{Kind: sandbox.LogUnfired, Tick: w.b.Meta.Horizon, ID: id,
		Scheduled: &at, Detail: "never bindable"})
}

// ownState rewrites state.json naming the implementation's own agents.
func (w *world) ownState(tick int, items []item, agents ...sandbox.AgentState) {
	s := sandbox.Snapshot{WorkItems: []sandbox.WorkItemState{}, Agents: agents, Assignments: []sandbox.Assignment{}}
	if s.Agents == nil {
		s.Agents = []sandbox.AgentState{}
	}
	for _, it := range items {
		wi := sandbox.WorkItemState{WorkID: it.work, Status: it.status}
		if it.agent != "" {
			wi.AssignedAgent = str(it.agent)
			s.Assignments = append(s.Assignments, sandbox.Assignment{WorkID: it.work, AgentID: it.agent})
		}
		s.WorkItems = append(s.WorkItems, wi)
	}
	data, err := json.Marshal(s)
	require.NoError(w.t, err)
	w.rawState(tick, data)
}

func alive(ids ...string) []sandbox.AgentState {
	var out []sandbox.AgentState
	for _, id := range ids {
		out = append(out, sandbox.AgentState{ID: id, Alive: true})
	}
	return out
}

func dead(ids ...string) []sandbox.AgentState {
	var out []sandbox.AgentState
	for _, id := range ids {
		out = append(out, sandbox.AgentState{ID: id})
	}
	return out
}

const (
	botA = "bot-a"
	botB = "bot-b"
)

// ownFleet is the common story run by an implementation that names its own
// agents, bot-a and bot-b, instead of the bundle's agent-1 and agent-2:
// bot-a holds w1 with a draft, and the draft is approved at tick 3.
func ownFleet(t *testing.T, approved bool) *world {
	w := newWorld(t, 3, 30)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.claim("w1", botA, sandbox.ClaimWon, 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.ownState(1, []item{{"w1", "drafted", botA}}, alive(botA, botB)...)
	if approved {
		w.schedule("ap1", "m1", 3, scenarios.DecisionApprove, "")
	}
	return w
}

// The fleet is the one the implementation reports (D28): the bundle's ids
// all dying excuses nothing while its own agents live, and its own agents
// all dying excuses the reply once the work is visibly orphaned.
func TestFleetIsTheImplementationsOwn(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := ownFleet(t, true)
		w.kill("s1", agent1, 2)
		w.kill("s2", agent2, 2)
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
		v := Check(w.input(withLog))
		assert.Len(t, only(v, "L0.reply"), 1, "bot-a and bot-b still live: the reply is owed")
		assert.Len(t, only(v, "L2.approval-latency"), 1)
		assert.Len(t, only(v, "L3.resolution-missing"), 1)
	})
	t.Run("own agents all killed", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := ownFleet(t, true)
			w.kill("s1", botA, 2)
			w.kill("s2", botB, 2)
			w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
			w.ownState(2, []item{{"w1", sandbox.OutcomeAbandoned, botA}}, dead(botA, botB)...)
			w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
			assert.Empty(t, Check(w.input(withLog)).Violations)
		})
	})
	t.Run("own agents all killed, the work never ended", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := ownFleet(t, false)
			w.kill("s1", botA, 2)
			w.kill("s2", botB, 2)
			w.ownState(2, []item{{"w1", "drafted", botA}}, dead(botA, botB)...)
			v := Check(w.input(withLog))
			assert.Len(t, only(v, "L3.resolution-missing"), 1, "the loss of the whole fleet is an ending (D14)")
			assert.Len(t, only(v, "L3.agent-death"), 1)
		})
	})
	t.Run("bundle ids dead, own agents live: no ending", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := ownFleet(t, false)
			w.kill("s1", agent1, 2)
			w.kill("s2", agent2, 2)
			assert.Empty(t, Check(w.input(withLog)).Violations, "the work waits for a human; its agent lives")
		})
	})
}

func TestFleetFallsBackToTheBundleOnlyWhenNoAgentIsReported(t *testing.T) {
	story := func(t *testing.T, kills ...string) *world {
		w := newWorld(t, 3, 30)
		w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		w.draft("d1", "w1", "c1", bodyOK, 1)
		w.ownState(1, []item{{"w1", "drafted", ""}})
		w.schedule("ap1", "m1", 3, scenarios.DecisionApprove, "")
		w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
		for i, a := range kills {
			w.kill("s"+string(rune('1'+i)), a, 2)
		}
		return w
	}
	readings(t, func(t *testing.T, withLog bool) {
		w := story(t, agent1, agent2)
		w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
		w.ownState(2, []item{{"w1", sandbox.OutcomeAbandoned, ""}})
		assert.Empty(t, Check(w.input(withLog)).Violations, "every agent of the bundle's fleet is dead")
	})
	t.Run("an empty report excuses nothing by itself", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := story(t, agent1)
			assert.Len(t, only(Check(w.input(withLog)), "L0.reply"), 1, "agent-2 of the bundle's fleet is left")
		})
	})
}

func TestFleetIsDeadOnlyBySignals(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := ownFleet(t, true)
		w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
		w.ownState(2, []item{{"w1", sandbox.OutcomeAbandoned, botA}}, dead(botA, botB)...)
		v := Check(w.input(withLog))
		assert.Len(t, only(v, "L0.reply"), 1, "marking its own agents dead does not kill them")
	})
}

func TestFleetAsReportedUpToTheMoment(t *testing.T) {
	w := ownFleet(t, true)
	w.kill("s1", botA, 2)
	w.kill("s2", botB, 2)
	w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
	w.ownState(2, []item{{"w1", sandbox.OutcomeAbandoned, botA}}, dead(botA, botB)...)
	// A later snapshot that names one more agent does not undo the loss of
	// the fleet for work that was due while it was gone (D42).
	w.ownState(5, []item{{"w1", sandbox.OutcomeAbandoned, botA}}, append(dead(botA, botB), alive("bot-c")...)...)
	w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
	assert.Empty(t, Check(w.input(true)).Violations)
}

// The fleet is every agent the implementation gives work to, not only the
// ones it lists (D42): a list that leaves out the agent doing the work does
// not make one death the loss of the whole fleet.
func TestFleetIncludesEveryAgentGivenWork(t *testing.T) {
	story := func(t *testing.T, byClaim bool) *world {
		w := newWorld(t, 3, 40)
		w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		w.claim("w1", botA, sandbox.ClaimWon, 1)
		w.draft("d1", "w1", "c1", bodyOK, 1)
		w.ownState(1, []item{{"w1", "drafted", botA}}, alive(botA)...)
		w.deliver("m2", "c2", "bob@example.com", "Order ORD-2002 missing", "Where is ORD-2002?", 2)
		w.admit("w2", "m2", 2)
		if byClaim {
			w.claim("w2", botB, sandbox.ClaimWon, 2)
			w.ownState(2, []item{{"w1", "drafted", botA}, {"w2", "admitted", ""}}, alive(botA)...)
		} else {
			w.ownState(2, []item{{"w1", "drafted", botA}, {"w2", "admitted", botB}}, alive(botA)...)
		}
		w.kill("s1", botA, 3)
		w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 3)
		w.resolve("w2", sandbox.OutcomeAbandoned, "no_agent", 3)
		holder := botB
		if byClaim {
			holder = ""
		}
		w.ownState(3, []item{{"w1", sandbox.OutcomeAbandoned, botA}, {"w2", sandbox.OutcomeAbandoned, holder}}, dead(botA)...)
		w.schedule("ap2", "m2", 6, scenarios.DecisionApprove, "")
		return w
	}
	for _, byClaim := range []bool{true, false} {
		readings(t, func(t *testing.T, withLog bool) {
			v := Check(story(t, byClaim).input(withLog))
			got := only(v, "L0.reply")
			require.Len(t, got, 1, "bot-b was given w2 and never died (by claim: %v)", byClaim)
			assert.Equal(t, "m2", got[0].MessageID)
		})
	}
	t.Run("the only agent given work dies", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 3, 40)
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.admit("w1", "m1", 1)
			w.claim("w1", botA, sandbox.ClaimWon, 1)
			w.draft("d1", "w1", "c1", bodyOK, 1)
			w.ownState(1, []item{{"w1", "drafted", botA}}, alive(botA)...)
			w.kill("s1", botA, 3)
			w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 3)
			w.ownState(3, []item{{"w1", sandbox.OutcomeAbandoned, botA}}, dead(botA)...)
			w.approve("ap1", "m1", "d1", 6)
			assert.Empty(t, Check(w.input(withLog)).Violations, "a fleet of one, visibly orphaned")
		})
	})
}

// The loss of the fleet lasts until an agent not named dead joins the
// implementation's account (D42): what arrives after that is owed as usual,
// what was due while no agent lived stays excused.
func TestFleetLossEndsWhenAnAgentJoins(t *testing.T) {
	story := func(t *testing.T, m2At int) *world {
		w := ownFleet(t, false)
		w.ownState(1, []item{{"w1", "drafted", botA}}, alive(botA)...)
		w.kill("s1", botA, 2)
		w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
		w.ownState(2, []item{{"w1", sandbox.OutcomeAbandoned, botA}}, dead(botA)...)
		w.deliver("m2", "c2", "bob@example.com", "Order ORD-2002 missing", "Where is ORD-2002?", m2At)
		w.admit("w2", "m2", m2At)
		w.resolve("w2", sandbox.OutcomeAbandoned, "no_agent", m2At)
		w.ownState(m2At, []item{{"w1", sandbox.OutcomeAbandoned, botA}, {"w2", sandbox.OutcomeAbandoned, ""}}, dead(botA)...)
		w.ownState(m2At+1, []item{{"w1", sandbox.OutcomeAbandoned, botA}, {"w2", sandbox.OutcomeAbandoned, ""}},
			append(dead(botA), alive(botB)...)...)
		w.deliver("m3", "c3", "carol@example.com", "Order ORD-3003 lost", "Where is ORD-3003?", m2At+4)
		w.admit("w3", "m3", m2At+4)
		w.claim("w3", botB, sandbox.ClaimWon, m2At+4)
		w.draft("d3", "w3", "c3", "About ORD-3003: it ships tomorrow.", m2At+4)
		w.ownState(m2At+4, []item{{"w1", sandbox.OutcomeAbandoned, botA}, {"w2", sandbox.OutcomeAbandoned, ""}, {"w3", "drafted", botB}},
			append(dead(botA), alive(botB)...)...)
		w.schedule("ap2", "m2", m2At+2, scenarios.DecisionApprove, "")
		w.approve("ap3", "m3", "d3", m2At+6)
		return w
	}
	t.Run("with a run log", func(t *testing.T) {
		v := Check(story(t, 4).input(true))
		assert.Equal(t, []string{"L0.reply", "L2.approval-latency", "L3.resolution-missing"}, ids(v))
		for _, id := range ids(v) {
			got := only(v, id)
			require.Len(t, got, 1, id)
			assert.Equal(t, "w3", got[0].WorkID, "m2 came while no agent lived; m3 after bot-b joined")
		}
	})
	t.Run("without one the final fleet counts from the start", func(t *testing.T) {
		v := Check(story(t, 4).input(false))
		assert.Len(t, only(v, "L0.reply"), 2, "bot-b is never dead, so neither m2 nor m3 is excused")
	})
}

// agentless is the common story run by an implementation that ignores
// agents: no claim, no assigned agent, no assignment, no agent listed.
func agentless(t *testing.T) *world {
	w := newWorld(t, 3, 30)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.ownState(1, []item{{"w1", "drafted", ""}})
	return w
}

func TestAgentDeathUnbound(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := agentless(t)
		w.neverBound("s1", "m1", 3)
		got := only(Check(w.input(withLog)), "L3.agent-death-unbound")
		require.Len(t, got, 1)
		x := got[0]
		assert.Equal(t, 30, x.Tick)
		assert.Equal(t, "w1", x.WorkID)
		assert.Equal(t, "m1", x.MessageID)
		want := []string{"bundle:signals/s1", "audit.jsonl:1"}
		if withLog {
			want = []string{"bundle:signals/s1", "run.jsonl:" + strconv.Itoa(len(w.runLog())-1), "audit.jsonl:1"}
		}
		assert.Equal(t, want, x.Evidence)
		assert.Contains(t, x.Detail, "AGENT_DEATH s1")
		assert.Contains(t, x.Detail, "work item w1 from tick 3 to the horizon")
		assert.Equal(t, Fail, Check(w.input(withLog)).Levels[3])
	})
	t.Run("bound through a won claim", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := agentless(t)
			w.claim("w1", agent1, sandbox.ClaimWon, 1)
			w.killFor("s1", "m1", agent1, 3)
			assert.Empty(t, only(Check(w.input(withLog)), "L3.agent-death-unbound"))
		})
	})
	t.Run("named only before the signal was due", func(t *testing.T) {
		w := agentless(t)
		w.ownState(1, []item{{"w1", "drafted", agent1}}, alive(agent1)...)
		w.ownState(2, []item{{"w1", "drafted", ""}}, alive(agent1)...)
		w.neverBound("s1", "m1", 3)
		assert.Len(t, only(Check(w.input(true)), "L3.agent-death-unbound"), 1)
	})
	t.Run("named while the signal waited: the harness's fault, not judged", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := agentless(t)
			w.neverBound("s1", "m1", 3)
			w.ownState(6, []item{{"w1", "drafted", agent1}}, alive(agent1)...)
			assert.Empty(t, only(Check(w.input(withLog)), "L3.agent-death-unbound"))
		})
	})
	t.Run("the work ended before the signal was due", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := agentless(t)
			w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
			w.ownState(2, []item{{"w1", sandbox.OutcomeAbandoned, ""}})
			w.neverBound("s1", "m1", 3)
			assert.Empty(t, only(Check(w.input(withLog)), "L3.agent-death-unbound"))
		})
	})
	t.Run("no agent was left", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := agentless(t)
			w.kill("s0", agent1, 2)
			w.kill("s9", agent2, 2)
			w.neverBound("s1", "m1", 3)
			assert.Empty(t, only(Check(w.input(withLog)), "L3.agent-death-unbound"))
		})
	})
	t.Run("the horizon leaves no room", func(t *testing.T) {
		w := agentless(t)
		w.neverBound("s1", "m1", 26)
		assert.Empty(t, only(Check(w.input(true)), "L3.agent-death-unbound"))
	})
}

func TestAgentDeathUnboundMessageNeverAdmitted(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 3, 30)
		w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
		w.ownState(1, nil)
		w.neverBound("s1", "m1", 3)
		got := only(Check(w.input(withLog)), "L3.agent-death-unbound")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "never admitted")
		assert.Contains(t, got[0].Evidence, "inbox.jsonl:1")
	})
	t.Run("rightly declined: nothing to kill, not judged", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := newWorld(t, 3, 30)
			w.deliver("m1", "c1", "alice@example.com", "Hello there", "Just saying hi.", 1)
			w.ownState(1, nil)
			w.neverBound("s1", "m1", 3)
			v := Check(w.input(withLog))
			assert.Empty(t, v.Violations)
			assert.Equal(t, Pass, v.Levels[3])
		})
	})
}

func TestStateSchema(t *testing.T) {
	for _, tc := range []struct {
		name, state, detail string
	}{
		{"work item without assigned_agent",
			`{"work_items":[{"work_id":"w1","status":"drafted"}],"agents":[],"assignments":[]}`,
			"work_items[0].assigned_agent: required field is missing"},
		{"no assignments",
			`{"work_items":[{"work_id":"w1","status":"drafted","assigned_agent":null}],"agents":[]}`,
			"assignments: required field is missing"},
		{"agent without alive",
			`{"work_items":[{"work_id":"w1","status":"drafted","assigned_agent":null}],"agents":[{"id":"a"}],"assignments":[]}`,
			"agents[0].alive"},
		{"not a snapshot", `{"work_items": 3}`, "work_items: must be a list of objects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := agentless(t)
				w.rawState(2, []byte(tc.state))
				v := Check(w.input(withLog))
				got := only(v, "L3.state-schema")
				require.Len(t, got, 1, "%v", v.Violations)
				assert.Contains(t, got[0].Detail, tc.detail)
				assert.Equal(t, []string{"state.json:1"}, got[0].Evidence)
				assert.Empty(t, only(v, "L3.state-consistency"), "a snapshot that cannot be read is not compared")
			})
		})
	}
	t.Run("null assigned_agent follows the schema", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			assert.Empty(t, Check(agentless(t).input(withLog)).Violations)
		})
	})
	t.Run("each fault over its own ticks", func(t *testing.T) {
		w := agentless(t)
		w.rawState(2, []byte(`{"work_items":[{"work_id":"w1","status":"drafted"}],"agents":[],"assignments":[]}`))
		w.rawState(5, []byte(`{"work_items":[],"agents":[]}`))
		w.ownState(7, []item{{"w1", "drafted", ""}})
		got := only(Check(w.input(true)), "L3.state-schema")
		require.Len(t, got, 2)
		assert.Contains(t, got[0].Detail, "from tick 2 to tick 4")
		assert.Contains(t, got[1].Detail, "from tick 5 to tick 6")
	})
}
