package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-context-stuffing prompts the model with every message of the same
// customer, whatever the conversation, so another thread's anchor can leak
// into the draft.
type contextStuffing struct{ reference }

func (contextStuffing) prompt(w *world, wk *work) string {
	return promptOf(w.fromSender(wk.message().From))
}

// fromSender returns every distinct message of a sender delivered so far,
// whatever its conversation.
func (w *world) fromSender(from string) []sandbox.Message {
	var out []sandbox.Message
	for _, id := range w.order {
		if m, _ := w.message(id); m.From == from {
			out = append(out, m)
		}
	}
	return out
}
