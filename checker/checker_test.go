package checker

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

func TestHappyHistoryPassesEveryLevel(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		v := Check(happy(t, MaxLevel).input(withLog))
		require.Empty(t, v.Violations)
		for level, got := range v.Levels {
			assert.Equal(t, Pass, got, "L%d", level)
		}
		assert.Equal(t, OriginModelBased, v.Origin)
	})
}

func TestCheckIsDeterministic(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := contested(t)
		w.claim("w1", agent1, sandbox.ClaimWon, 2)
		w.claim("w1", agent2, sandbox.ClaimWon, 2)
		w.draft("d1", "w1", "c9", "About ORD-2002.", 2)
		w.send("e1", "d1", 3)
		w.send("e1", "d1", 3)
		w.raw(sandbox.Audit, 4, "{oops")
		w.kill("s1", agent2, 4)
		in := w.input(withLog)
		first, err := json.Marshal(Check(in))
		require.NoError(t, err)
		for i := 0; i < 5; i++ {
			again, err := json.Marshal(Check(w.input(withLog)))
			require.NoError(t, err)
			require.Equal(t, string(first), string(again))
		}
		assert.Greater(t, len(Check(in).Violations), 5)
	})
}

func TestViolationsAreSorted(t *testing.T) {
	w := contested(t)
	w.claim("w1", agent1, sandbox.ClaimWon, 2)
	w.claim("w1", agent2, sandbox.ClaimWon, 2)
	for i := 0; i < 12; i++ {
		w.send(fmt.Sprintf("e%d", i), "d-none", 3+i/6)
	}
	vs := Check(w.input(true)).Violations
	require.NotEmpty(t, vs)
	for i := 1; i < len(vs); i++ {
		a, b := vs[i-1], vs[i]
		if a.Tick != b.Tick {
			assert.Less(t, a.Tick, b.Tick)
			continue
		}
		if a.Level != b.Level {
			assert.Less(t, a.Level, b.Level)
			continue
		}
		if a.Invariant != b.Invariant {
			assert.Less(t, a.Invariant, b.Invariant)
			continue
		}
		assert.LessOrEqual(t, compareEvidence(a.Evidence, b.Evidence), 0, "%v before %v", a.Evidence, b.Evidence)
	}
	// outbox.jsonl:10 sorts after outbox.jsonl:9.
	assert.Negative(t, compareEvidence([]string{"outbox.jsonl:9"}, []string{"outbox.jsonl:10"}))
}

func TestLevelsAboveTheTopAreNotEvaluated(t *testing.T) {
	w := opened(t, 0, 30)
	w.admit("w2", "m1", 1) // a forked thread: an L1 violation
	w.approve("ap1", "m1", "d1", 2)
	w.send("e1", "d1", 2)
	v := Check(w.input(true))
	assert.Empty(t, v.Violations)
	assert.Equal(t, [7]string{Pass, Untested, Untested, Untested, Untested, Untested, Untested}, v.Levels)

	w.b.Meta.TopLevel = 1
	v = Check(w.input(true))
	assert.Equal(t, []string{"L1.duplicate-work"}, ids(v))
	assert.Equal(t, [7]string{Pass, Fail, Untested, Untested, Untested, Untested, Untested}, v.Levels)
}

func TestNoBundle(t *testing.T) {
	v := Check(Input{Files: map[string][]byte{sandbox.Outbox: []byte("junk")}})
	assert.Empty(t, v.Violations)
	assert.NotNil(t, v.Violations)
	for _, l := range v.Levels {
		assert.Equal(t, Untested, l)
	}
}

func TestVerdictJSON(t *testing.T) {
	data, err := json.Marshal(Check(happy(t, 1).input(true)))
	require.NoError(t, err)
	assert.JSONEq(t, `{"levels":["pass","pass","untested","untested","untested","untested","untested"],
		"obligations":[1,4,0,0,0,0,0],
		"judged":{"L0.reply":1,"L1.duplicate-effect":1,"L1.duplicate-work":1,"L1.own-anchor":1,
			"L1.follow-up-reply":0,"L1.crash-resolution":0,"L1.resolution-conflict":1},
		"vacuous":[],
		"origin":"model-based","violations":[]}`, string(data))

	data, err = json.Marshal(Check(happy(t, 4).input(true)))
	require.NoError(t, err)
	var v struct {
		Levels  []string `json:"levels"`
		Vacuous []int    `json:"vacuous"`
	}
	require.NoError(t, json.Unmarshal(data, &v))
	assert.Equal(t, "pass", v.Levels[4], "levels keep the spec's pass / fail / untested")
	assert.Equal(t, []int{4}, v.Vacuous, "no escalation: L4 judged nothing")
}

// BenchmarkCheck judges a small fleet story with its run log, the common
// shape of a published scenario.
func BenchmarkCheck(b *testing.B) {
	w := contested(b)
	settle(w, 1)
	w.deliver("m2", "c2", "b@x", "Order ORD-2002", "late", 5)
	w.admit("w2", "m2", 5)
	w.claim("w2", agent2, sandbox.ClaimWon, 5)
	w.draft("d2", "w2", "c2", "About ORD-2002.", 5)
	w.escalate("s1", "m2", "w2", 7)
	w.resolve("w2", sandbox.OutcomeAbandoned, sandbox.ReasonOperatorEscalation, 7)
	in := w.input(true)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Check(in)
	}
}
