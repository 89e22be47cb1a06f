package faults

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
)

// staleApprovals gives some approved messages a genuine decision on a
// superseded draft (spec §2: "a draft that changes by one word is a new
// draft and needs a new approval"). The owner of the message's work dies a
// tick or three after the message, so a fleet of two or more re-drafts under
// a new owner; the approval of the previous draft, with its real hash, comes
// then, and the message's own approval, which binds the latest draft, no
// earlier. A system that matches approvals by work item, not by draft id and
// hash, sends the new draft on the old draft's approval.
func (g *generator) staleApprovals() {
	if !g.on(StaleApproval) || len(g.agents) < 2 {
		return
	}
	var extra []scenarios.Approval
	for i := range g.apps {
		a := &g.apps[i]
		if a.Forge != "" || a.Stale() || a.Decision != scenarios.DecisionApprove || !g.d.chance(g.rate(StaleApproval)/2) {
			continue
		}
		m := g.message(a.Match.MessageID)
		if m == nil {
			continue
		}
		death := m.at + g.d.between(1, 3)
		stale := death + g.d.between(0, 2)
		g.delay(a, max(a.At, stale+g.d.between(0, 3)))
		g.decided[m.id] = a.At
		n := len(extra) + 1
		g.sigs = append(g.sigs, scenarios.Signal{ID: fmt.Sprintf("sd%d", n), At: death, Type: scenarios.AgentDeath,
			Target: scenarios.Match{MessageID: m.id}})
		extra = append(extra, scenarios.Approval{ID: fmt.Sprintf("sa%d", n), At: stale, Match: a.Match,
			Decision: scenarios.DecisionApprove, Binds: scenarios.BindsPrevious})
	}
	g.apps = append(g.apps, extra...)
}

// redecisions gives some decided messages a second, opposite decision: a
// rejection followed by an approval (the rejection must stay final) or an
// approval followed by a rejection, 0 to 6 ticks apart. budgetEdges puts a
// crash between the two now and then.
func (g *generator) redecisions() {
	if !g.on(Redecide) {
		return
	}
	var extra []scenarios.Approval
	for i := range g.apps {
		a := &g.apps[i]
		if a.Forge != "" || a.Stale() || !g.d.chance(g.rate(Redecide)/2) {
			continue
		}
		if a.Decision == scenarios.DecisionApprove && g.d.chance(500) {
			a.Decision = scenarios.DecisionReject
		}
		second := scenarios.DecisionReject
		if a.Decision == scenarios.DecisionReject {
			second = scenarios.DecisionApprove
		}
		extra = append(extra, scenarios.Approval{ID: fmt.Sprintf("rd%d", len(extra)+1), At: a.At + g.d.between(0, 6),
			Match: a.Match, Decision: second})
	}
	g.apps = append(g.apps, extra...)
}

// delay moves an approval to a later tick, and its redeliveries with it.
func (g *generator) delay(a *scenarios.Approval, at int) {
	by := at - a.At
	a.At = at
	for i := range g.faults {
		if f := &g.faults[i]; f.Kind == scenarios.FaultRedeliver && f.ApprovalID == a.ID {
			f.At += by
		}
	}
}

func (g *generator) message(id string) *message {
	for _, m := range g.msgs {
		if m.id == id {
			return m
		}
	}
	return nil
}
