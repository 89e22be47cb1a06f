package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// contested delivers m1 and has two agents claim it at tick 1.
func contested(t testing.TB) *world {
	w := newWorld(t, 3, 30)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.claim("w1", agent1, sandbox.ClaimClaimed, 1)
	w.claim("w1", agent2, sandbox.ClaimClaimed, 1)
	return w
}

// settle ends the contested story correctly from tick t: agent-1 wins,
// agent-2 stands down, the draft is approved and sent.
func settle(w *world, t int) {
	w.claim("w1", agent1, sandbox.ClaimWon, t)
	w.claim("w1", agent2, sandbox.ClaimStoodDown, t)
	w.draft("d1", "w1", "c1", bodyOK, t)
	w.state(t, []item{{"w1", "drafted", agent1}})
	w.approve("ap1", "m1", "d1", t+1)
	w.send("e1", "d1", t+1)
	w.resolve("w1", sandbox.OutcomeCompleted, "sent", t+1)
	w.state(t+1, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
}

func TestContestedHistoryPasses(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := contested(t)
		settle(w, 1)
		assert.Empty(t, Check(w.input(withLog)).Violations)
	})
}

func TestDoubleHandled(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := contested(t)
		w.claim("w1", agent1, sandbox.ClaimWon, 1)
		w.claim("w1", agent2, sandbox.ClaimWon, 2)
		w.claim("w1", agent2, sandbox.ClaimStoodDown, 3)
		v := Check(w.input(withLog))
		got := only(v, "L3.double-handled")
		require.Len(t, got, 1)
		assert.Equal(t, 2, got[0].Tick)
		assert.Contains(t, got[0].Detail, "agent-1 and agent-2")
		assert.Empty(t, only(v, "L3.claim-winner"), "it ends with one winner")
	})
	t.Run("handover within one tick", func(t *testing.T) {
		w := contested(t)
		w.claim("w1", agent1, sandbox.ClaimWon, 1)
		w.claim("w1", agent2, sandbox.ClaimStoodDown, 1)
		w.claim("w1", agent2, sandbox.ClaimWon, 4)
		w.claim("w1", agent1, sandbox.ClaimStoodDown, 4)
		assert.Empty(t, only(Check(w.input(true)), "L3.double-handled"))
	})
}

func TestClaimWinner(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(w *world)
		fails bool
	}{
		{"no winner", func(w *world) {
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 2)
			w.claim("w1", agent2, sandbox.ClaimStoodDown, 2)
		}, true},
		{"no winner, visibly orphaned", func(w *world) {
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 2)
			w.claim("w1", agent2, sandbox.ClaimStoodDown, 2)
			w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 2)
		}, false},
		{"two winners", func(w *world) {
			w.claim("w1", agent1, sandbox.ClaimWon, 2)
			w.claim("w1", agent2, sandbox.ClaimWon, 2)
		}, true},
		{"one winner", func(w *world) {
			w.claim("w1", agent1, sandbox.ClaimWon, 2)
			w.claim("w1", agent2, sandbox.ClaimStoodDown, 2)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := contested(t)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L3.claim-winner")
				assert.Equal(t, tc.fails, len(got) == 1)
				if tc.fails {
					assert.Equal(t, 30, got[0].Tick)
				}
			})
		})
	}
}

func TestStandDownRecord(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := contested(t)
		w.claim("w1", agent1, sandbox.ClaimWon, 2)
		got := only(Check(w.input(withLog)), "L3.stand-down-record")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "agent-2")
		assert.Equal(t, []string{"audit.jsonl:3"}, got[0].Evidence)
	})
}

func TestClaimWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wonAt int
		fails bool
	}{
		{"won on the last tick", 6, false},
		{"won late", 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := contested(t)
				w.claim("w1", agent1, sandbox.ClaimWon, tc.wonAt)
				w.claim("w1", agent2, sandbox.ClaimStoodDown, tc.wonAt)
				got := only(Check(w.input(withLog)), "L3.claim-window")
				require.Equal(t, tc.fails, len(got) == 1)
				if tc.fails {
					assert.Equal(t, 6, got[0].Tick)
				}
			})
		})
	}
}

// A work item claimed again after its first contest, as after an agent
// death, owes that contest the same 5 ticks (D45).
func TestClaimWindowEveryContest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(w *world)
		fails int // the deadline of the one violation, 0 for none
	}{
		{"a second contest won late", func(w *world) {
			w.claim("w1", agent2, sandbox.ClaimClaimed, 4)
			w.claim("w1", "agent-3", sandbox.ClaimClaimed, 4)
			w.claim("w1", agent2, sandbox.ClaimWon, 20)
			w.claim("w1", "agent-3", sandbox.ClaimStoodDown, 20)
		}, 9},
		{"a second contest won in time", func(w *world) {
			w.claim("w1", agent2, sandbox.ClaimClaimed, 4)
			w.claim("w1", "agent-3", sandbox.ClaimClaimed, 4)
			w.claim("w1", agent2, sandbox.ClaimWon, 9)
			w.claim("w1", "agent-3", sandbox.ClaimStoodDown, 9)
		}, 0},
		{"a late claimer that stands down", func(w *world) {
			w.claim("w1", agent2, sandbox.ClaimWon, 4)
			w.claim("w1", "agent-3", sandbox.ClaimClaimed, 6)
			w.claim("w1", "agent-3", sandbox.ClaimStoodDown, 7)
		}, 0},
		{"a late claimer that never stands down", func(w *world) {
			w.claim("w1", agent2, sandbox.ClaimWon, 4)
			w.claim("w1", "agent-3", sandbox.ClaimClaimed, 6)
		}, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 3, 40)
				w.b.Fleet = []string{agent1, agent2, "agent-3"}
				w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
				w.admit("w1", "m1", 1)
				w.claim("w1", agent1, sandbox.ClaimClaimed, 1)
				w.claim("w1", agent1, sandbox.ClaimWon, 1)
				w.kill("s1", agent1, 3)
				w.claim("w1", agent1, sandbox.ClaimStoodDown, 3)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L3.claim-window")
				if tc.fails == 0 {
					assert.Empty(t, got)
					return
				}
				require.Len(t, got, 1)
				assert.Equal(t, tc.fails, got[0].Tick)
			})
		})
	}
}

// held has agent-1 hold w1 with a pending draft when agent-1 dies at tick 3.
func held(t *testing.T) *world {
	w := contested(t)
	w.claim("w1", agent1, sandbox.ClaimWon, 1)
	w.claim("w1", agent2, sandbox.ClaimStoodDown, 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.state(1, []item{{"w1", "drafted", agent1}})
	w.kill("s1", agent1, 3)
	return w
}

func TestAgentDeath(t *testing.T) {
	t.Run("never reassigned nor resolved", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := held(t)
			w.state(3, []item{{"w1", "drafted", agent1}}, agent1)
			got := only(Check(w.input(withLog)), "L3.agent-death")
			require.Len(t, got, 1)
			assert.Equal(t, 30, got[0].Tick, "judged at the horizon")
			assert.Equal(t, "w1", got[0].WorkID)
			assert.Equal(t, []string{"signals.jsonl:1"}, got[0].Evidence)
		})
	})
	for _, tc := range []struct {
		name  string
		build func(w *world)
	}{
		{"reassigned at once", func(w *world) {
			w.claim("w1", agent2, sandbox.ClaimWon, 3)
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 3)
			w.state(3, []item{{"w1", "drafted", agent2}}, agent1)
		}},
		{"reassigned 7 ticks after the death", func(w *world) {
			w.state(3, []item{{"w1", "drafted", agent1}}, agent1)
			w.claim("w1", agent2, sandbox.ClaimWon, 10)
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 10)
			w.state(10, []item{{"w1", "drafted", agent2}}, agent1)
		}},
		{"visibly orphaned late", func(w *world) {
			w.state(3, []item{{"w1", "drafted", agent1}}, agent1)
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 12)
			w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 12)
			w.state(12, []item{{"w1", sandbox.OutcomeAbandoned, ""}}, agent1)
		}},
		{"sent late", func(w *world) {
			w.state(3, []item{{"w1", "drafted", agent1}}, agent1)
			w.approve("ap1", "m1", "d1", 12)
			w.send("e1", "d1", 12)
			w.resolve("w1", sandbox.OutcomeCompleted, "sent", 12)
			w.state(12, []item{{"w1", sandbox.OutcomeCompleted, agent1}}, agent1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := held(t)
				tc.build(w)
				assert.Empty(t, only(Check(w.input(withLog)), "L3.agent-death"))
			})
		})
	}
	t.Run("won by an agent already dead", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := held(t)
			w.state(3, []item{{"w1", "drafted", agent1}}, agent1)
			w.kill("s2", agent2, 5)
			w.state(5, []item{{"w1", "drafted", agent1}}, agent1, agent2)
			w.claim("w1", agent2, sandbox.ClaimWon, 10)
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 10)
			w.state(10, []item{{"w1", "drafted", agent2}}, agent1, agent2)
			got := only(Check(w.input(withLog)), "L3.agent-death")
			require.Len(t, got, 1)
			assert.Equal(t, []string{"signals.jsonl:1"}, got[0].Evidence)
		})
	})
	t.Run("a death the horizon cuts off is not judged", func(t *testing.T) {
		for _, tc := range []struct {
			at    int
			fails bool
		}{{25, true}, {26, false}} {
			w := contested(t)
			w.claim("w1", agent1, sandbox.ClaimWon, 1)
			w.claim("w1", agent2, sandbox.ClaimStoodDown, 1)
			w.state(1, []item{{"w1", "admitted", agent1}})
			w.kill("s1", agent1, tc.at)
			w.state(tc.at, []item{{"w1", "admitted", agent1}}, agent1)
			assert.Equal(t, tc.fails, len(only(Check(w.input(true)), "L3.agent-death")) == 1, "death at %d", tc.at)
		}
	})
	t.Run("still alive in the snapshot is state-consistency, reported once", func(t *testing.T) {
		w := held(t)
		w.claim("w1", agent2, sandbox.ClaimWon, 3)
		w.claim("w1", agent1, sandbox.ClaimStoodDown, 3)
		w.state(3, []item{{"w1", "drafted", agent2}})
		v := Check(w.input(true))
		assert.Empty(t, only(v, "L3.agent-death"))
		got := only(v, "L3.state-consistency")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "agent agent-1 is dead by AGENT_DEATH but alive")
	})
}

// uncontested has agent-1 hold w1 with no claim records at all, as a fleet
// that never contests may (D18), and loses agent-1 at tick 3 through a
// death the bundle scheduled for m1.
func uncontested(t *testing.T) *world {
	w := newWorld(t, 3, 30)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.state(1, []item{{"w1", "admitted", agent1}})
	w.killFor("s1", "m1", agent1, 3)
	return w
}

func TestAgentDeathReassignedInStateOnly(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := uncontested(t)
		w.state(3, []item{{"w1", "admitted", agent1}}, agent1)
		w.state(10, []item{{"w1", "admitted", agent2}}, agent1)
		assert.Empty(t, Check(w.input(withLog)).Violations, "an uncontested move owes no claim record")
	})
	t.Run("never moved", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := uncontested(t)
			w.state(3, []item{{"w1", "admitted", agent1}}, agent1)
			got := only(Check(w.input(withLog)), "L3.agent-death")
			require.Len(t, got, 1, "the bundle names the work the death was bound through")
			assert.Equal(t, "w1", got[0].WorkID)
		})
	})
	t.Run("moved to an agent the snapshot shows dead", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := uncontested(t)
			w.rawState(10, []byte(`{"work_items":[{"work_id":"w1","status":"admitted","assigned_agent":"agent-2"}],`+
				`"agents":[{"id":"agent-1","alive":false},{"id":"agent-2","alive":false}],"assignments":[{"work_id":"w1","agent_id":"agent-2"}]}`))
			assert.Len(t, only(Check(w.input(withLog)), "L3.agent-death"), 1)
		})
	})
	t.Run("assigned in the snapshot before the death", func(t *testing.T) {
		w := newWorld(t, 3, 30)
		w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		w.state(1, []item{{"w1", "admitted", agent1}})
		w.kill("s1", agent1, 3)
		w.state(3, []item{{"w1", "admitted", agent1}}, agent1)
		assert.Len(t, only(Check(w.input(true)), "L3.agent-death"), 1, "the snapshot names the holder")
	})
}

// A reassignment the final account undoes, or one to an agent the
// implementation does not run, leaves the dead agent's work dropped (D41).
func TestAgentDeathReassignmentMustHold(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(w *world)
		fails bool
	}{
		{"moved, then back with the dead agent", func(w *world) {
			w.state(5, []item{{"w1", "admitted", agent2}}, agent1)
			w.state(6, []item{{"w1", "admitted", agent1}}, agent1)
		}, true},
		{"moved, then held by no agent", func(w *world) {
			w.state(5, []item{{"w1", "admitted", agent2}}, agent1)
			w.state(6, []item{{"w1", "queued", ""}}, agent1)
		}, true},
		{"moved to an agent the snapshot does not list", func(w *world) {
			w.state(5, []item{{"w1", "admitted", "agent-9"}}, agent1)
		}, true},
		{"won by an agent the final snapshot does not list", func(w *world) {
			w.claim("w1", "agent-9", sandbox.ClaimWon, 5)
			w.state(5, []item{{"w1", "admitted", "agent-9"}}, agent1)
		}, true},
		{"moved and kept", func(w *world) {
			w.state(5, []item{{"w1", "admitted", agent2}}, agent1)
			w.state(6, []item{{"w1", "drafted", agent2}}, agent1)
		}, false},
		{"moved to an agent that dies later, whose death is judged on its own", func(w *world) {
			w.state(5, []item{{"w1", "admitted", agent2}}, agent1)
			w.kill("s2", agent2, 8)
			w.resolve("w1", sandbox.OutcomeAbandoned, "no_agent", 8)
			w.state(8, []item{{"w1", sandbox.OutcomeAbandoned, agent2}}, agent1, agent2)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := uncontested(t)
				w.state(3, []item{{"w1", "admitted", agent1}}, agent1)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L3.agent-death")
				if !tc.fails {
					assert.Empty(t, got)
					return
				}
				require.Len(t, got, 1)
				assert.Equal(t, "w1", got[0].WorkID)
			})
		})
	}
	t.Run("a second holder's later death is reported once, for that death", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := uncontested(t)
			w.state(3, []item{{"w1", "admitted", agent1}}, agent1)
			w.state(5, []item{{"w1", "admitted", agent2}}, agent1)
			w.kill("s2", agent2, 8)
			w.state(8, []item{{"w1", "admitted", agent2}}, agent1, agent2)
			got := only(Check(w.input(withLog)), "L3.agent-death")
			if withLog {
				require.Len(t, got, 1)
				assert.Equal(t, []string{"signals.jsonl:2"}, got[0].Evidence)
			} else {
				// Without a log the snapshot before the second death is
				// unknown, so only the first death is seen to hold w1; the
				// final snapshot shows its new holder dead, and the drop
				// is reported there.
				require.Len(t, got, 1)
				assert.Equal(t, []string{"signals.jsonl:1"}, got[0].Evidence)
			}
		})
	})
	t.Run("a snapshot listing no agent is read against the bundle's fleet", func(t *testing.T) {
		readings(t, func(t *testing.T, withLog bool) {
			w := uncontested(t)
			w.ownState(5, []item{{"w1", "admitted", agent2}})
			assert.Empty(t, only(Check(w.input(withLog)), "L3.agent-death"))
		})
	})
}

func TestResolutionMissing(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := opened(t, 3, 30)
		w.schedule("ap1", "m1", 2, scenarios.DecisionReject, "")
		got := only(Check(w.input(withLog)), "L3.resolution-missing")
		require.Len(t, got, 1)
		assert.Equal(t, 30, got[0].Tick)
		assert.Equal(t, "w1", got[0].WorkID)
	})
	t.Run("no ending scheduled", func(t *testing.T) {
		w := opened(t, 3, 30)
		assert.Empty(t, only(Check(w.input(true)), "L3.resolution-missing"))
	})
	t.Run("resolved", func(t *testing.T) {
		assert.Empty(t, only(Check(happy(t, 3).input(true)), "L3.resolution-missing"))
	})
}

func TestStateConsistency(t *testing.T) {
	for _, tc := range []struct {
		name   string
		build  func(w *world)
		detail string
	}{
		{"stale after completion", func(w *world) {
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
			w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
		}, `status "drafted" but is resolved completed`},
		{"admitted item missing", func(w *world) {
			w.deliver("m2", "c2", "b@x", "Order ORD-2002", "?", 2)
			w.admit("w2", "m2", 2)
		}, "w2 is admitted but missing"},
		{"item not admitted", func(w *world) {
			w.state(2, []item{{"w1", "drafted", agent1}, {"w5", "drafted", ""}})
		}, "w5, which is not admitted"},
		{"terminal status without a record", func(w *world) {
			w.state(2, []item{{"w1", sandbox.OutcomeAbandoned, agent1}})
		}, "no resolution record"},
		{"wrong agent", func(w *world) {
			w.state(2, []item{{"w1", "drafted", agent2}})
		}, "claims name agent-1"},
		{"dead agent alive", func(w *world) {
			w.kill("s1", agent2, 2)
		}, "agent-2 is dead"},
		{"assignments disagree", func(w *world) {
			w.rawState(2, []byte(`{"work_items":[{"work_id":"w1","status":"drafted","assigned_agent":"agent-1"}],"agents":[],"assignments":[{"work_id":"w1","agent_id":"agent-2"}]}`))
		}, "assignments give work item w1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 3, 30)
				tc.build(w)
				got := only(Check(w.input(withLog)), "L3.state-consistency")
				require.Len(t, got, 1, "%v", got)
				assert.Contains(t, got[0].Detail, tc.detail)
				assert.Equal(t, []string{"state.json:1"}, got[0].Evidence)
			})
		})
	}
}

func TestStateConsistencyCollapsesTickRanges(t *testing.T) {
	w := opened(t, 3, 30)
	w.approve("ap1", "m1", "d1", 2)
	w.send("e1", "d1", 2)
	w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
	w.state(9, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
	got := only(Check(w.input(true)), "L3.state-consistency")
	require.Len(t, got, 1)
	assert.Equal(t, 2, got[0].Tick)
	assert.Contains(t, got[0].Detail, "from tick 2 to tick 8")
}

func TestStateConsistencyLagAllowance(t *testing.T) {
	build := func(t *testing.T, forced bool, catchUp int) *world {
		w := opened(t, 3, 30)
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
		w.forced[2], w.forced[3], w.forced[4] = forced, forced, forced
		w.state(catchUp, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
		return w
	}
	t.Run("quiescent ticks are judged exactly", func(t *testing.T) {
		assert.Len(t, only(Check(build(t, false, 3).input(true)), "L3.state-consistency"), 1)
	})
	t.Run("forced ticks may lag two ticks", func(t *testing.T) {
		assert.Empty(t, only(Check(build(t, true, 4).input(true)), "L3.state-consistency"))
	})
	t.Run("but not three", func(t *testing.T) {
		got := only(Check(build(t, true, 5).input(true)), "L3.state-consistency")
		require.Len(t, got, 1)
		assert.Equal(t, 4, got[0].Tick)
	})
}

func TestStateMissing(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 3, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		got := only(Check(w.input(withLog)), "L3.state-consistency")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "missing")
	})
	t.Run("nothing to show, yet required", func(t *testing.T) {
		w := newWorld(t, 3, 30)
		got := only(Check(w.input(true)), "L3.state-consistency")
		require.Len(t, got, 1)
		assert.Contains(t, got[0].Detail, "missing at the end of the run")
	})
	t.Run("not judged below L3", func(t *testing.T) {
		w := newWorld(t, 2, 30)
		assert.Empty(t, Check(w.input(true)).Violations)
	})
}

// A resolution is owed by the horizon only when the ending reached the
// implementation with room left (D14); an approval another harness wrote
// late, though the draft was ready, reached it when written (D37).
func TestResolutionAfterApprovalWrittenLate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		firedAt int
		owed    bool
	}{
		{"written with 10 ticks left", 30, true},
		{"written with 2 ticks left", 38, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 3, 40)
				w.schedule("ap1", "m1", 3, scenarios.DecisionApprove, "")
				w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, tc.firedAt)
				assert.Equal(t, tc.owed, len(only(Check(w.input(withLog)), "L3.resolution-missing")) == 1)
			})
		})
	}
}
