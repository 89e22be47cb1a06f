package examples

import (
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// weak-subject-keyed keys work on the subject: a message whose subject
// matches an earlier work item's joins that work item.
type subjectKeyed struct{ reference }

func (p subjectKeyed) key(w *world, m sandbox.Message, occurrence int) (string, bool) {
	id, isNew := p.reference.key(w, m, occurrence)
	if !isNew {
		return "", false
	}
	subject := strings.TrimSpace(m.Subject)
	for _, wk := range w.works {
		if msg := wk.message(); msg.ID != m.ID && strings.EqualFold(strings.TrimSpace(msg.Subject), subject) {
			return wk.id, true
		}
	}
	return id, true
}
