package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-send-before-record knows a reply was sent only from memory until its
// resolution record is written: a fresh instance after a crash between the
// send and the record does not see the outbox line and sends again.
type sendBeforeRecord struct {
	reference
	justSent map[string]bool
}

func (p *sendBeforeRecord) sent(_ *world, wk *work) bool { return p.justSent[wk.id] }

func (p *sendBeforeRecord) send(w *world, wk *work, d sandbox.Draft) *write {
	next := p.reference.send(w, wk, d)
	next.done = func() {
		if p.justSent == nil {
			p.justSent = map[string]bool{}
		}
		p.justSent[wk.id] = true
	}
	return next
}
