package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func intp(n int) *int { return &n }

// Each counter of issue 20's faults is read from what the run log and the
// files say happened, and stays unmarked when it did not happen.
func TestDeploymentCounters(t *testing.T) {
	max2 := 2
	b := &scenarios.Bundle{Rules: []scenarios.Rule{{ID: "short", Admit: true,
		When: scenarios.Conditions{ThreadLengthMax: &max2}}}}
	inbox := `{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":1}` + "\n" +
		`{"id":"m1","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":1}` + "\n" +
		`{"id":"m2","conversation_id":"c1","from":"a@x","subject":"s","body":"b","at":3}` + "\n"
	calls := `{"call_id":"call-0001","failed":{"kind":"reset"}}` + "\n" + `{"call_id":"call-0002"}` + "\n"
	log := []sandbox.LogRecord{
		{Kind: sandbox.LogCrash, Tick: 1, Down: 3, AfterWrites: 1, Torn: sandbox.Audit, Line: 2},
		{Kind: sandbox.LogSignal, Tick: 2, Stamped: intp(1)},
		{Kind: sandbox.LogRestart, Tick: 4},
		{Kind: sandbox.LogCrash, Tick: 5, AfterWrites: 2, Torn: sandbox.State},
	}
	s := Observe(b, map[string][]byte{sandbox.Inbox: []byte(inbox), sandbox.ModelCalls: []byte(calls)}, log)
	for _, c := range deployCounters {
		assert.True(t, s.Has(c.Name), c.Name)
	}
	quiet := Observe(b, map[string][]byte{}, []sandbox.LogRecord{{Kind: sandbox.LogCrash, Tick: 1},
		{Kind: sandbox.LogRestart, Tick: 1}, {Kind: sandbox.LogSignal, Tick: 2}})
	for _, c := range deployCounters {
		assert.False(t, quiet.Has(c.Name), c.Name)
	}
}
