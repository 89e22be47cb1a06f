// Package faults owns amr's property-based fault search: the fault
// vocabulary of spec §2 and §4, the generators that turn a seed into a
// valid scenario bundle (a safety phase in which faults strike, then a
// quiet liveness tail), the swarm profiles that decide per run which kinds
// of fault are on and how often, the campaign that plays generated bundles
// against an implementation and judges them with the checker, the coverage
// counters that say which interesting situations a campaign actually
// reached, and the corpus of failing bundles that later campaigns replay
// first.
//
// Generation is stable by seed: run i of a campaign draws everything from
// its run seed, seeds.Run(campaign seed, i), through internal/rng, so the
// same seed means the same bundle on every machine. The same generators run under
// pgregory.net/rapid in the package's property tests (see docs/fuzz.md).
package faults
