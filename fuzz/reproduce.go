package fuzz

import (
	"context"
	"fmt"

	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Reproduction statuses of a counterexample.
const (
	// Reproduced: every replay failed without a harness timeout.
	Reproduced = "reproduced"
	// Nondeterministic: some replays failed, some did not. The spec
	// measures exactly that nondeterminism (§5: five scored runs), so the
	// counterexample is kept and labelled with its rate.
	Nondeterministic = "nondeterministic"
	// NotReproduced: no replay failed without a harness timeout. Such a run
	// is never reported as an invariant counterexample.
	NotReproduced = "not reproduced"
)

// Reproduction is what replaying a counterexample with its own bundle and
// engine seed showed.
type Reproduction struct {
	Status  string `json:"status"`
	Replays int    `json:"replays"`
	// Failed counts the replays that violated an invariant without a
	// harness timeout; TimedOut the replays in which the harness gave up on
	// the implementation (a step not answered, never quiet).
	Failed   int `json:"failed"`
	TimedOut int `json:"timed_out"`
	// RawTimedOut is set when the run as found had a harness timeout.
	RawTimedOut bool `json:"raw_timed_out,omitempty"`
}

// Rate is the reproduction rate as printed: "k of N replays failed".
func (r Reproduction) Rate() string {
	return fmt.Sprintf("%d of %d replays failed", r.Failed, r.Replays)
}

// TimedOut reports whether the harness gave up on the implementation
// during a run: a hung record in its run log.
func TimedOut(log []sandbox.LogRecord) bool {
	for _, r := range log {
		if r.Kind == sandbox.LogHung {
			return true
		}
	}
	return false
}

// Reproduce replays a counterexample n times (at least once) with its own
// bundle and seeds. A replay counts as failing when it violates an invariant
// and the harness did not time the implementation out: a failure that a
// timeout may have caused is the harness's, not evidence. In process a run
// is a pure function of its inputs, so one replay is as good as any number.
func Reproduce(ctx context.Context, cx *Counterexample, impl play.Impl, n, maxSteps int) (Reproduction, error) {
	n = max(n, 1)
	rep := Reproduction{Replays: n, RawTimedOut: TimedOut(cx.Result.Log)}
	for range n {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		r, err := play.Play(cx.Bundle, impl, cx.Seeds, play.Options{MaxSteps: maxSteps, Context: ctx})
		if err != nil {
			return rep, err
		}
		switch {
		case TimedOut(r.Result.Log):
			rep.TimedOut++
		case r.Failed():
			rep.Failed++
		}
	}
	switch {
	case rep.Failed == 0:
		rep.Status = NotReproduced
	case rep.Failed == n:
		rep.Status = Reproduced
	default:
		rep.Status = Nondeterministic
	}
	return rep, nil
}
