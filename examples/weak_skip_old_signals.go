package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-skip-old-signals treats an OPERATOR_ESCALATION stamped before the
// instance started as stale, left over from an earlier run, and ignores
// it: a start-up filter against replaying history. After a downtime the
// escalations that fired while it was down are exactly those, so it goes on
// and sends work the operator took over. With an immediate restart every
// signal it reads is stamped at or after its start, and it looks correct.
type skipOldSignals struct {
	reference
	started int
	seen    bool
}

func (p *skipOldSignals) see(v *view, _ *caches) {
	if !p.seen {
		p.started, p.seen = v.tick, true
	}
}

func (p *skipOldSignals) escalation(w *world, s sandbox.SignalRecord) (*work, bool) {
	if s.At < p.started {
		return nil, false
	}
	return p.reference.escalation(w, s)
}
