package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-content-dedup recognizes a redelivery by its content, not by its id:
// a message from the same sender with the same subject and body as an
// earlier one is taken for a copy of it and never admitted, though it is a
// message of its own (spec §2: inbox lines carry an id; delivery is
// at-least-once, and a duplicate is the same id again).

// sameContentEarlier reports whether an earlier message of the inbox, under
// another id, has the message's sender, subject and body.
func sameContentEarlier(w *world, m sandbox.Message) bool {
	for _, id := range w.order {
		if id == m.ID {
			return false
		}
		o := w.messages[id]
		if o.From == m.From && o.Subject == m.Subject && o.Body == m.Body {
			return true
		}
	}
	return false
}
