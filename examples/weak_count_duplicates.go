package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-count-duplicates counts thread length and sender history over the
// inbox's lines, not its messages: a duplicate delivery counts again
// (against D6). Its facts are right until a duplicate arrives before a
// message the rules judge at a threshold, where it is one too many.
type countDuplicates struct{ reference }

func (countDuplicates) facts(w *world, m sandbox.Message) facts {
	f := facts{subject: m.Subject, body: m.Body, from: m.From, posture: w.v.posture}
	for _, line := range w.v.inbox {
		if line.ConversationID == m.ConversationID {
			f.threadLength++
		}
		if line.ID == m.ID {
			break
		}
		if line.From == m.From {
			f.senderHistory++
		}
	}
	return f
}
