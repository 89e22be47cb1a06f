package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-no-send drafts replies and waits for approvals like the reference,
// but never takes an approval up, so nothing is ever sent.
type noSend struct{ reference }

func (noSend) accept(*world, *work, sandbox.Draft, decision) *write { return nil }
