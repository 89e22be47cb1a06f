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
		b.Model.Failures = append(b.Model.Failures, f)
	}
}
