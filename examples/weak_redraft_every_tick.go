package examples

import "fmt"

// weak-redraft-every-tick declares a fresh draft, with a fresh model call,
// on every tick its work waits for approval.
type redraftEveryTick struct{ reference }

// settles is false: a quiet tick still asks for a new draft.
func (redraftEveryTick) settles() bool { return false }

func (p redraftEveryTick) nameDraft(w *world, wk *work) string {
	return fmt.Sprintf("%s~t%d", p.reference.nameDraft(w, wk), w.v.tick)
}
