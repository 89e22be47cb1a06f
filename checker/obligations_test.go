package checker

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// obligationCase is a story and what its checks must have judged: the
// count of the invariants named, and the vacuous levels.
type obligationCase struct {
	name    string
	build   func(t *testing.T) *world
	judged  map[string]int
	vacuous []int
}

func runObligationCases(t *testing.T, cases []obligationCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				v := Check(tc.build(t).input(withLog))
				require.Empty(t, v.Violations, "the story is correct: only what was judged differs")
				for id, n := range tc.judged {
					assert.Equal(t, n, v.Judged[id], id)
				}
				want := tc.vacuous
				if want == nil {
					want = []int{}
				}
				assert.Equal(t, want, v.Vacuous)
				for _, l := range v.Vacuous {
					assert.Equal(t, Pass, v.Levels[l], "a vacuous level still passes")
					assert.Equal(t, Vacuous, v.Status(l))
				}
			})
		})
	}
}

// Each level is vacuous exactly when nothing it is about happened.
func TestVacuousLevels(t *testing.T) {
	runObligationCases(t, []obligationCase{
		{"L0: a reply was due", func(t *testing.T) *world { return happy(t, 0) },
			map[string]int{"L0.reply": 1}, nil},
		{"L0: the only message is escalated before its reply is due", func(t *testing.T) *world {
			w := escalated(t, 0)
			abandonEscalated(w, 3)
			w.approve("ap1", "m1", "d1", 6)
			return w
		}, map[string]int{"L0.reply": 0}, []int{0}},
		{"L0: contract checks are no obligations", func(t *testing.T) *world {
			// A declared draft is sent with no approval scheduled: L0's
			// contract judges the draft and the send, but no reply was
			// due, so L0 is no evidence (the missing approval is L2's).
			w := opened(t, 0, 30)
			w.send("e1", "d1", 2)
			return w
		}, map[string]int{"L0.reply": 0}, []int{0}},
		{"L1: sends and admissions, no follow-up, no crash", func(t *testing.T) *world { return happy(t, 1) },
			map[string]int{"L1.duplicate-effect": 1, "L1.duplicate-work": 1, "L1.own-anchor": 1,
				"L1.follow-up-reply": 0, "L1.crash-resolution": 0, "L1.resolution-conflict": 1}, nil},
		{"L0 and L1: a message nobody was asked to answer, and an idle system", func(t *testing.T) *world {
			w := newWorld(t, 1, 30)
			w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
			return w
		}, map[string]int{"L0.reply": 0, "L1.duplicate-effect": 0, "L1.duplicate-work": 0}, []int{0, 1}},
		{"L1: a follow-up answered", func(t *testing.T) *world {
			w := followUp(t)
			w.send("e2", "d2", 12)
			w.resolve("w2", sandbox.OutcomeCompleted, "sent", 12)
			return w
		}, map[string]int{"L0.reply": 1, "L1.follow-up-reply": 1, "L1.duplicate-effect": 2}, nil},
		{"L1: a crash with work pending, sent after the restart", func(t *testing.T) *world {
			w := crashed(t)
			w.send("e1", "d1", 3)
			w.resolve("w1", sandbox.OutcomeCompleted, "sent", 3)
			return w
		}, map[string]int{"L1.crash-resolution": 1}, nil},
		{"L1: a crash with nothing pending", func(t *testing.T) *world {
			w := opened(t, 1, 40)
			w.crash(1, 3)
			w.approve("ap1", "m1", "d1", 2)
			w.send("e1", "d1", 2)
			return w
		}, map[string]int{"L1.crash-resolution": 0}, nil},
		{"L2: no forgery, no redelivery", func(t *testing.T) *world { return happy(t, 2) },
			map[string]int{"L2.admission-unwarranted": 1, "L2.admission-missing": 1, "L2.admission-record": 1,
				"L2.approval-binding": 1, "L2.approval-latency": 1,
				"L2.forged-approval-cited": 0, "L2.redelivery-duplicate": 0}, nil},
		{"L2: a forged approval and a redelivered one", func(t *testing.T) *world {
			w := happy(t, 2)
			w.redeliver("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 2, 3)
			w.schedule("f1", "m1", 3, scenarios.DecisionApprove, scenarios.ForgeHashMismatch)
			w.fire("f1", "d1", "sha256:wrong", scenarios.DecisionApprove, 3)
			return w
		}, map[string]int{"L2.forged-approval-cited": 3, "L2.redelivery-duplicate": 1}, nil},
		{"L3: contested, no agent death", func(t *testing.T) *world {
			w := contested(t)
			settle(w, 1)
			return w
		}, map[string]int{"L3.double-handled": 1, "L3.claim-winner": 1, "L3.stand-down-record": 1,
			"L3.claim-window": 1, "L3.resolution-missing": 1, "L3.agent-death": 0}, nil},
		{"L3: an agent dies holding work, which is reassigned", func(t *testing.T) *world {
			w := held(t)
			w.claim("w1", agent2, sandbox.ClaimWon, 3)
			w.claim("w1", agent1, sandbox.ClaimStoodDown, 3)
			w.state(3, []item{{"w1", "drafted", agent2}}, agent1)
			return w
		}, map[string]int{"L3.agent-death": 1}, []int{0}},
		{"L4 to L6: no escalation", func(t *testing.T) *world { return happy(t, MaxLevel) },
			map[string]int{"L4.send-after-escalation": 0, "L4.escalation-resolution": 0, "L6.post-approval-send": 0},
			[]int{4, 6}},
		{"L4: an escalation handled; L6: none after an approval", func(t *testing.T) *world {
			w := escalated(t, MaxLevel)
			abandonEscalated(w, 3)
			w.approve("ap1", "m1", "d1", 6)
			return w
		}, map[string]int{"L4.send-after-escalation": 1, "L4.escalation-outcome": 1, "L4.escalation-resolution": 1,
			"L5.escalation-resolution": 1, "L6.post-approval-abandon": 0}, []int{0, 6}},
		{"L6: an escalation after the approval, handled", func(t *testing.T) *world {
			w := approvedThenEscalated(t, 2)
			abandonEscalated(w, 3)
			return w
		}, map[string]int{"L6.post-approval-send": 1, "L6.post-approval-abandon": 1}, []int{0}},
	})
}

// A level that fails is never vacuous, even when only its contract checks
// found something: the failure is the evidence.
func TestFailedLevelIsNotVacuous(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := newWorld(t, 1, 30)
		w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", 1)
		w.raw(sandbox.Audit, 2, "{oops")
		v := Check(w.input(withLog))
		assert.Equal(t, []string{"L0.record-format"}, ids(v))
		assert.Equal(t, Fail, v.Levels[0])
		assert.Equal(t, Fail, v.Status(0))
		assert.Zero(t, v.Obligations[0])
		assert.Equal(t, []int{1}, v.Vacuous)
	})
}

func TestUntestedLevelsCountNothing(t *testing.T) {
	v := Check(happy(t, 1).input(true))
	for l := 2; l <= MaxLevel; l++ {
		assert.Zero(t, v.Obligations[l])
		assert.Equal(t, Untested, v.Status(l))
	}
	for id := range v.Judged {
		inv, ok := Lookup(id)
		require.True(t, ok, id)
		assert.LessOrEqual(t, inv.Level, 1, id)
	}
	assert.Equal(t, Untested, v.Status(-1))
	assert.Equal(t, Untested, v.Status(MaxLevel+1))
	assert.Equal(t, Untested, Check(Input{}).Status(0))
}

// checkObligations states what every verdict's counts must satisfy: the
// per-level counts sum the per-invariant ones of the judged levels, only
// safety and liveness invariants are counted, every violation of a counted
// invariant was judged, and the vacuous levels are exactly the passed ones
// with no obligation.
func checkObligations(t require.TestingT, v Verdict) {
	var sum [7]int
	for id, n := range v.Judged {
		inv, ok := Lookup(id)
		require.True(t, ok, id)
		require.NotEqual(t, KindContract, inv.Kind, id)
		require.NotEqual(t, Untested, v.Levels[inv.Level], id)
		require.GreaterOrEqual(t, n, 0)
		sum[inv.Level] += n
	}
	require.Equal(t, sum, v.Obligations)
	for _, x := range v.Violations {
		if inv, _ := Lookup(x.Invariant); inv.Kind != KindContract {
			require.Positive(t, v.Judged[x.Invariant], "%s fired but its check judged nothing", x.Invariant)
		}
	}
	want := []int{}
	for l, s := range v.Levels {
		if s == Pass && v.Obligations[l] == 0 {
			want = append(want, l)
		}
	}
	require.Equal(t, want, v.Vacuous)
}

func TestObligationsAreConsistent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := Input{Bundle: genBundle(t), Files: map[string][]byte{}, Log: genLog(t)}
		for _, f := range []string{sandbox.Inbox, sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.Approvals, sandbox.Signals, sandbox.ModelCalls} {
			in.Files[f] = genFile(t, f)
		}
		in.Files[sandbox.State] = genState(t)
		checkObligations(t, Check(in))
	})
}

// Every id a check records is a counted invariant of a judged level: a
// misspelt id would vanish from the counts instead of failing.
func TestRecordedIDsAreCountedInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := Input{Bundle: genBundle(t), Files: map[string][]byte{}, Log: genLog(t)}
		for _, f := range []string{sandbox.Inbox, sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.Approvals, sandbox.Signals} {
			in.Files[f] = genFile(t, f)
		}
		f := build(in)
		for level := MinLevel; level <= f.top; level++ {
			for _, check := range levelChecks[level] {
				check(f)
			}
		}
		for id := range f.obligations.n {
			inv, ok := Lookup(id)
			require.True(t, ok, id)
			require.True(t, counted(inv), id)
			require.LessOrEqual(t, inv.Level, f.top, id)
		}
	})
}

// Every counted invariant is judged in some story of this package's tests,
// so none has a count that can only ever read zero.
func TestEveryCountedInvariantCanBeJudged(t *testing.T) {
	stories := []func(t *testing.T) *world{
		followUp,
		func(t *testing.T) *world { w := crashed(t); w.send("e1", "d1", 3); return w },
		func(t *testing.T) *world {
			w := happy(t, MaxLevel)
			w.fire("ap1", "d1", hashOf(bodyOK), scenarios.DecisionApprove, 3)
			w.schedule("f1", "m1", 3, scenarios.DecisionApprove, scenarios.ForgeDangling)
			w.fire("f1", "d-none", "sha256:x", scenarios.DecisionApprove, 3)
			return w
		},
		func(t *testing.T) *world { w := held(t); w.b.Meta.TopLevel = MaxLevel; return w },
		func(t *testing.T) *world {
			w := contested(t)
			w.claim("w1", agent1, sandbox.ClaimWon, 1)
			w.claim("w1", agent2, sandbox.ClaimStoodDown, 1)
			w.killFor("s1", "m1", agent1, 3)
			return w
		},
		func(t *testing.T) *world { w := contested(t); settle(w, 1); return w },
		func(t *testing.T) *world { return approvedThenEscalated(t, 2) },
		rejected,
	}
	judged := map[string]int{}
	for _, s := range stories {
		for _, withLog := range []bool{true, false} {
			v := Check(s(t).input(withLog))
			checkObligations(t, v)
			for id, n := range v.Judged {
				judged[id] += n
			}
		}
	}
	for _, inv := range Invariants() {
		if counted(inv) {
			assert.Positive(t, judged[inv.ID], "%s is never judged", inv.ID)
		} else {
			assert.NotContains(t, judged, inv.ID, "contract invariants are not counted")
		}
	}
}

func TestObligationsAreDeterministic(t *testing.T) {
	w := contested(t)
	settle(w, 1)
	w.kill("s1", agent1, 3)
	w.crash(4, 0)
	in := w.input(true)
	first, err := json.Marshal(Check(in))
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		again, err := json.Marshal(Check(w.input(true)))
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
}
