package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// crashDown schedules a crash that keeps the implementation down for down
// ticks and logs it as the engine does: the crash, then the restart at the
// first visited tick at or after tick+down.
func (w *world) crashDown(tick, down int) {
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: tick, Kind: scenarios.FaultCrash, Down: down})
	w.harness = append(w.harness, sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: tick, Down: down})
	if r, ok := newTimeline(w.b).visible(tick + down); ok {
		w.harness = append(w.harness, sandbox.LogRecord{Kind: sandbox.LogRestart, Tick: r})
	}
}

func guardAgrees(t *testing.T, in Input, v Verdict) {
	t.Helper()
	g := Guard(v, history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log})))
	assert.True(t, g.Agree, g.String())
}

// A message whose admission budget a downtime falls in owes its admission
// within 5 ticks of the restart, not of its arrival (D71); one tick later is
// missing, in both oracles alike.
func TestDowntimeRestartsAdmissionBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		down     int
		admitted int
		missing  int // tick of the violation, 0 for none
	}{
		{"admitted at the restart's budget end", 10, 17, 0},
		{"admitted a tick after it", 10, 18, 17},
		{"a budget a short downtime falls in ends 5 after the restart", 3, 10, 0},
		{"and is missing after that", 3, 11, 10},
		{"no downtime: the budget runs from arrival", 0, 18, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 2, 40)
				w.crashDown(2, tc.down)
				if tc.down == 0 {
					w.crash(2, 0)
					w.b.Faults = w.b.Faults[1:]
				}
				w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 2)
				w.admit("w1", "m1", tc.admitted)
				in := w.input(withLog)
				v := Check(in)
				got := only(v, "L2.admission-missing")
				if tc.missing == 0 {
					assert.Empty(t, got)
				} else {
					require.Len(t, got, 1)
					assert.Equal(t, tc.missing, got[0].Tick)
				}
				guardAgrees(t, in, v)
			})
		})
	}
}

// A downtime and an immediate crash at one tick, the downtime first in the
// bundle: the immediate crash lands first (it needs no write) and restarts
// at once, and the downtime still ends at its own restart. The message's
// budget runs 5 from that restart in both oracles, with and without the run
// log: admitted at its end it is on time, a tick later it is missing. (The
// history without a log once gave the downtime the other crash's restart
// and disagreed with the checker.)
func TestDowntimeBesideAnImmediateCrashKeepsItsRestart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		admitted int
		missing  int
	}{
		{"admitted at the restart's budget end", 17, 0},
		{"admitted a tick after it", 18, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 2, 40)
				w.b.Faults = append(w.b.Faults,
					scenarios.Fault{At: 2, Kind: scenarios.FaultCrash, AfterWrites: 1, Down: 10},
					scenarios.Fault{At: 2, Kind: scenarios.FaultCrash})
				w.harness = append(w.harness,
					sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: 2},
					sandbox.LogRecord{Kind: sandbox.LogRestart, Tick: 2},
					sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: 2, AfterWrites: 1, Down: 10},
					sandbox.LogRecord{Kind: sandbox.LogRestart, Tick: 12})
				w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 2)
				w.admit("w1", "m1", tc.admitted)
				in := w.input(withLog)
				v := Check(in)
				got := only(v, "L2.admission-missing")
				if tc.missing == 0 {
					assert.Empty(t, got)
				} else {
					require.Len(t, got, 1)
					assert.Equal(t, tc.missing, got[0].Tick)
				}
				guardAgrees(t, in, v)
			})
		})
	}
}

// An implementation that never comes back before the horizon owes nothing
// whose budget ends in the downtime: there is no restart to run from.
func TestDowntimePastHorizonJudgesNothingInIt(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 2, 20)
		w.crashDown(2, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 3)
		in := w.input(withLog)
		v := Check(in)
		assert.Empty(t, only(v, "L2.admission-missing"))
		guardAgrees(t, in, v)
	})
}

// Crash resolution runs 20 ticks from the restart (spec §4 L1: "within 20
// ticks of restart"): approved work pending at a crash with a downtime of
// 15 may resolve up to 35 ticks after the crash, and not later.
func TestDowntimeCrashResolutionFromRestart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sentAt int
		fails  bool
	}{
		{"sent 20 ticks after the restart", 25, false},
		{"sent 21 ticks after it", 26, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 1, 60)
				w.approve("ap1", "m1", "d1", 2)
				w.crashDown(3, 2) // restart at 5
				w.send("e1", "d1", tc.sentAt)
				w.resolve("w1", sandbox.OutcomeCompleted, "sent", tc.sentAt)
				v := Check(w.input(withLog))
				got := only(v, "L1.crash-resolution")
				if tc.fails {
					require.NotEmpty(t, got)
					assert.Equal(t, 25, got[0].Tick)
				} else {
					assert.Empty(t, got, "%v", got)
				}
			})
		})
	}
}

// Reply and approval budgets that end in a downtime start again from the
// restart too.
func TestDowntimeRestartsApprovalBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sentAt int
		fails  bool
	}{
		{"sent 5 ticks after the restart", 17, false},
		{"sent 6 ticks after it", 18, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := opened(t, 2, 60)
				w.approve("ap1", "m1", "d1", 2)
				w.crashDown(3, 9) // restart at 12
				w.send("e1", "d1", tc.sentAt)
				w.resolve("w1", sandbox.OutcomeCompleted, "sent", tc.sentAt)
				v := Check(w.input(withLog))
				got := only(v, "L2.approval-latency")
				if tc.fails {
					require.Len(t, got, 1)
					assert.Equal(t, 17, got[0].Tick)
				} else {
					assert.Empty(t, got, "%v", got)
				}
			})
		})
	}
}

// Under stamp_scheduled a late approval carries the tick it was due; the
// run log says so, and the line is what the harness wrote. The same line
// without the log's word is not (D72).
func TestStampedApprovalIsWhatTheHarnessWrote(t *testing.T) {
	for _, logged := range []bool{true, false} {
		w := opened(t, 2, 30)
		w.b.Meta.StampScheduled = true
		w.schedule("ap1", "m1", 0, scenarios.DecisionApprove, "")
		w.hline(sandbox.Approvals, 2, sandbox.LogApprove, "ap1", sandbox.ApprovalRecord{ApprovalID: "ap1", DraftID: "d1",
			ContentHash: hashOf(w.body("d1")), Decision: scenarios.DecisionApprove, DecidedAt: 0})
		rec := &w.harness[len(w.harness)-1]
		rec.DraftID, rec.ContentHash, rec.Decision = "d1", hashOf(w.body("d1")), scenarios.DecisionApprove
		if logged {
			rec.Stamped = intp(0)
		}
		w.send("e1", "d1", 2)
		w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
		v := Check(w.input(true))
		if logged {
			assert.Empty(t, v.Violations, "%v", v.Violations)
		} else {
			assert.NotEmpty(t, only(v, "L0.harness-files"))
		}
	}
}

// While the implementation is down nobody keeps state.json: an agent death
// that fires then disagrees with the snapshot until the restarted instance
// is quiet, where full agreement is required again (D73).
func TestDowntimeStateIsJudgedAgainAtTheRestart(t *testing.T) {
	for _, fixed := range []bool{true, false} {
		w := opened(t, 3, 30)
		w.crashDown(2, 5) // restart at 7
		w.kill("s1", agent2, 3)
		if fixed {
			w.state(7, []item{{"w1", "drafted", agent1}}, agent2)
		}
		got := only(Check(w.input(true)), "L3.state-consistency")
		if fixed {
			assert.Empty(t, got, "%v", got)
		} else {
			require.Len(t, got, 1)
			assert.Equal(t, 7, got[0].Tick)
		}
	}
}

// An AGENT_DEATH due while the implementation is down, or at its restart's
// tick (the harness fires before the fresh instance works), could first
// bind the tick after the restart: work the restarted instance ends at once
// (here, abandoned for its escalation) had nothing to kill; work it leaves
// unheld afterwards is unbound (D29).
func TestDowntimeDefersTheDeathBindingToTheRestart(t *testing.T) {
	for _, tc := range []struct{ due, endsAt int }{{2, 6}, {2, 9}, {6, 6}, {6, 9}} {
		due, endsAt := tc.due, tc.endsAt
		w := newWorld(t, 3, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.admit("w1", "m1", 1)
		w.crashDown(2, 4) // restart at 6
		w.b.Signals = append(w.b.Signals, scenarios.Signal{ID: "s1", At: due, Type: scenarios.AgentDeath,
			Target: scenarios.Match{MessageID: "m1"}})
		w.unfired = append(w.unfired, sandbox.LogRecord{Kind: sandbox.LogUnfired, Tick: 30, ID: "s1", Scheduled: intp(due)})
		w.escalate("s2", "m1", "w1", 3)
		w.resolve("w1", sandbox.OutcomeAbandoned, "operator_escalation", endsAt)
		w.state(endsAt, []item{{"w1", sandbox.OutcomeAbandoned, ""}})
		got := only(Check(w.input(true)), "L3.agent-death-unbound")
		if endsAt == 6 {
			assert.Empty(t, got, "due %d: %v", due, got)
		} else {
			assert.Len(t, got, 1, "due %d", due)
		}
	}
}

// A torn crash leaves half a line; an implementation that ends it before
// writing on leaves exactly those bytes as a line, which the run log says
// the harness cut and which is no violation. One that glues its next record
// onto them writes a bad line of its own; and without the run log nothing
// says the harness cut it (D75).
func TestTornLineIsTheHarnessesOnlyWhenLeftAsCut(t *testing.T) {
	const cut = `{"event":"resolution","at":2,"work_id":"w1","outc`
	for _, tc := range []struct {
		name    string
		line    string
		withLog bool
		fails   bool
	}{
		{"ended as cut", cut, true, false},
		{"glued to the next record", cut + `{"event":"note","at":2}`, true, true},
		{"ended as cut, without the run log", cut, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := happy(t, 1)
			n := w.lineCount(sandbox.Audit) + 1
			w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 3, Kind: scenarios.FaultCrash, AfterWrites: 1, Torn: true})
			w.harness = append(w.harness, sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: 3, AfterWrites: 1, Written: 1,
				Torn: sandbox.Audit, TornText: cut, Line: n}, sandbox.LogRecord{Kind: sandbox.LogRestart, Tick: 3})
			w.raw(sandbox.Audit, 3, tc.line)
			got := only(Check(w.input(tc.withLog)), "L0.record-format")
			if tc.fails {
				assert.Len(t, got, 1)
			} else {
				assert.Empty(t, got, "%v", got)
			}
		})
	}
}

// Work owes its resolution by the horizon only when the implementation,
// back from its downtime, has the ending room to write it (D71).
func TestDowntimeLeavesRoomForTheResolution(t *testing.T) {
	for _, tc := range []struct {
		down  int
		fails bool
	}{{26, false}, {10, true}} {
		w := opened(t, 3, 30)
		w.schedule("ap1", "m1", 1, scenarios.DecisionApprove, "")
		w.crashDown(2, tc.down) // restart at 28 (no room before 30) or 12
		got := only(Check(w.input(true)), "L3.resolution-missing")
		if tc.fails {
			assert.Len(t, got, 1, "down %d", tc.down)
		} else {
			assert.Empty(t, got, "down %d", tc.down)
		}
	}
}
