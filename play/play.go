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
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
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
	// OnTick is told the end of every tick (sim.Options.OnTick).
	OnTick func(tick, horizon int)
	// BundleHash is the bundle's hash (Bundle.Hash) when the caller already
	// has it, as a suite playing one bundle five times does: it is then not
	// computed again. Empty: Play computes it.
	BundleHash string
	// LogFile, when set, is where the run log is written as it is made; the
	// run is then judged from that file as amr check judges a kept log
	// (D280), and Result.Log is nil: the log is the file's.
	LogFile string
}

// Run is one judged play.
type Run struct {
	Bundle     *scenarios.Bundle
	BundleHash string
	// Seeds are the seeds the run was played with, the engine seed always
	// among them; the run log's start record carries the engine seed too.
	Seeds  seeds.Seeds
	Result *sim.Result
	// Judgement is both oracles' answers and the guard's comparison.
	Judgement Judgement
}

// Play plays b once against impl with the engine seed of s, and judges the
// run with both oracles. Seeds without an engine seed play scored run 1 of
// their run seed, as 'amr run --runs 1 [--seed N]' does, and without a run
// seed either, of the run seed the bundle's name gives. An error means the
// run could not be played (a bundle the engine refuses, a process that
// cannot start, a cancelled context), never a verdict.
func Play(b *scenarios.Bundle, impl Impl, s seeds.Seeds, opt Options) (*Run, error) {
	hash := opt.BundleHash
	if hash == "" {
		var err error
		if hash, err = b.Hash(); err != nil {
			return nil, fmt.Errorf("hashing bundle %s: %w", b.Meta.Name, err)
		}
	}
	s = scored(s, b)
	simOpt := sim.Options{Seed: uint64(*s.Engine), MaxSteps: opt.MaxSteps, Impl: impl.Name,
		BundleHash: hash, Process: impl.Process, Context: opt.Context, OnTick: opt.OnTick}
	var lf *logFile
	if opt.LogFile != "" {
		var err error
		if lf, err = createLog(opt.LogFile); err != nil {
			return nil, err
		}
		simOpt.LogTo = lf.w
	}
	res, err := sim.Run(b, impl.New, simOpt)
	if err != nil {
		if lf != nil {
			lf.discard()
		}
		return nil, err
	}
	log := res.Log
	if lf != nil {
		if log, err = lf.records(); err != nil {
			lf.discard()
			_ = res.Cleanup()
			return nil, err
		}
	}
	parsed := res.Parsed
	if parsed == nil {
		parsed = &sandbox.Parsed{}
	}
	files := res.Files.Files()
	if lf != nil {
		// A kept run is judged as amr check judges it: the engine's parse
		// of audit.jsonl held a copy of the file beside its records (72 MB
		// at 10^5 burst messages), while the final files, frozen, are
		// parsed in place (D213). Nothing writes to them once the play is
		// over.
		res.Parsed, parsed = nil, &sandbox.Parsed{}
		for _, data := range files {
			defer sandbox.Freeze(data)()
		}
	}
	r := &Run{Bundle: b, BundleHash: hash, Seeds: s, Result: res,
		Judgement: judgeParsed(b, files, log, parsed)}
	if lf != nil {
		if err := lf.close(); err != nil {
			_ = res.Cleanup()
			return nil, fmt.Errorf("run log %s: %w", lf.path, err)
		}
	}
	if !opt.KeepWorkdir {
		_ = res.Cleanup()
	}
	return r, nil
}

// scored fills in the engine seed of seeds that have none: that of scored
// run 1 of their run seed, or of the run seed the bundle's name gives.
func scored(s seeds.Seeds, b *scenarios.Bundle) seeds.Seeds {
	if s.Engine != nil {
		return s
	}
	run := seeds.Named(b.Meta.Name)
	if s.Run != nil {
		run = uint64(*s.Run)
	}
	played := seeds.OfScored(run, 1)
	played.Campaign = s.Campaign
	return played
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
