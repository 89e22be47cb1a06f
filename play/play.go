// Package play is one judged play: a bundle played once against an
// implementation on the simulator, its artifacts judged by both oracles
// (the level checker and the history checker), and the differential
// guard's comparison of their answers.
//
// Every command that plays a bundle goes through Play: amr run and amr
// regress (through package suite), amr fuzz and amr shrink (through package
// fuzz), amr replay and amr reserve apply. So a verdict means the same
// thing whichever command printed it, and a replay command printed for a
// failure plays exactly the run that failed.
package play

import (
	"context"
	"fmt"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Impl is an implementation to play: a name for reports and a factory, or
// a process spec when it runs as an OS process (then New is not used).
type Impl struct {
	Name    string
	New     sandbox.Factory
	Process *sim.ProcessSpec
}

// Seeds say which run of a bundle a play is, and so which engine seed it
// gets: the seed of run Run of the bundle under the campaign seed Campaign
// (the one 'amr run --seed' takes), or the engine seed outright.
type Seeds struct {
	// Campaign is the seed the run seeds derive from; nil derives them from
	// the bundle's name, so two invocations agree byte for byte.
	Campaign *uint64
	// Run is the run's number among the bundle's scored runs, from 1; 0
	// counts as 1.
	Run int
	// Engine, when set, is the engine seed itself, as a recorded run log
	// has it; Campaign and Run are then not used.
	Engine *uint64
}

// EngineSeed is the seed the engine plays b with.
func (s Seeds) EngineSeed(b *scenarios.Bundle) uint64 {
	if s.Engine != nil {
		return *s.Engine
	}
	return RunSeed(b, s.Campaign, max(s.Run, 1))
}

// RunSeed derives the engine seed of run i of a bundle: from the campaign
// seed when one is given, otherwise from the bundle's name.
func RunSeed(b *scenarios.Bundle, campaign *uint64, i int) uint64 {
	base := rng.Hash("bundle:" + b.Meta.Name)
	if campaign != nil {
		base = *campaign
	}
	return rng.Mix(base, uint64(i))
}

// Options tune one play.
type Options struct {
	// MaxSteps bounds the steps per tick (0: the engine's default).
	MaxSteps int
	// Context cancels a process run (nil: never).
	Context context.Context
	// KeepWorkdir leaves a process run's directory on disk for the caller,
	// who removes it with Result.Cleanup. By default Play removes it:
	// everything judged, and the process's own output, is in memory.
	KeepWorkdir bool
}

// Run is one judged play.
type Run struct {
	Bundle     *scenarios.Bundle
	BundleHash string
	// EngineSeed is the seed the engine played with; the run log's start
	// record carries it too.
	EngineSeed uint64
	Result     *sim.Result
	// Judgement is both oracles' answers and the guard's comparison.
	Judgement Judgement
}

// Play plays b once against impl with the engine seed seeds give, and
// judges the run with both oracles. An error means the run could not be
// played (a bundle the engine refuses, a process that cannot start, a
// cancelled context), never a verdict.
func Play(b *scenarios.Bundle, impl Impl, seeds Seeds, opt Options) (*Run, error) {
	hash, err := reserve.BundleHash(b)
	if err != nil {
		return nil, fmt.Errorf("hashing bundle %s: %w", b.Meta.Name, err)
	}
	engine := seeds.EngineSeed(b)
	res, err := sim.Run(b, impl.New, sim.Options{Seed: engine, MaxSteps: opt.MaxSteps, Impl: impl.Name,
		BundleHash: hash, Process: impl.Process, Context: opt.Context})
	if err != nil {
		return nil, err
	}
	r := &Run{Bundle: b, BundleHash: hash, EngineSeed: engine, Result: res,
		Judgement: Judge(b, res.Files.Files(), res.Log)}
	if !opt.KeepWorkdir {
		_ = res.Cleanup()
	}
	return r, nil
}

// Verdict is the level checker's part of the judgement.
func (r *Run) Verdict() checker.Verdict { return r.Judgement.Level }

// Failed reports whether the level checker found any violation.
func (r *Run) Failed() bool { return len(r.Judgement.Level.Violations) > 0 }

// Invalid reports whether the two oracles disagreed on the run: a harness
// bug, neither a pass nor a fail of the implementation.
func (r *Run) Invalid() bool { return r.Judgement.Invalid() }

// Violates reports whether the level checker found a violation of the
// invariant id.
func (r *Run) Violates(invariant string) bool { return Violates(r.Judgement.Level, invariant) }

// Invariants lists the violated invariant ids, each once, in verdict order.
func (r *Run) Invariants() []string { return Invariants(r.Judgement.Level) }

// Violates reports whether a verdict holds a violation of the invariant.
func Violates(v checker.Verdict, invariant string) bool {
	for _, x := range v.Violations {
		if x.Invariant == invariant {
			return true
		}
	}
	return false
}

// Invariants lists a verdict's violated invariant ids, each once, in
// verdict order.
func Invariants(v checker.Verdict) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range v.Violations {
		if !seen[x.Invariant] {
			seen[x.Invariant] = true
			out = append(out, x.Invariant)
		}
	}
	return out
}
