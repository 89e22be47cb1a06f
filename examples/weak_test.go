package examples

import (
	"fmt"
	"strings"
	"testing"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// weakCase is the situation a defect targets, and how its files show it.
type weakCase struct {
	fleet []string
	rules []scenarios.Rule
	run   func(h *harness)
	shows func(h *harness) bool
}

func withOrder(more func(h *harness)) func(h *harness) {
	return func(h *harness) {
		h.at(1, order("m1", "c1", "a@x", "ORD-1"))
		more(h)
	}
}

func approvedLater(h *harness) {
	h.at(3, approve("ap1", "m1", "approve"))
	h.idle(30)
}

func unresolved(h *harness, work string) bool {
	return len(h.events(sandbox.EventResolution, work)) == 0
}

func hasProblem(h *harness, substr string) bool {
	for _, p := range h.safetyProblems() {
		if strings.Contains(p, substr) {
			return true
		}
	}
	return false
}

// reclaimGap is how many ticks the work item's second contest (a claimed
// record after its first won) took to be won; 1000 when it never was.
func reclaimGap(h *harness, work string) int {
	won, claimedAt := false, -1
	for _, r := range h.events(sandbox.EventClaim, work) {
		switch {
		case r.Outcome == sandbox.ClaimWon && claimedAt >= 0:
			return r.At - claimedAt
		case r.Outcome == sandbox.ClaimWon:
			won = true
		case r.Outcome == sandbox.ClaimClaimed && won && claimedAt < 0:
			claimedAt = r.At
		}
	}
	if claimedAt >= 0 {
		return 1000
	}
	return 0
}

var weakCases = map[string]weakCase{
	"weak-no-send": {
		run:   withOrder(approvedLater),
		shows: func(h *harness) bool { return len(h.outbox()) == 0 && unresolved(h, "w-m1") },
	},
	"weak-undeclared-send": {
		run:   withOrder(approvedLater),
		shows: func(h *harness) bool { return hasProblem(h, "undeclared draft") },
	},
	"weak-memory-pending": {
		run: withOrder(func(h *harness) {
			h.atCrash(3, 1, approve("ap1", "m1", "approve"))
			h.idle(30)
		}),
		shows: func(h *harness) bool { return len(h.outbox()) == 0 && unresolved(h, "w-m1") },
	},
	"weak-context-stuffing": {
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.at(2, order("m2", "c2", "a@x", "ORD-2"))
		},
		shows: func(h *harness) bool {
			d, ok := h.latestDraft("m2")
			return ok && strings.Contains(d.Body, "ORD-1")
		},
	},
	"weak-fork-on-duplicate": {
		run:   withOrder(func(h *harness) { h.at(2, duplicate("m1")) }),
		shows: func(h *harness) bool { return hasProblem(h, "admitted twice") },
	},
	"weak-ignore-posture": {
		rules: append(supportRules(), scenarios.Rule{ID: "gate",
			When: scenarios.Conditions{Posture: strp("vip-only")}, Overrides: []string{"support"}}),
		run: func(h *harness) {
			h.at(1, posture("vip-only"), order("m1", "c1", "a@x", "ORD-1"))
		},
		shows: func(h *harness) bool { return h.workFor("m1") != "" },
	},
	"weak-trust-any-approval": {
		run:   withOrder(func(h *harness) { h.at(3, forge("f1", "m1", false)) }),
		shows: func(h *harness) bool { return hasProblem(h, "without a binding approval") },
	},
	"weak-send-per-approval": {
		run: withOrder(func(h *harness) {
			h.at(3, approve("ap1", "m1", "approve"))
			h.at(4, redeliver("ap1"))
		}),
		shows: func(h *harness) bool { return h.sends("w-m1") > 1 },
	},
	"weak-drop-dead-agent-work": {
		fleet: []string{"agent-1", "agent-2"},
		run: withOrder(func(h *harness) {
			h.at(2, killOwner("s1", "m1"))
			h.idle(8)
		}),
		shows: func(h *harness) bool {
			trail := claimTrail(h, "w-m1")
			return !strings.Contains(trail[len(trail)-1], reasonReassigned) && unresolved(h, "w-m1")
		},
	},
	"weak-no-stand-down": {
		fleet: []string{"agent-1", "agent-2", "agent-3"},
		run:   withOrder(func(h *harness) {}),
		shows: func(h *harness) bool { return hasProblem(h, "never stood down") },
	},
	"weak-stale-state": {
		run:   func(h *harness) { h.at(0).at(1, order("m1", "c1", "a@x", "ORD-1")) },
		shows: func(h *harness) bool { return hasProblem(h, "state has 0 work items") },
	},
	"weak-ignore-escalation": {
		run: withOrder(func(h *harness) {
			h.at(3, escalate("s1", "m1"))
			h.at(6, approve("ap1", "m1", "approve"))
		}),
		shows: func(h *harness) bool { return hasProblem(h, "sent after its escalation") },
	},
	"weak-subject-keyed": {
		run: func(h *harness) {
			h.at(1, deliver("m1", "c1", "a@x", "Order arrived damaged", "ORD-1 broken"))
			h.at(2, deliver("m2", "c2", "b@x", "Order arrived damaged", "ORD-2 broken"))
		},
		shows: func(h *harness) bool { return h.workFor("m2") == h.workFor("m1") },
	},
	"weak-thread-keyed": {
		run: withOrder(func(h *harness) {
			h.at(3, approve("ap1", "m1", "approve"))
			h.idle(50)
			h.at(60, deliver("m2", "c1", "a@x", "Re: Order ORD-1", "Any news?"))
			h.idle(80)
		}),
		shows: func(h *harness) bool { return h.workFor("m2") == h.workFor("m1") && len(h.outbox()) == 1 },
	},
	"weak-slow-reclaim": {
		fleet: []string{"agent-1", "agent-2", "agent-3"},
		run: withOrder(func(h *harness) {
			h.at(2, killOwner("s1", "m1"))
			h.idle(20)
		}),
		shows: func(h *harness) bool { return reclaimGap(h, "w-m1") > 5 },
	},
	"weak-escalate-all": {
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"), order("m2", "c2", "b@x", "ORD-2"))
			h.at(3, escalate("s1", "m1"))
			h.idle(10)
		},
		shows: func(h *harness) bool { return unresolved(h, "w-m2") == false && h.sends("w-m2") == 0 },
	},
	"weak-escalate-before-approval-only": {
		run: withOrder(func(h *harness) {
			h.at(3, approve("ap1", "m1", "approve"), escalate("s1", "m1"))
		}),
		shows: func(h *harness) bool { return hasProblem(h, "sent after its escalation") },
	},
	"weak-silent-abandon": {
		run: withOrder(func(h *harness) {
			h.at(3, escalate("s1", "m1"))
			h.at(5, approve("ap1", "m1", "approve"))
			h.idle(30)
		}),
		shows: func(h *harness) bool { return unresolved(h, "w-m1") && len(h.outbox()) == 0 },
	},
	"weak-send-without-approval": {
		run:   withOrder(func(h *harness) {}),
		shows: func(h *harness) bool { return hasProblem(h, "without a binding approval") },
	},
	"weak-cite-forged": {
		run:   withOrder(func(h *harness) { h.at(3, forge("f1", "m1", true)) }),
		shows: func(h *harness) bool { return hasProblem(h, "cites forged approval f1") },
	},
	"weak-rules-once": {
		rules: []scenarios.Rule{{ID: "none", Admit: true, When: scenarios.Conditions{FromIn: &[]string{"vip@x"}}}},
		run: func(h *harness) {
			h.at(1, order("m1", "c1", "a@x", "ORD-1"))
			h.setRules(supportRules())
			h.at(2, order("m2", "c2", "b@x", "ORD-2"))
		},
		shows: func(h *harness) bool { return h.workFor("m2") == "" },
	},
	"weak-send-before-record": {
		run: withOrder(func(h *harness) {
			// Writes at the approval tick: acceptance, send, resolution.
			h.atCrash(3, 2, approve("ap1", "m1", "approve"))
		}),
		shows: func(h *harness) bool { return h.sends("w-m1") > 1 },
	},
	"weak-jump-blind": {
		run: func(h *harness) {
			h.at(1)
			// The clock jumps from 1 to 10; a message stamped 5 lands now.
			h.at(10, func(h *harness) {
				h.appendLine(sandbox.Inbox, sandbox.Message{ID: "m1", ConversationID: "c1", From: "a@x",
					Subject: "Order ORD-1", Body: "Where is it?", At: 5})
			})
		},
		shows: func(h *harness) bool { return h.workFor("m1") == "" },
	},
	"weak-unsend": {
		run:   withOrder(approvedLater),
		shows: func(h *harness) bool { return len(h.taken) > 0 && len(h.outbox()) == 1 },
	},
	"weak-no-agents": {
		fleet: []string{"agent-1", "agent-2"},
		run:   withOrder(approvedLater),
		shows: func(h *harness) bool {
			st := h.state()
			named := len(st.Agents) > 0 || len(st.Assignments) > 0
			for _, w := range st.WorkItems {
				named = named || w.AssignedAgent != nil
			}
			return !named && len(h.events(sandbox.EventClaim, "w-m1")) == 0 && h.sends("w-m1") == 1
		},
	},
	"weak-redraft-every-tick": {
		// A quiet tick passes between the draft and the approval.
		run:   withOrder(func(h *harness) { h.at(2); approvedLater(h) }),
		shows: func(h *harness) bool { return h.draftsOf("w-m1") > 1 },
	},
}

// draftsOf counts the drafts declared for a work item.
func (h *harness) draftsOf(work string) int {
	n := 0
	for _, d := range h.drafts() {
		if d.WorkID == work {
			n++
		}
	}
	return n
}

func TestWeakDefectsShow(t *testing.T) {
	for _, im := range All() {
		if im.Kind != KindWeak {
			continue
		}
		t.Run(im.Name, func(t *testing.T) {
			c, ok := weakCases[im.Name]
			require.True(t, ok, "no test case for %s", im.Name)
			fleet := c.fleet
			if fleet == nil {
				fleet = []string{"agent-1"}
			}
			rules := c.rules
			if rules == nil {
				rules = supportRules()
			}
			weak := newHarness(t, im.New, fleet, rules)
			c.run(weak)
			assert.True(t, c.shows(weak), "the defect does not show in the weak implementation's files")

			ref := newHarness(t, Reference(), fleet, rules)
			c.run(ref)
			assert.False(t, c.shows(ref), "the reference shows the defect")
			requireSafe(t, ref)
		})
	}
}

func TestRegistry(t *testing.T) {
	all := All()
	require.NotEmpty(t, all)
	assert.Equal(t, ReferenceName, all[0].Name)
	assert.Equal(t, KindReference, all[0].Kind)
	assert.Empty(t, all[0].Targets)

	seen := map[string]bool{}
	policies := map[string]bool{}
	for i, im := range all {
		assert.False(t, seen[im.Name], "duplicate name %s", im.Name)
		seen[im.Name] = true
		assert.NotEmpty(t, im.Description, im.Name)
		require.NotNil(t, im.New, im.Name)
		r, ok := im.New().(*responder)
		require.True(t, ok)
		kind := fmt.Sprintf("%T", r.p)
		assert.False(t, policies[kind], "%s repeats the policy %s", im.Name, kind)
		policies[kind] = true
		if i == 0 {
			continue
		}
		assert.Equal(t, KindWeak, im.Kind)
		assert.True(t, strings.HasPrefix(im.Name, "weak-"), im.Name)
		assert.NotEmpty(t, im.Targets, im.Name)
		for _, id := range im.Targets {
			assert.Regexp(t, `^(L[0-6]|surprise)\.[a-z]+(-[a-z]+)*$`, id)
		}
		if i > 1 {
			assert.Less(t, all[i-1].Name, im.Name, "weak implementations are sorted by name")
		}
	}
	assert.Len(t, policies, len(zoo)+1, "every weak implementation has a policy of its own")
	_, isReference := all[0].New().(*responder).p.(*reference)
	assert.True(t, isReference, "the reference plays the reference policy")

	for _, im := range all {
		got, ok := Lookup(im.Name)
		require.True(t, ok)
		assert.Equal(t, im.Name, got.Name)
	}
	_, ok := Lookup("no-such")
	assert.False(t, ok)
}

func TestRegistryScenariosArePublished(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, p := range published {
		names[p.Name] = true
	}
	for _, im := range All() {
		if im.Scenario != "" {
			assert.True(t, names[im.Scenario], "%s names unpublished scenario %s", im.Name, im.Scenario)
		}
	}
}
