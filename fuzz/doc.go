// Package fuzz owns amr's fault search: a campaign plays bundles the
// generators of package faults draw, each one judged play (package play),
// and stops at the first failing run or plays its whole budget. It owns
// what a campaign keeps and reads: the coverage counters that say which
// situations it reached, the determinism check, the corpus of failing
// bundles that later campaigns replay first, and the counterexample files.
// A failure is shrunk here too, against the oracle "still fails the same
// invariant, the oracles agree, the control passes", with the shrunk
// bundle's provenance, and a shrunk bundle can be promoted into the
// published scenarios.
//
// Run i of a campaign draws everything from its run seed, seeds.Run(campaign
// seed, i), and plays with the engine seed of scored run 1 of it, so the
// same campaign seed means the same runs, the same first failure and the
// same coverage on every machine and for any number of workers.
package fuzz
