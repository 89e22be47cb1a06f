package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-undeclared-send declares its draft under one id and sends the reply
// under another, one it never declared.
type undeclaredSend struct{ reference }

func (undeclaredSend) send(w *world, wk *work, d sandbox.Draft) *write {
	return w.effect(d.DraftID, "reply-"+wk.id)
}
