package examples

import (
	"errors"
	"time"

	"github.com/amr-bench/amr/sim/sandbox"
)

// modelAttempts is how often the reference asks the model for one draft
// before it gives up until its next step: a failing endpoint (D74) fails a
// few calls in a row, then answers again.
const modelAttempts = 4

// maxRetryWait bounds the wait a rate limit asks for, so a step always
// returns soon.
const maxRetryWait = 2 * time.Second

// complete asks the model, asking again after a failed call: a rate limit,
// a server error, a reset, a timeout or a body cut short produced no
// completion, so nothing of it may be used or cited; only the call that
// answers is. A rate limit's Retry-After is waited where it is wall-clock
// time (over HTTP); in process no time passes during a call.
func complete(m sandbox.Model, prompt string) (sandbox.Completion, error) {
	var err error
	for range modelAttempts {
		var c sandbox.Completion
		c, err = m.Complete(prompt)
		var me *sandbox.ModelError
		if err == nil || !errors.As(err, &me) {
			return c, err
		}
		if me.Wall && me.RetryAfter > 0 {
			time.Sleep(min(time.Duration(me.RetryAfter)*time.Second, maxRetryWait))
		}
	}
	return sandbox.Completion{}, err
}
