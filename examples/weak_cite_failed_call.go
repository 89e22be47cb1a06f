package examples

import (
	"errors"

	"github.com/amr-bench/amr/sim/sandbox"
)

// weak-cite-failed-call asks the model once and, when the call fails but
// says which call it was, drafts a stock apology citing that call: an
// error path that keeps the reply flowing and keeps the audit trail looking
// model-based. The failed call produced no completion, so the draft's
// origin traces to nothing (D74). Against an endpoint that always answers,
// it is the reference.
type citeFailedCall struct{ reference }

func (citeFailedCall) complete(m sandbox.Model, prompt string) (sandbox.Completion, error) {
	c, err := m.Complete(prompt)
	var me *sandbox.ModelError
	if errors.As(err, &me) && me.CallID != "" {
		return sandbox.Completion{CallID: me.CallID, Text: "Thanks for writing, we are looking into it."}, nil
	}
	return c, err
}
