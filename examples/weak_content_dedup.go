package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-content-dedup recognizes a redelivery by its content, not by its id:
// a message from the same sender with the same subject and body as an
// earlier one is taken for a copy of it and never looked at, though it is a
// message of its own (spec §2: inbox lines carry an id; delivery is
// at-least-once, and a duplicate is the same id again).
type contentDedup struct{ reference }

// polls skips a message whose sender, subject and body an earlier message
// of another id already had.
func (contentDedup) polls(v *view, m sandbox.Message) bool {
	for _, o := range v.inbox {
		if o.ID == m.ID {
			return true
		}
		if o.From == m.From && o.Subject == m.Subject && o.Body == m.Body {
			return false
		}
	}
	return true
}
