package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-memory-pending keeps an accepted approval's send only in memory and
// sends it a tick later. A crash in between forgets it, and since the
// approval is already recorded as accepted, nobody sends the reply.
type memoryPending struct {
	reference
	pending []pendingSend
}

// pendingSend is an accepted send waiting for a later tick.
type pendingSend struct {
	workID  string
	draftID string
	tick    int
}

// settles is false while a send waits: the next tick has work to do even
// when no file changed.
func (p *memoryPending) settles() bool { return len(p.pending) == 0 }

// accept queues the send in memory once the acceptance is written.
func (p *memoryPending) accept(w *world, wk *work, d sandbox.Draft, dec decision) *write {
	next := p.reference.accept(w, wk, d, dec)
	tick := w.v.tick
	next.done = func() {
		p.pending = append(p.pending, pendingSend{workID: wk.id, draftID: d.DraftID, tick: tick})
	}
	return next
}

// send is left to the queue.
func (p *memoryPending) send(*world, *work, sandbox.Draft) *write { return nil }

// early sends what was accepted at an earlier tick.
func (p *memoryPending) early(w *world) *write {
	for len(p.pending) > 0 {
		q := p.pending[0]
		if q.tick >= w.v.tick {
			return nil
		}
		p.pending = p.pending[1:]
		wk, ok := w.byID[q.workID]
		if !ok || wk.resolved || wk.effects > 0 || !w.ownerAlive(wk) {
			continue
		}
		if d, ok := w.drafts[q.draftID]; ok {
			return p.reference.send(w, wk, d)
		}
	}
	return nil
}
