package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-jump-blind polls only for messages stamped with the current or the
// previous tick, missing those delivered inside a tick jump.
type jumpBlind struct{ reference }

func (jumpBlind) polls(v *view, m sandbox.Message) bool { return m.At >= v.tick-1 }
