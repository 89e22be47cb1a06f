// Package faults is the fault vocabulary of spec §2 and §4 and the
// generators that turn draws into a valid scenario bundle (a safety phase
// in which faults strike, then a quiet liveness tail), with the swarm
// profiles that decide per run which kinds of fault are on and how often.
//
// It needs nothing but the bundle format: a generator draws from a Source,
// so anyone who wants generated bundles gets them without the engine, the
// oracles or the ledger. Package fuzz plays generated bundles in a
// campaign: run i draws everything from its run seed, seeds.Run(campaign
// seed, i), through internal/rng, so the same seed means the same bundle on
// every machine. The same generators run under pgregory.net/rapid in the
// package's property tests (see docs/fuzz.md).
package faults
