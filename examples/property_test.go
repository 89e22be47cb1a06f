package examples

import (
	"fmt"
	"testing"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// plannedTick is one tick of a generated timeline.
type plannedTick struct {
	tick     int
	crash    int  // 0 none, -1 at the boundary, k after the k-th write
	stayDown bool // the crashed instance restarts only at the next tick
	events   []func(*harness)
}

// The generated events tolerate a world where what they name does not exist
// yet, as the engine defers them.

func tryApprove(id, msg, decision string) func(*harness) {
	return func(h *harness) {
		if _, ok := h.latestDraft(msg); ok {
			approve(id, msg, decision)(h)
		}
	}
}

func tryForge(id, msg string, dangling bool) func(*harness) {
	return func(h *harness) {
		if _, ok := h.latestDraft(msg); ok {
			forge(id, msg, dangling)(h)
		}
	}
}

func tryRedeliver(id string) func(*harness) {
	return func(h *harness) {
		if _, ok := h.fired[id]; ok {
			redeliver(id)(h)
		}
	}
}

func tryEscalate(id, msg string) func(*harness) {
	return func(h *harness) {
		if h.workFor(msg) != "" {
			escalate(id, msg)(h)
		}
	}
}

func tryKillOwner(id, msg string) func(*harness) {
	return func(h *harness) {
		if h.assigned(h.workFor(msg)) != "" {
			killOwner(id, msg)(h)
		}
	}
}

func propertyRules() []scenarios.Rule {
	return append(supportRules(),
		scenarios.Rule{ID: "vip", Admit: true, When: scenarios.Conditions{FromIn: &[]string{"vip@x"}}},
		scenarios.Rule{ID: "gate", When: scenarios.Conditions{Posture: strp("vip-only")}, Overrides: []string{"support"}})
}

var propertyFleet = []string{"agent-1", "agent-2", "agent-3"}

// drawTimeline draws a timeline of deliveries and faults.
func drawTimeline(t *rapid.T) (fleet []string, plan []plannedTick) {
	fleet = propertyFleet[:rapid.IntRange(1, 3).Draw(t, "fleet")]
	senders := []string{"a@x", "a@x", "b@x", "vip@x"}
	var delivered []string
	approvals, signals := 0, 0
	pick := func(label string) string {
		return delivered[rapid.IntRange(0, len(delivered)-1).Draw(t, label)]
	}
	ticks := rapid.IntRange(3, 25).Draw(t, "ticks")
	for tick := 1; tick <= ticks; tick++ {
		p := plannedTick{tick: tick}
		for n := rapid.IntRange(0, 3).Draw(t, "events"); n > 0; n-- {
			kind := rapid.IntRange(0, 9).Draw(t, "kind")
			if len(delivered) == 0 {
				kind = 0
			}
			switch kind {
			case 0, 1:
				id := fmt.Sprintf("m%d", len(delivered)+1)
				c := rapid.IntRange(1, 4).Draw(t, "conversation")
				subject := fmt.Sprintf("Order ORD-%d", c)
				if rapid.Bool().Draw(t, "off-topic") {
					subject = "Hello"
				}
				p.events = append(p.events, deliver(id, fmt.Sprintf("c%d", c), senders[c-1], subject, "About ORD-"+fmt.Sprint(c)))
				delivered = append(delivered, id)
			case 2:
				p.events = append(p.events, duplicate(pick("dup")))
			case 3, 4:
				approvals++
				decision := "approve"
				if rapid.IntRange(0, 5).Draw(t, "reject") == 0 {
					decision = "reject"
				}
				p.events = append(p.events, tryApprove(fmt.Sprintf("ap%d", approvals), pick("approve"), decision))
			case 5:
				approvals++
				p.events = append(p.events, tryForge(fmt.Sprintf("f%d", approvals), pick("forge"), rapid.Bool().Draw(t, "dangling")))
			case 6:
				if approvals > 0 {
					p.events = append(p.events, tryRedeliver(fmt.Sprintf("ap%d", rapid.IntRange(1, approvals).Draw(t, "redeliver"))))
				}
			case 7:
				signals++
				p.events = append(p.events, tryEscalate(fmt.Sprintf("s%d", signals), pick("escalate")))
			case 8:
				signals++
				p.events = append(p.events, tryKillOwner(fmt.Sprintf("s%d", signals), pick("kill")))
			case 9:
				p.events = append(p.events, posture(rapid.SampledFrom([]string{"normal", "vip-only", "maintenance"}).Draw(t, "posture")))
			}
		}
		if rapid.IntRange(0, 3).Draw(t, "crash?") == 0 {
			p.crash = rapid.IntRange(-1, 8).Draw(t, "crash")
			p.stayDown = p.crash > 0 && rapid.Bool().Draw(t, "stay down")
		}
		plan = append(plan, p)
	}
	return fleet, plan
}

// play runs a timeline, then a tail that approves everything still open.
func play(t tb, fleet []string, plan []plannedTick) *harness {
	h := newHarness(t, Reference(), fleet, propertyRules())
	for _, p := range plan {
		if p.stayDown {
			h.atCrashStop(p.tick, p.crash, p.events...)
		} else {
			h.atCrash(p.tick, p.crash, p.events...)
		}
	}
	end := h.tick
	h.idle(end + 2)
	var tail []func(*harness)
	for _, w := range h.state().WorkItems {
		if w.Status != sandbox.OutcomeCompleted && w.Status != sandbox.OutcomeAbandoned {
			for _, r := range h.audit() {
				if r.Event == sandbox.EventAdmission && r.WorkID == w.WorkID {
					tail = append(tail, tryApprove("tail-"+w.WorkID, r.MessageID, "approve"))
				}
			}
		}
	}
	h.at(end+3, tail...)
	h.idle(end + 8)
	return h
}

func TestReferenceUnderRandomFaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fleet, plan := drawTimeline(t)
		h := play(t, fleet, plan)
		require.Empty(t, h.errs, "step errors")
		require.Zero(t, h.forced, "forced advances")
		require.Empty(t, h.safetyProblems())
		for _, w := range h.state().WorkItems {
			require.Contains(t, []string{sandbox.OutcomeCompleted, sandbox.OutcomeAbandoned}, w.Status,
				"work %s never ended", w.WorkID)
			require.Len(t, h.events(sandbox.EventResolution, w.WorkID), 1, w.WorkID)
		}
		again := play(t, fleet, plan)
		require.Equal(t, h.files(), again.files(), "same timeline, different files")
	})
}

// drawLine draws one line for a sandbox file: a well-formed record with
// colliding ids, an object of the wrong shape, or bytes that are not JSON.
func drawLine(t *rapid.T, file string) []byte {
	ids := rapid.SampledFrom([]string{"m1", "m2", "w-m1", "w-m2", "d-m1.agent-1", "agent-1", "agent-9", "", "ap1"})
	switch rapid.IntRange(0, 3).Draw(t, "shape") {
	case 0:
		return rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "garbage")
	case 1:
		return []byte(`{"event":"claim","at":-1,"work_id":7}`)
	}
	var rec any
	switch file {
	case sandbox.Inbox:
		rec = sandbox.Message{ID: ids.Draw(t, "id"), ConversationID: ids.Draw(t, "c"), From: ids.Draw(t, "f"),
			Subject: "Order ORD-1", At: 1}
	case sandbox.Approvals:
		rec = sandbox.ApprovalRecord{ApprovalID: ids.Draw(t, "a"), DraftID: ids.Draw(t, "d"), ContentHash: "sha256:x",
			Decision: rapid.SampledFrom([]string{"approve", "reject", "maybe"}).Draw(t, "decision")}
	case sandbox.Signals:
		rec = sandbox.SignalRecord{SignalID: "s", SignalType: rapid.SampledFrom([]string{"AGENT_DEATH", "OPERATOR_ESCALATION", "X"}).Draw(t, "type"),
			Target: ids.Draw(t, "target")}
	case sandbox.Drafts:
		rec = sandbox.Draft{DraftID: ids.Draw(t, "d"), WorkID: ids.Draw(t, "w"), ConversationID: "c1", ContentHash: "sha256:x",
			Origin: sandbox.Origin{ModelFree: true}}
	case sandbox.Outbox:
		rec = sandbox.Effect{EffectID: "e-" + ids.Draw(t, "e"), DraftID: ids.Draw(t, "d")}
	default:
		rec = map[string]any{"event": rapid.SampledFrom([]string{"admission", "claim", "resolution", "declined", "approval_ignored", "approval_accepted"}).Draw(t, "event"),
			"at": 1, "work_id": ids.Draw(t, "w"), "message_id": ids.Draw(t, "m"), "rules_hash": "h", "agent_id": ids.Draw(t, "a"),
			"outcome": rapid.SampledFrom([]string{"claimed", "won", "stood_down", "completed", "abandoned"}).Draw(t, "outcome"),
			"reason":  nil, "approval_id": ids.Draw(t, "ap"), "draft_id": ids.Draw(t, "d")}
	}
	line, err := sandbox.MarshalLine(rec)
	require.NoError(t, err)
	return line
}

func TestNoInputMakesAnImplementationPanic(t *testing.T) {
	logs := []string{sandbox.Inbox, sandbox.Approvals, sandbox.Signals, sandbox.Drafts, sandbox.Outbox, sandbox.Audit}
	wholes := []string{sandbox.Mode, sandbox.Rules, sandbox.Fleet, sandbox.State, sandbox.Clock}
	all := All()
	rapid.Check(t, func(t *rapid.T) {
		mem := sandbox.NewMemory()
		for _, name := range logs {
			for n := rapid.IntRange(0, 6).Draw(t, "lines"); n > 0; n-- {
				require.NoError(t, mem.Append(name, drawLine(t, name)))
			}
		}
		for _, name := range wholes {
			data := rapid.SampledFrom([][]byte{nil, []byte("{}"), []byte("[]"), []byte("null"), []byte("{\"tick\":3}"),
				[]byte(`{"posture":"vip-only"}`), []byte(`{"agents":["agent-1","agent-1",""]}`), scenarios.RulesBytes(propertyRules()),
				[]byte(`[{"id":"x","admit":true,"when":{"weird":1}}]`)}).Draw(t, name)
			require.NoError(t, mem.Write(name, data))
		}
		im := all[rapid.IntRange(0, len(all)-1).Draw(t, "impl")]
		env := &sandbox.Env{Files: mem, Model: &fakeModel{}, Seed: 3}
		impl := im.New()
		for i := 0; i < 3; i++ {
			_ = impl.Step(env) // errors are fine; panics and hangs are not
		}
	})
}
