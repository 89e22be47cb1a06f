package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-stale-state writes state.json once and never again.
type staleState struct{ reference }

func (p staleState) snapshot(w *world) (sandbox.Snapshot, bool) {
	if w.v.stateSeen {
		return sandbox.Snapshot{}, false
	}
	return p.reference.snapshot(w)
}
