package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-slow-reclaim takes a dead agent's work over the way a lease-based
// scheduler does: the new agent claims the item at once, but the claim is
// won only when the dead agent's lease would have run out. Until then the
// item has no owner, nobody drafts for it, and the contest stays open for
// longer than the 5 ticks the spec gives concurrent claims.
type slowReclaim struct{ reference }

// settles is false: a lease runs out with the tick, not with the files.
func (slowReclaim) settles() bool { return false }

func (slowReclaim) takeOver(w *world, wk *work) *write {
	if len(w.alive) == 0 {
		return w.resolve(wk, sandbox.OutcomeAbandoned, reasonNoAgent)
	}
	return w.reclaimSlowly(wk, w.reassignee(wk))
}

// leaseTicks is the lease weak-slow-reclaim waits out.
const leaseTicks = 8

// reclaimSlowly returns the next write of the takeover: the claim, then,
// once the lease is out, the win; nil while the lease runs.
func (w *world) reclaimSlowly(wk *work, agent string) *write {
	at, claimed := claimedAt(w.v.audit, wk.id, agent)
	if !claimed || wk.last(agent) != sandbox.ClaimClaimed {
		return w.claim(wk, agent, sandbox.ClaimClaimed, reasonContest)
	}
	if w.v.tick < at+leaseTicks {
		return nil
	}
	return w.claim(wk, agent, sandbox.ClaimWon, reasonReassigned)
}

// claimedAt returns the tick of an agent's latest claimed record on a work
// item.
func claimedAt(audit []auditRec, workID, agent string) (int, bool) {
	at, ok := 0, false
	for _, r := range audit {
		if r.event == sandbox.EventClaim && r.workID == workID && r.agentID == agent && r.outcome == sandbox.ClaimClaimed {
			at, ok = r.at, true
		}
	}
	return at, ok
}
