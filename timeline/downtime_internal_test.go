package timeline

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func audit(event, outcome string, kv ...string) record {
	r := record{file: sandbox.Audit, event: event, outcome: outcome, fields: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.fields[kv[i]] = kv[i+1]
	}
	return r
}

// Each kind of piled-up item is acted on by the records D131 names, and
// not by records that merely follow it.
func TestWhatActsOnAPiledUpItem(t *testing.T) {
	o := newOutages(map[string]string{"d1": "w1"})
	o.winners["w2"] = "agent-2"
	send := record{file: sandbox.Outbox, fields: map[string]string{"draft_id": "d1"}}
	cases := []struct {
		name   string
		fired  sandbox.LogRecord
		acts   []record
		doesnt []record
	}{
		{"delivery", sandbox.LogRecord{Kind: sandbox.LogDeliver, ID: "m1"},
			[]record{audit(sandbox.EventAdmission, "", "message_id", "m1"), audit("declined", "", "message_id", "m1")},
			[]record{audit(sandbox.EventAdmission, "", "message_id", "m2")}},
		{"approval", sandbox.LogRecord{Kind: sandbox.LogApprove, ID: "ap1", DraftID: "d1", Decision: scenarios.DecisionApprove},
			[]record{audit("approval_accepted", "", "approval_id", "ap1"), send},
			[]record{audit(sandbox.EventResolution, sandbox.OutcomeAbandoned, "work_id", "w1")}},
		{"forged approval", sandbox.LogRecord{Kind: sandbox.LogApprove, ID: "ap9", DraftID: "d1", Forge: "hash_mismatch"},
			[]record{audit("approval_ignored", "", "approval_id", "ap9")},
			[]record{send}},
		{"rejection", sandbox.LogRecord{Kind: sandbox.LogApprove, ID: "ap2", DraftID: "d1", Decision: scenarios.DecisionReject},
			[]record{audit(sandbox.EventResolution, sandbox.OutcomeAbandoned, "work_id", "w1")},
			[]record{send, audit(sandbox.EventResolution, sandbox.OutcomeCompleted, "work_id", "w1")}},
		{"escalation", sandbox.LogRecord{Kind: sandbox.LogSignal, ID: "s1", SignalType: sandbox.SignalOperatorEscalation, Target: "w1"},
			[]record{audit(sandbox.EventResolution, sandbox.OutcomeAbandoned, "work_id", "w1"), audit("note", "", "signal_id", "s1")},
			[]record{audit(sandbox.EventResolution, sandbox.OutcomeCompleted, "work_id", "w1"), send}},
		{"agent death", sandbox.LogRecord{Kind: sandbox.LogSignal, ID: "s2", SignalType: sandbox.SignalAgentDeath, Target: "agent-2"},
			[]record{audit(sandbox.EventClaim, sandbox.ClaimStoodDown, "work_id", "w3", "agent_id", "agent-2"),
				audit(sandbox.EventClaim, sandbox.ClaimClaimed, "work_id", "w2", "agent_id", "agent-1")},
			[]record{audit(sandbox.EventClaim, sandbox.ClaimClaimed, "work_id", "w1", "agent_id", "agent-1")}},
		{"rules change", sandbox.LogRecord{Kind: sandbox.LogRules, RulesHash: "sha256:abc"},
			[]record{audit(sandbox.EventAdmission, "", "message_id", "m1", "rules_hash", "abc")},
			[]record{audit(sandbox.EventAdmission, "", "message_id", "m1", "rules_hash", "old")}},
		{"posture change", sandbox.LogRecord{Kind: sandbox.LogPosture, Posture: "vip-only"},
			[]record{audit(sandbox.EventAdmission, "", "message_id", "m1", "rules_hash", "abc")},
			[]record{audit(sandbox.EventClaim, sandbox.ClaimWon, "work_id", "w1", "agent_id", "agent-1"), send}},
	}
	for _, c := range cases {
		how, ok := o.actsOn(c.fired)
		assert.True(t, ok, c.name)
		for _, r := range c.acts {
			assert.True(t, o.acts(how, r), "%s: %+v acts on it", c.name, r)
		}
		for _, r := range c.doesnt {
			assert.False(t, o.acts(how, r), "%s: %+v does not act on it", c.name, r)
		}
	}
	_, ok := o.actsOn(sandbox.LogRecord{Kind: sandbox.LogJump, To: 9})
	assert.False(t, ok, "a jump is nothing to read")
}

// Only what fires while the implementation is down piles up, and the first
// record acting on an item is kept, not a later one.
func TestOnlyWhatFiresWhileDownPilesUp(t *testing.T) {
	o := newOutages(nil)
	deliver := func(id string, tick int) {
		r := sandbox.LogRecord{Kind: sandbox.LogDeliver, ID: id, Tick: tick}
		o.fired(r, Entry{What: "deliver"})
	}
	deliver("m0", 1)
	o.crash(sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: 2, Down: 5})
	o.crash(sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: 3, Down: 9}) // nothing to kill: no second downtime
	deliver("m1", 3)
	o.restart(7)
	deliver("m2", 8)
	o.wrote(7, audit(sandbox.EventAdmission, "", "message_id", "m1"), Entry{What: "admit", Text: "m1 as w1", Ref: "audit.jsonl:1"})
	o.wrote(9, audit("note", "", "message_id", "m1"), Entry{What: "audit", Ref: "audit.jsonl:2"})
	assert.Len(t, o.all, 1)
	d := o.all[0]
	assert.Equal(t, 2, d.Crash)
	assert.Equal(t, 5, d.Down)
	assert.Equal(t, 7, *d.Restart)
	assert.Len(t, d.PiledUp, 1)
	p := d.PiledUp[0]
	assert.Equal(t, "m1", p.ID)
	assert.Equal(t, 7, *p.ActedAt)
	assert.Equal(t, "admit m1 as w1", p.ActedBy)
	assert.Equal(t, "audit.jsonl:1", p.Ref)
}
