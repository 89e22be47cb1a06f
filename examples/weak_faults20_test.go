package examples

import (
	"bytes"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// down moves the clock to tick with the implementation down: the events
// fire and nothing reads them; a fresh instance starts at the next tick
// (D70).
func (h *harness) down(tick int, events ...func(*harness)) *harness {
	h.t.Helper()
	h.tick = tick
	line, _ := sandbox.MarshalLine(sandbox.ClockFile{Tick: tick})
	h.put(sandbox.Clock, append(line, '\n'))
	for _, e := range events {
		e(h)
	}
	h.restart()
	return h
}

// tear leaves the first half of a line in a log, as a crash in the middle
// of a write does, and restarts the instance (D75).
func tear(file, line string) func(*harness) {
	return func(h *harness) {
		old := h.mem.View(file)
		n := bytes.Count(old, []byte("\n")) + 1
		h.put(file, append(append([]byte(nil), old...), line[:len(line)/2]...))
		if h.torn == nil {
			h.torn = map[string]map[int]string{}
		}
		if h.torn[file] == nil {
			h.torn[file] = map[int]string{}
		}
		h.torn[file][n] = line[:len(line)/2]
		h.restart()
	}
}

// staleApprove approves the latest draft with a decision stamped at tick 0,
// before the draft was declared, as stamp_scheduled writes a late one (D72).
func staleApprove(id, messageID string) func(*harness) {
	return func(h *harness) {
		d, ok := h.latestDraft(messageID)
		if !ok {
			h.t.Fatalf("no draft to approve for %s", messageID)
		}
		h.appendLine(sandbox.Approvals, sandbox.ApprovalRecord{ApprovalID: id, DraftID: d.DraftID,
			ContentHash: d.ContentHash, Decision: "approve", DecidedAt: 0})
	}
}

func init() {
	weakCases["weak-skip-old-signals"] = weakCase{
		run: withOrder(func(h *harness) {
			h.down(2, escalate("s1", "m1"))
			h.at(3, approve("ap1", "m1", "approve"))
			h.idle(20)
		}),
		shows: func(h *harness) bool { return h.sends("w-m1") > 0 },
	}
	weakCases["weak-stale-approval"] = weakCase{
		run: func(h *harness) {
			h.at(2, order("m1", "c1", "a@x", "ORD-1"))
			h.at(3, staleApprove("ap1", "m1"))
			h.idle(20)
		},
		shows: func(h *harness) bool { return len(h.outbox()) == 0 && unresolved(h, "w-m1") },
	}
	weakCases["weak-cite-failed-call"] = weakCase{
		run: func(h *harness) {
			h.model.fail = map[int]string{1: scenarios.ModelMalformed}
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.idle(5)
		},
		shows: func(h *harness) bool { return citesCall(h, "call-1") },
	}
	weakCases["weak-torn-glue"] = weakCase{
		run: withOrder(func(h *harness) {
			h.at(2, tear(sandbox.Audit, `{"event":"note","at":2,"detail":"a line cut in half by a crash"}`))
			h.at(3, approve("ap1", "m1", "approve"))
			h.idle(10)
		}),
		shows: func(h *harness) bool { return h.glued() },
	}
	weakCases["weak-count-duplicates"] = weakCase{
		rules: []scenarios.Rule{{ID: "short-thread", Admit: true,
			When: scenarios.Conditions{SubjectContains: ptrTo("order"), ThreadLengthMax: ptrTo(2)}}},
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.at(2, duplicate("m1"))
			h.at(3, deliver("m2", "c1", "a@x", "Re: Order ORD-1", "Any news?"))
			h.idle(10)
		},
		shows: func(h *harness) bool { return h.workFor("m2") == "" },
	}
}

func ptrTo[T any](v T) *T { return &v }

func citesCall(h *harness, id string) bool {
	for _, d := range h.drafts() {
		for _, c := range d.Origin.CallIDs {
			if c == id {
				return true
			}
		}
	}
	return false
}
