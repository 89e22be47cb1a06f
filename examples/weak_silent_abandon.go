package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-silent-abandon stops all work on an escalated item but writes no
// resolution record for it.
type silentAbandon struct{ reference }

func (silentAbandon) escalation(*world, sandbox.SignalRecord) (*work, bool) { return nil, false }

func (silentAbandon) stopped(w *world, wk *work) bool { return w.escalated[wk.id] && !wk.resolved }
