package faults

import "github.com/amr-bench/amr/scenarios"

// ModelFaults is the kind of a failing model endpoint: calls answered with
// a 429 and Retry-After, a 500 or 503, a reset connection, no answer in
// time, or a body cut short (D74).
const ModelFaults = "model_faults"

// maxFailRun is the longest run of consecutive failing calls: the endpoint
// recovers, and a client that retries a few times gets its answer.
const maxFailRun = 3

// modelFailures draws which calls of the run fail and how. Calls are
// numbered in the order they reach the stub, so the failures fall on the
// early drafts, where the messages are; a run of failures is at most
// maxFailRun long.
func (g *generator) modelFailures(b *scenarios.Bundle) {
	if !g.on(ModelFaults) {
		return
	}
	calls := 2*len(g.msgs) + 2
	run := 0
	for n := 1; n <= calls; n++ {
		if run >= maxFailRun || !g.d.chance(g.rate(ModelFaults)/2) {
			run = 0
			continue
		}
		run++
		f := scenarios.ModelFailure{Call: n, Kind: pick(g.d, scenarios.ModelFailureKinds)}
		if f.Kind == scenarios.ModelRateLimit && g.d.chance(100) {
			f.RetryAfter = 1
		}
		if f.Kind == scenarios.ModelTimeout {
			f.HoldMS = g.hold()
		}
		b.Model.Failures = append(b.Model.Failures, f)
	}
}

// longHolds are the holds of the timeouts that outlast a client's timeout
// of a fraction of a second, or of up to two (0: the default, 2 s).
var longHolds = []int{0, 250}

// hold draws how long the HTTP stub holds a timeout (D183): most holds are
// a few milliseconds, so any client but one with a shorter timeout of its
// own gets the gateway's 504 and a campaign's wall time is not spent
// waiting; one in eight is long enough for a client with a timeout under a
// quarter of a second, or under two seconds, to see its own.
func (g *generator) hold() int {
	if g.d.chance(875) {
		return g.d.between(1, 50)
	}
	return pick(g.d, longHolds)
}
