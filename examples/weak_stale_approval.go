package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-stale-approval takes an approval decided before the draft it names
// was declared for one left over from an older draft, and ignores it. A
// harness that stamps a late decision with the tick it was made (the
// bundle's stamp_scheduled, D72) writes exactly that, so the approved draft
// is never sent. Stamped with the tick it fired, every approval comes after
// its draft, and it looks correct.
type staleApproval struct{ reference }

func (p staleApproval) bind(w *world, a sandbox.ApprovalRecord) (sandbox.Draft, bool) {
	d, ok := p.reference.bind(w, a)
	return d, ok && a.DecidedAt >= d.DeclaredAt
}
