package examples

import (
	"fmt"

	"github.com/amr-bench/amr/sim/sandbox"
)

// weak-fork-on-duplicate admits every inbox line as new work: a duplicate
// delivery of a message becomes a work item of its own.
type forkOnDuplicate struct{ reference }

func (forkOnDuplicate) key(w *world, m sandbox.Message, occurrence int) (string, bool) {
	id := ownWorkID(m)
	if occurrence > 0 {
		id = fmt.Sprintf("w-%s-dup%d", m.ID, occurrence)
	}
	return id, w.byID[id] == nil
}
