package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-thread-keyed keys work on the conversation, as a system that files
// mail by thread would: a later message of a conversation is admitted into
// the work item its thread already has. When the follow-up comes after the
// thread's reply was sent, that work item is finished, so nothing more is
// drafted or sent for it, and the follow-up is never answered.
type threadKeyed struct{ reference }

func (p threadKeyed) key(w *world, m sandbox.Message, occurrence int) (string, bool) {
	id, isNew := p.reference.key(w, m, occurrence)
	if !isNew {
		return "", false
	}
	if thread, ok := threadWork(w, m); ok {
		return thread, true
	}
	return id, true
}

// threadWork returns the work item of an earlier message of the message's
// conversation, if there is one.
func threadWork(w *world, m sandbox.Message) (string, bool) {
	for _, wk := range w.works {
		if msg := wk.message(); msg.ID != m.ID && msg.ConversationID == m.ConversationID {
			return wk.id, true
		}
	}
	return "", false
}
