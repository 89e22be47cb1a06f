package fuzz

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/shrink"
)

// OriginShrunk is the provenance kind of a shrunk bundle.
const OriginShrunk = "shrunk"

// FailsWith is the oracle of amr shrink and amr fuzz: a candidate bundle,
// run once against impl as 'amr run --runs 1 [--seed runSeed]' plays it,
// shows a violation of the given invariant id — the same id as the
// original failure, so a shrink never slips to another bug — and the two
// oracles agree on the run, so it never slips into a harness defect
// either. With a control implementation (normally the reference), the
// control must also pass every level of the candidate, so the failure
// stays the implementation's and not the scenario's.
//
// A process implementation may get further than a crash meant to cut it
// (docs/processes.md), so one play of a candidate is not the whole answer:
// it gets up to ProcessTries plays and fails when any of them does.
func FailsWith(impl play.Impl, invariant string, runSeed *uint64, control *play.Impl, maxSteps int) shrink.Oracle {
	return func(b *scenarios.Bundle) bool {
		if _, ok := FailingPlay(b, impl, invariant, runSeed, maxSteps); !ok {
			return false
		}
		if control == nil {
			return true
		}
		c, err := playOnce(b, *control, runSeed, maxSteps)
		return err == nil && !c.Invalid() && !c.Verdict().Failed()
	}
}

// ProcessTries is how many plays a process implementation gets to show a
// failure before a bundle counts as passing. In process one play decides.
const ProcessTries = 3

// FailingPlay plays b until a play, judged valid by both oracles, violates
// the invariant: once in process, up to ProcessTries times for a process.
func FailingPlay(b *scenarios.Bundle, impl play.Impl, invariant string, runSeed *uint64, maxSteps int) (*play.Run, bool) {
	p, err := playUntil(b, impl, runSeed, maxSteps, func(r *play.Run) bool { return r.Violates(invariant) })
	return p, err == nil && !p.Invalid() && p.Violates(invariant)
}

// playOnce is the play a replay command printed for the bundle shows:
// scored run 1 of the run seed given, or of the bundle's own.
func playOnce(b *scenarios.Bundle, impl play.Impl, runSeed *uint64, maxSteps int) (*play.Run, error) {
	r, err := play.Play(b, impl, given(runSeed), play.Options{MaxSteps: maxSteps})
	if err != nil {
		return nil, fmt.Errorf("playing bundle %s: %w", b.Meta.Name, err)
	}
	return r, nil
}

// given is the seeds of a run seed that may not be given: none, so a play
// derives it from the bundle's name.
func given(runSeed *uint64) seeds.Seeds {
	if runSeed == nil {
		return seeds.Seeds{}
	}
	return seeds.OfRun(*runSeed)
}

// playUntil plays b until a valid play satisfies want, at most once in
// process and ProcessTries times for a process, and returns the last play.
func playUntil(b *scenarios.Bundle, impl play.Impl, runSeed *uint64, maxSteps int, want func(*play.Run) bool) (*play.Run, error) {
	tries := 1
	if impl.Process != nil {
		tries = ProcessTries
	}
	var p *play.Run
	var err error
	for range tries {
		p, err = playOnce(b, impl, runSeed, maxSteps)
		if err != nil || (!p.Invalid() && want(p)) {
			break
		}
	}
	return p, err
}

// ShrinkRequest is what one shrink needs besides the bundle.
type ShrinkRequest struct {
	Impl play.Impl
	// Invariant is the id the shrunk bundle must still violate; empty
	// means the first violation of the original run.
	Invariant string
	// RunSeed is the run seed of the failing run, as 'amr run --seed' takes
	// it; nil derives it from the bundle's name.
	RunSeed *uint64
	// Control, when set, must pass every level of every candidate kept.
	Control *play.Impl
	// Budget bounds the shrink's wall-clock time (0: shrink.DefaultBudget
	// without Plays, no bound with it; negative: no bound).
	Budget time.Duration
	// Plays bounds the candidates judged, so the shrink ends at the same
	// candidate on every machine; Workers judges that many at once
	// without changing the outcome (shrink.Options).
	Plays, Workers int
	// MaxSteps is the steps per tick the failing run had (0: the default).
	MaxSteps int
	// HarnessVersion is recorded in the shrunk bundle's provenance.
	HarnessVersion string
	// Context stops the shrink (Ctrl-C); an interrupted shrink returns
	// shrink.ErrInterrupted and no bundle (nil: never).
	Context context.Context
}

// Shrunk is a finished shrink, its provenance written into its bundle.
type Shrunk struct {
	// Seeds are those of the original's failing play.
	Seeds     seeds.Seeds
	Bundle    *scenarios.Bundle
	Invariant string
	Stats     shrink.Stats
	// OriginalHash and ShrunkHash are the canonical hashes of the bundle
	// before and after, as meta.origin records them.
	OriginalHash string
	ShrunkHash   string
}

// Shrink checks that the bundle fails the way the request says, shrinks
// it, and records the provenance in the result's meta. Errors are bad
// input: the bundle does not fail, or fails another way, or the control
// fails it.
func Shrink(b *scenarios.Bundle, req ShrinkRequest) (*Shrunk, error) {
	first, err := playUntil(b, req.Impl, req.RunSeed, req.MaxSteps, func(r *play.Run) bool {
		if req.Invariant == "" {
			return r.Failed()
		}
		return r.Violates(req.Invariant)
	})
	if err != nil {
		return nil, err
	}
	inv, err := target(b, first, req)
	if err != nil {
		return nil, err
	}
	if err := controlPasses(b, req); err != nil {
		return nil, err
	}
	res, err := shrink.Shrink(b, FailsWith(req.Impl, inv, req.RunSeed, req.Control, req.MaxSteps), shrink.Options{Budget: req.Budget, Plays: req.Plays, Workers: req.Workers, Context: req.Context})
	if err != nil {
		return nil, err
	}
	out := &Shrunk{Seeds: first.Seeds, Bundle: res.Bundle, Invariant: inv, Stats: res.Stats, OriginalHash: first.BundleHash}
	out.ShrunkHash, err = withProvenance(out.Bundle, b, req, inv, first.BundleHash)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// target is the invariant a shrink keeps failing: the one asked for, or
// the first the original run violates.
func target(b *scenarios.Bundle, first *play.Run, req ShrinkRequest) (string, error) {
	if first.Invalid() {
		return "", fmt.Errorf("%s: the level checker and the history oracle disagree on the run (harness-invalid), so no invariant verdict can be trusted", b.Meta.Name)
	}
	if req.Invariant == "" {
		if !first.Failed() {
			return "", fmt.Errorf("%s passes every level with %s: nothing to shrink", b.Meta.Name, req.Impl.Name)
		}
		return first.Verdict().Violations[0].Invariant, nil
	}
	if !first.Violates(req.Invariant) {
		return "", fmt.Errorf("%s does not violate %s with %s (it violates: %s)", b.Meta.Name, req.Invariant, req.Impl.Name,
			invariantList(first.Verdict()))
	}
	return req.Invariant, nil
}

// controlPasses refuses a bundle the control fails before any shrinking:
// no candidate of it could be kept.
func controlPasses(b *scenarios.Bundle, req ShrinkRequest) error {
	if req.Control == nil {
		return nil
	}
	c, err := playOnce(b, *req.Control, req.RunSeed, req.MaxSteps)
	if err != nil {
		return err
	}
	if c.Invalid() || c.Verdict().Failed() {
		return fmt.Errorf("the control %s fails %s too (%s): shrink without a control (--control '')",
			req.Control.Name, b.Meta.Name, invariantList(c.Verdict()))
	}
	return nil
}

// withProvenance writes meta.description and meta.origin of a shrunk bundle
// and returns its shrunk_hash: the canonical hash of the bundle without its
// origin (a hash cannot be part of what it hashes).
func withProvenance(s, original *scenarios.Bundle, req ShrinkRequest, inv, originalHash string) (string, error) {
	s.Meta.Description = fmt.Sprintf("Shrunk from %s: %s violates %s.", original.Meta.Name, req.Impl.Name, inv)
	s.Meta.Origin = nil
	hash, err := s.Hash()
	if err != nil {
		return "", err
	}
	o := &scenarios.Origin{Kind: OriginShrunk, Impl: req.Impl.Name, Invariant: inv,
		OriginalHash: originalHash, ShrunkHash: hash, HarnessVersion: req.HarnessVersion}
	// A generated bundle's campaign seed and run stay: they say where the
	// failure was found, and the fuzz corpus derives the replay seed from
	// them.
	if prev := original.Meta.Origin; prev != nil {
		o.CampaignSeed, o.Run = prev.CampaignSeed, prev.Run
	}
	s.Meta.Origin = o
	return hash, nil
}

func invariantList(v checker.Verdict) string {
	if ids := play.Invariants(v); len(ids) > 0 {
		return strings.Join(ids, ", ")
	}
	return "nothing"
}

// TimelineCommand is the command that shows a bundle's run tick by tick:
// amr replay with the implementation flags and the run seed.
func TimelineCommand(path, implFlags string, runSeed *uint64) string {
	cmd := "amr replay " + shell.Quote(path) + " " + implFlags
	if runSeed != nil {
		cmd += " --seed " + strconv.FormatUint(*runSeed, 10)
	}
	return cmd
}
