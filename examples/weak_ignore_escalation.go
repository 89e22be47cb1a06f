package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-ignore-escalation ignores OPERATOR_ESCALATION signals.
type ignoreEscalation struct{ reference }

func (ignoreEscalation) escalation(*world, sandbox.SignalRecord) (*work, bool) { return nil, false }
