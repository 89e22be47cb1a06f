package history

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// b builds a run-log history by hand, one operation per call, so each
// invariant's counterexample reads like the story it tells.
type b struct {
	ops     []Op
	files   bool
	n       map[string]int
	lastTik int
}

func newB() *b { return &b{n: map[string]int{}} }

func (x *b) op(tick int, actor Actor, typ OpType, set func(*Op)) *b {
	file := map[OpType]string{OpDeliver: "inbox.jsonl", OpDuplicate: "inbox.jsonl", OpApprove: "approvals.jsonl",
		OpSignal: "signals.jsonl", OpDraft: "drafts.jsonl", OpSend: "outbox.jsonl", OpAdmit: "audit.jsonl",
		OpClaim: "audit.jsonl", OpResolve: "audit.jsonl", OpModelCall: "model-calls.jsonl"}[typ]
	if file == "" {
		file = "run.jsonl"
	}
	x.n[file]++
	o := Op{Tick: tick, Actor: actor, Type: typ}
	o.SetSrc(fmt.Sprintf("%s:%d", file, x.n[file]))
	set(&o)
	x.ops = append(x.ops, o)
	return x
}

func (x *b) deliver(t int, msg, conv string) *b {
	return x.op(t, ActorHarness, OpDeliver, func(o *Op) { o.MessageID, o.ConversationID = msg, conv })
}
func (x *b) admit(t int, work, msg string) *b {
	return x.op(t, ActorImpl, OpAdmit, func(o *Op) { o.WorkID, o.MessageID = work, msg })
}
func (x *b) claim(t int, work, agent, outcome string) *b {
	return x.op(t, ActorImpl, OpClaim, func(o *Op) { o.WorkID, o.AgentID, o.Outcome = work, agent, outcome })
}
func (x *b) call(t int, id string) *b {
	return x.op(t, ActorStub, OpModelCall, func(o *Op) { o.W().CallID = id })
}
func (x *b) draft(t int, id, work, hash string, calls ...string) *b {
	return x.op(t, ActorImpl, OpDraft, func(o *Op) { o.DraftID, o.WorkID, o.ContentHash, o.W().Calls = id, work, hash, calls })
}
func (x *b) approve(t int, id, draft, hash, decision, forged string) *b {
	return x.op(t, ActorHarness, OpApprove, func(o *Op) {
		o.W().ApprovalID, o.DraftID, o.ContentHash, o.W().Decision, o.W().Forged = id, draft, hash, decision, forged
	})
}
func (x *b) send(t int, effect, draft string) *b {
	return x.op(t, ActorImpl, OpSend, func(o *Op) { o.W().EffectID, o.DraftID = effect, draft })
}
func (x *b) resolve(t int, work, outcome, reason string) *b {
	return x.op(t, ActorImpl, OpResolve, func(o *Op) { o.WorkID, o.Outcome, o.Reason = work, outcome, reason })
}
func (x *b) escalate(t int, id, work string) *b {
	return x.op(t, ActorHarness, OpSignal, func(o *Op) { o.W().SignalID, o.W().SignalType, o.WorkID = id, "OPERATOR_ESCALATION", work })
}
func (x *b) death(t int, id, agent string) *b {
	return x.op(t, ActorHarness, OpSignal, func(o *Op) { o.W().SignalID, o.W().SignalType, o.AgentID = id, "AGENT_DEATH", agent })
}
func (x *b) crash(t int, approx bool) *b {
	x.op(t, ActorHarness, OpCrash, func(o *Op) { o.Approximate = approx })
	return x.op(t, ActorHarness, OpRestart, func(o *Op) { o.Approximate = approx })
}
func (x *b) state(t int, items ...Item) *b {
	return x.op(t, ActorImpl, OpState, func(o *Op) { o.W().Items = items; o.SetSrc("state.json:1") })
}

func (x *b) history() *History {
	h := &History{Format: Format, Ordering: OrderRunLog, Fleet: []string{"agent-1"}, Skipped: []string{}}
	if x.files {
		h.Ordering = OrderFiles
	}
	for i := range x.ops {
		x.ops[i].Index = i
	}
	h.Ops = x.ops
	return h
}

// happy is one work item admitted, drafted, approved, sent and completed.
func happy() *b {
	return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").claim(1, "w-m1", "agent-1", "won").
		call(1, "call-1").draft(1, "d1", "w-m1", "h1", "call-1").
		approve(3, "ap1", "d1", "h1", "approve", ForgedNo).send(3, "e1", "d1").resolve(3, "w-m1", "completed", "sent")
}

func counts(v Verdict) map[string]int {
	out := map[string]int{}
	for k, n := range v.Counts {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

func TestHappyHistoryHasNoViolation(t *testing.T) {
	for _, files := range []bool{false, true} {
		h := happy()
		h.files = files
		v := Check(h.history())
		assert.Empty(t, v.Violations, "file order %v", files)
		assert.Len(t, v.Counts, len(catalogue), "every invariant has a count")
	}
}

// Each invariant has a counterexample that trips it, with the causes and
// the operations that prove it.
func TestInvariantCounterexamples(t *testing.T) {
	cases := []struct {
		name   string
		inv    string // the invariant whose first violation is inspected
		build  func() *b
		want   map[string]int
		causes []string
		ops    []int // the proving operations of that violation
	}{
		{"H1 redelivered approval sends twice", H1DuplicateEffect, func() *b {
			return happy().approve(4, "ap1", "d1", "h1", "approve", ForgedNo).send(4, "e1b", "d1")
		}, map[string]int{H1DuplicateEffect: 1, H4EffectAfterCancellation: 1}, nil, []int{9, 6}},
		{"H1 two drafts of one work item both sent", H1DuplicateEffect, func() *b {
			return happy().draft(4, "d2", "w-m1", "h2").approve(5, "ap2", "d2", "h2", "approve", ForgedNo).send(5, "e2", "d2")
		}, map[string]int{H1DuplicateEffect: 1, H4EffectAfterCancellation: 1}, nil, []int{10, 6}},
		{"H2 undeclared draft", H2OrphanEffect, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").send(2, "e1", "ghost")
		}, map[string]int{H2OrphanEffect: 1, H5UnauthorizedEffect: 1}, []string{CauseUndeclared}, []int{2}},
		{"H2 draft of no admitted work", H2OrphanEffect, func() *b {
			return newB().draft(1, "d1", "w-x", "h1").approve(2, "ap1", "d1", "h1", "approve", ForgedNo).send(2, "e1", "d1")
		}, map[string]int{H2OrphanEffect: 1}, []string{CauseUnadmitted}, []int{2, 0}},
		{"H3 approved, never sent nor resolved", H3LostWork, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
				approve(3, "ap1", "d1", "h1", "approve", ForgedNo)
		}, map[string]int{H3LostWork: 1}, nil, []int{3, 1, 2}},
		{"H4 send after escalation", H4EffectAfterCancellation, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
				approve(3, "ap1", "d1", "h1", "approve", ForgedNo).escalate(3, "s1", "w-m1").send(3, "e1", "d1")
		}, map[string]int{H4EffectAfterCancellation: 1}, []string{CauseEscalation}, []int{5, 4}},
		{"H11 send on an approval after a valid reject", H11SendAfterRejection, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
				approve(3, "ap1", "d1", "h1", "reject", ForgedNo).approve(4, "ap2", "d1", "h1", "approve", ForgedNo).send(4, "e1", "d1")
		}, map[string]int{H11SendAfterRejection: 1}, nil, []int{5, 3}},
		{"H4 send after an abandoned resolution", H4EffectAfterCancellation, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
				approve(3, "ap1", "d1", "h1", "approve", ForgedNo).escalate(3, "s1", "w-m1").
				resolve(3, "w-m1", "abandoned", "operator_escalation").send(4, "e1", "d1")
		}, map[string]int{H4EffectAfterCancellation: 1, H7ClaimContradiction: 1}, []string{CauseEscalation, CauseResolution}, []int{6, 4, 5}},
		{"H5 send with no approval", H5UnauthorizedEffect, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").send(1, "e1", "d1")
		}, map[string]int{H5UnauthorizedEffect: 1}, nil, []int{3, 2}},
		{"H5 send on a forged approval", H5UnauthorizedEffect, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
				approve(2, "f1", "d1", "forged", "approve", ForgedHashMismatch).send(2, "e1", "d1")
		}, map[string]int{H5UnauthorizedEffect: 1}, nil, []int{4, 2}},
		{"H6 abandoned with no cause", H6FalseSuppression, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").claim(1, "w-m1", "agent-1", "won").
				resolve(2, "w-m1", "abandoned", "bored")
		}, map[string]int{H6FalseSuppression: 1}, nil, []int{3, 1}},
		{"H6 operator_escalation reason without an escalation", H6FalseSuppression, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").resolve(2, "w-m1", "abandoned", "operator_escalation")
		}, map[string]int{H6FalseSuppression: 1}, nil, []int{2, 1}},
		{"H7 completed without a send", H7ClaimContradiction, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").resolve(2, "w-m1", "completed", "sent")
		}, map[string]int{H7ClaimContradiction: 1}, []string{CauseCompletedWithoutSend}, []int{2}},
		{"H7 resolved both ways", H7ClaimContradiction, func() *b {
			return happy().escalate(4, "s1", "w-m1").resolve(4, "w-m1", "abandoned", "operator_escalation")
		}, map[string]int{H7ClaimContradiction: 2}, []string{CauseResolvedBothWays}, []int{9, 7}},
		{"H7 state says completed, outbox says nothing", H7ClaimContradiction, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").state(5, Item{WorkID: "w-m1", Status: "completed"})
		}, map[string]int{H7ClaimContradiction: 1}, []string{CauseStateCompleted}, []int{2}},
		{"H8 crash finds an effect whose draft is not declared", H8EffectDespiteCrash, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").send(2, "e1", "d1").crash(2, false).
				draft(3, "d1", "w-m1", "h1")
		}, map[string]int{H2OrphanEffect: 1, H5UnauthorizedEffect: 1, H8EffectDespiteCrash: 1}, []string{CauseOutAtCrash}, []int{2, 3}},
		{"H8 draft made before a crash, sent after it, declared later", H8EffectDespiteCrash, func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").call(1, "call-1").crash(1, false).
				send(2, "e1", "d1").draft(3, "d1", "w-m1", "h1", "call-1")
		}, map[string]int{H2OrphanEffect: 1, H5UnauthorizedEffect: 1, H8EffectDespiteCrash: 1}, []string{CauseLostAtCrash}, []int{5, 3, 2, 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Check(c.build().history())
			assert.Equal(t, c.want, counts(v))
			var first *Violation
			for i := range v.Violations {
				if v.Violations[i].Invariant == c.inv {
					first = &v.Violations[i]
					break
				}
			}
			require.NotNil(t, first)
			assert.Equal(t, c.ops, first.Ops)
			for _, cause := range c.causes {
				assert.True(t, first.Has(cause), "causes %v, want %s", first.Causes, cause)
			}
			assert.Len(t, first.Src, len(first.Ops))
		})
	}
}

// Where the history cannot say who an operation belongs to, or in which
// order two operations happened, the checker declines and counts it.
func TestDeclines(t *testing.T) {
	cases := []struct {
		name   string
		build  func() *b
		reason string
		inv    string
	}{
		{"an undeclared effect's work item is unknown", func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").escalate(2, "s1", "w-m1").send(3, "e1", "ghost")
		}, ReasonUnknownWork, H4EffectAfterCancellation},
		{"an agent died but the work has no claims", func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").death(2, "s1", "agent-1").resolve(2, "w-m1", "abandoned", "no_agent")
		}, ReasonUnknownOwner, H6FalseSuppression},
		{"a resolution and a send of one tick without a run log", func() *b {
			// Without a log the audit line comes before the outbox line
			// of its tick, but that order is not known.
			x := newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
				approve(3, "ap1", "d1", "h1", "approve", ForgedNo).resolve(3, "w-m1", "completed", "sent").send(3, "e1", "d1")
			x.files = true
			return x
		}, ReasonOrder, H4EffectAfterCancellation},
		{"a crash placed roughly in the tick of an abandonment", func() *b {
			return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").resolve(2, "w-m1", "abandoned", "restart").crash(2, true)
		}, ReasonCrashPlace, H6FalseSuppression},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Check(c.build().history())
			require.NotEmpty(t, v.Declined)
			found := false
			for _, d := range v.Declined {
				found = found || d.Reason == c.reason && d.Invariant == c.inv
			}
			assert.True(t, found, "declines %+v", v.Declined)
			assert.Positive(t, v.DeclinedCounts[c.reason])
			assert.Zero(t, v.Counts[c.inv], "a declined question is not a violation")
		})
	}
}

// Causes that excuse an abandonment: escalation, a valid reject, the death
// of a claimant, a crash while pending.
func TestAbandonmentWithACause(t *testing.T) {
	base := func() *b {
		return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").claim(1, "w-m1", "agent-1", "won").draft(1, "d1", "w-m1", "h1")
	}
	for name, x := range map[string]*b{
		"escalation": base().escalate(2, "s1", "w-m1").resolve(2, "w-m1", "abandoned", "operator_escalation"),
		"reject":     base().approve(2, "ap1", "d1", "h1", "reject", ForgedNo).resolve(2, "w-m1", "abandoned", "rejected"),
		"death":      base().death(2, "s1", "agent-1").resolve(2, "w-m1", "abandoned", "no_agent"),
		"crash":      base().crash(2, false).resolve(3, "w-m1", "abandoned", "crashed"),
	} {
		v := Check(x.history())
		assert.Zero(t, v.Counts[H6FalseSuppression], name)
	}
	// A forged reject is no cause.
	v := Check(base().approve(2, "f1", "d1", "bad", "reject", ForgedHashMismatch).resolve(2, "w-m1", "abandoned", "rejected").history())
	assert.Equal(t, 1, v.Counts[H6FalseSuppression])
}

// Escalating a work item that was never admitted is ignored (SPEC-NOTES).
func TestEscalationOfUnadmittedWorkIsIgnored(t *testing.T) {
	v := Check(newB().draft(1, "d1", "w-x", "h1").approve(2, "ap1", "d1", "h1", "approve", ForgedNo).
		escalate(2, "s1", "w-x").send(2, "e1", "d1").history())
	assert.Zero(t, v.Count(H4EffectAfterCancellation, CauseEscalation))
}

func TestCountFiltersByCause(t *testing.T) {
	v := Check(newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1").
		approve(3, "ap1", "d1", "h1", "approve", ForgedNo).escalate(3, "s1", "w-m1").send(3, "e1", "d1").history())
	assert.Equal(t, 1, v.Count(H4EffectAfterCancellation, ""))
	assert.Equal(t, 1, v.Count(H4EffectAfterCancellation, CauseEscalation))
	assert.Zero(t, v.Count(H11SendAfterRejection, ""))
}

func TestCatalogue(t *testing.T) {
	inv := Invariants()
	require.Len(t, inv, 11)
	for i, x := range inv {
		assert.Regexp(t, fmt.Sprintf(`^H%d\.[a-z]+(-[a-z]+)*$`, i+1), x.ID)
		assert.NotEmpty(t, x.Summary)
	}
}

// A fork of a message's work is that work under a second id: the operator
// took it over with the escalated item, so its send after the escalation is
// one too (D49). Sent before, or for another message, it is not.
func TestForkSendAfterEscalation(t *testing.T) {
	forked := func() *b {
		return newB().deliver(1, "m1", "c1").admit(1, "w1", "m1").draft(1, "d1", "w1", "h1").
			admit(2, "w2", "m1").draft(2, "d2", "w2", "h1")
	}
	cases := []struct {
		name string
		h    *b
		want int
	}{
		{"fork sends after", forked().escalate(3, "s1", "w1").resolve(3, "w1", "abandoned", "operator_escalation").
			approve(4, "ap1", "d2", "h1", "approve", ForgedNo).send(5, "e2", "d2"), 1},
		{"both escalated, one send", forked().escalate(3, "s1", "w1").escalate(4, "s2", "w2").
			approve(4, "ap1", "d2", "h1", "approve", ForgedNo).send(5, "e2", "d2"), 1},
		{"fork sends before", forked().approve(2, "ap1", "d2", "h1", "approve", ForgedNo).send(2, "e2", "d2").
			resolve(2, "w2", "completed", "sent").escalate(3, "s1", "w1"), 0},
		{"another message's work sends after", newB().deliver(1, "m1", "c1").admit(1, "w1", "m1").draft(1, "d1", "w1", "h1").
			deliver(2, "m2", "c2").admit(2, "w2", "m2").draft(2, "d2", "w2", "h2").escalate(3, "s1", "w1").
			approve(4, "ap1", "d2", "h2", "approve", ForgedNo).send(5, "e2", "d2"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Check(c.h.history())
			assert.Equal(t, c.want, v.Count(H4EffectAfterCancellation, CauseEscalation))
		})
	}
	v := Check(cases[0].h.history())
	for _, x := range v.Violations {
		if x.Invariant == H4EffectAfterCancellation {
			assert.Equal(t, "w2", x.WorkID)
		}
	}
}

// D135: a draft first declared after an escalation naming its work item is
// H10; one declared before it, or for a never-admitted item, is not.
func TestDraftAfterEscalation(t *testing.T) {
	base := func() *b {
		return newB().deliver(1, "m1", "c1").admit(1, "w-m1", "m1").draft(1, "d1", "w-m1", "h1")
	}
	before := base().escalate(3, "s1", "w-m1").resolve(3, "w-m1", "abandoned", "operator_escalation")
	assert.Zero(t, Check(before.history()).Counts[H10DraftAfterEscalation])

	after := base().escalate(3, "s1", "w-m1").draft(4, "d2", "w-m1", "h2").resolve(4, "w-m1", "abandoned", "operator_escalation")
	v := Check(after.history())
	require.Equal(t, 1, v.Counts[H10DraftAfterEscalation])
	for _, x := range v.Violations {
		if x.Invariant == H10DraftAfterEscalation {
			assert.Equal(t, "d2", x.DraftID)
			assert.Equal(t, "w-m1", x.WorkID)
			assert.Len(t, x.Ops, 2)
		}
	}

	again := base().escalate(3, "s1", "w-m1").draft(4, "d1", "w-m1", "h1")
	assert.Zero(t, Check(again.history()).Counts[H10DraftAfterEscalation], "a second declaration is not a new draft")

	unadmitted := newB().escalate(2, "s1", "w-x").draft(3, "d1", "w-x", "h1")
	assert.Zero(t, Check(unadmitted.history()).Counts[H10DraftAfterEscalation])
}

// The fork of an escalated item is the same work (D49): its draft after the
// escalation is H10 too.
func TestForkDraftAfterEscalation(t *testing.T) {
	x := newB().deliver(1, "m1", "c1").admit(1, "w1", "m1").admit(2, "w2", "m1").
		escalate(3, "s1", "w1").draft(4, "d2", "w2", "h2")
	assert.Equal(t, 1, Check(x.history()).Counts[H10DraftAfterEscalation])
}
