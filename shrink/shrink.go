// Package shrink minimizes a scenario bundle against an oracle: given a
// bundle on which the oracle holds ("this bundle still makes the
// implementation violate invariant X"), it returns a smaller bundle on which
// the oracle still holds, so a person can read the failure in a minute.
//
// Shrink repeats a fixed list of passes until none of them makes progress:
// it cuts the horizon, removes whole conversations, removes events by delta
// debugging, drops fleet agents, rules, conditions and anchors, shortens
// texts, lands crashes earlier, compresses time, and renumbers ids. Every
// candidate must pass scenarios.Validate before the oracle sees it, and the
// oracle's answers are memoized by the candidate's canonical hash.
//
// The result is 1-minimal over events: removing any single remaining event
// (with what refers to it) gives a bundle that is invalid or on which the
// oracle no longer holds. The same input and oracle give the same output;
// only the time budget can stop a shrink early, and Stats says when it did.
//
// The package knows nothing of the engine or the checker: the caller builds
// the oracle. Keep the oracle pure — the same bundle must always get the same
// answer — or the result is not reproducible.
package shrink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/amr-bench/amr/scenarios"
)

// DefaultBudget bounds a shrink's wall-clock time when Options.Budget is 0.
const DefaultBudget = 30 * time.Second

// LivenessTail is how many ticks the horizon keeps after the last scheduled
// event when Options.Tail is 0: room for every liveness budget of the spec
// (5, 10 and 20 ticks) to end before the horizon does.
const LivenessTail = 25

// maxRounds bounds the fixpoint loop; every accepted candidate is strictly
// smaller, so it is a guard, not a limit that is expected to bind.
const maxRounds = 200

// Oracle reports whether a candidate bundle still shows the failure. It is
// called only with valid bundles, each its own copy.
type Oracle func(*scenarios.Bundle) bool

// Options tune a shrink.
type Options struct {
	// Budget bounds the wall-clock time; it is checked before each oracle
	// call. Zero means DefaultBudget; a negative budget means no bound.
	Budget time.Duration
	// Tail is the smallest number of ticks kept between the last scheduled
	// event and the horizon. Zero means LivenessTail.
	Tail int
	// Context stops the shrink when it is done (Ctrl-C): it is checked
	// before each oracle call, and Shrink then returns ErrInterrupted
	// rather than a bundle it did not finish with (nil: never).
	Context context.Context
	// Plays bounds the oracle calls. A play budget ends a shrink at the same
	// candidate on every machine, where a time budget does not; with Plays
	// set, Budget bounds nothing unless it is given too.
	Plays int
	// Workers is how many candidates of one step of delta debugging are
	// judged at once (0 or 1: one at a time). Candidates are judged
	// speculatively and read in order; only the ones a one-at-a-time shrink
	// would have judged count, so the result and the statistics do not
	// depend on Workers for a pure oracle.
	Workers int
}

// Stats report what a shrink did. Events count every scheduled item:
// deliveries, approvals, signals and faults. Ticks are the horizon.
type Stats struct {
	EventsBefore int `json:"events_before"`
	EventsAfter  int `json:"events_after"`
	TicksBefore  int `json:"ticks_before"`
	TicksAfter   int `json:"ticks_after"`
	// OracleCalls counts the oracle's invocations; CacheHits the candidates
	// answered from memory instead; Invalid the candidates skipped because
	// they did not validate; Accepted the candidates kept.
	OracleCalls int `json:"oracle_calls"`
	CacheHits   int `json:"cache_hits"`
	Invalid     int `json:"invalid"`
	Accepted    int `json:"accepted"`
	// Rounds counts the passes over the whole list of passes.
	Rounds int `json:"rounds"`
	// Elapsed is the wall-clock time spent, oracle calls included.
	Elapsed time.Duration `json:"elapsed_ns"`
	// BudgetHit is true when the budget stopped the shrink before the
	// fixpoint: the result still fails, but may not be minimal.
	BudgetHit bool `json:"budget_hit"`
}

// Result is a shrink's outcome: the smallest failing bundle found and the
// statistics.
type Result struct {
	Bundle *scenarios.Bundle
	Stats  Stats
}

// ErrInterrupted is a shrink stopped by its context; it wraps the
// context's error.
var ErrInterrupted = errors.New("shrink: interrupted")

// ErrNotFailing means the oracle does not hold for the input bundle, so
// there is nothing to shrink.
var ErrNotFailing = errors.New("shrink: the oracle does not hold for the input bundle")

// Shrink minimizes b against oracle. It returns an error when b is invalid or
// the oracle does not hold for it; b itself is never modified.
func Shrink(b *scenarios.Bundle, oracle Oracle, opts Options) (*Result, error) {
	if b == nil {
		return nil, errors.New("shrink: no bundle")
	}
	if oracle == nil {
		return nil, errors.New("shrink: no oracle")
	}
	if errs := scenarios.Validate(b, nil).Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("shrink: the input bundle is invalid:\n%w", errs)
	}
	if opts.Budget == 0 && opts.Plays <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Tail <= 0 {
		opts.Tail = LivenessTail
	}
	s := &shrinker{oracle: oracle, opts: opts, start: time.Now(), cache: map[string]bool{}}
	s.stats.EventsBefore = countEvents(b)
	s.stats.TicksBefore = b.Meta.Horizon
	cur := b.Clone()
	cur.Normalize()
	// The input is judged whatever the budget: a shrink that cannot tell
	// whether it started from a failure has nothing to report.
	if !s.judge(cur, true) {
		if err := s.interrupted(); err != nil {
			return nil, err
		}
		return nil, ErrNotFailing
	}
	s.cur = cur
	s.run()
	if err := s.interrupted(); err != nil {
		return nil, err
	}
	s.stats.EventsAfter = countEvents(s.cur)
	s.stats.TicksAfter = s.cur.Meta.Horizon
	s.stats.Elapsed = time.Since(s.start)
	return &Result{Bundle: s.cur, Stats: s.stats}, nil
}

// shrinker holds one shrink's state: the smallest failing bundle so far.
type shrinker struct {
	oracle Oracle
	opts   Options
	start  time.Time
	cache  map[string]bool
	cur    *scenarios.Bundle
	stats  Stats
	// out is set once the budget is spent; every pass then stops.
	out bool
}

// pass is one kind of reduction; it reports whether it changed the bundle.
type pass func(*shrinker) bool

// passes run in this order in every round. Cutting the horizon first makes
// every later oracle call cheaper; renumbering last reads the final shape.
var passes = []pass{
	(*shrinker).horizon,
	(*shrinker).conversations,
	(*shrinker).events,
	(*shrinker).agents,
	(*shrinker).rules,
	(*shrinker).conditions,
	(*shrinker).anchors,
	(*shrinker).mode,
	(*shrinker).texts,
	(*shrinker).crashes,
	(*shrinker).jumps,
	(*shrinker).gaps,
	(*shrinker).earlier,
	(*shrinker).horizon,
	(*shrinker).renumber,
}

func (s *shrinker) run() {
	for round := 1; round <= maxRounds && !s.out; round++ {
		s.stats.Rounds = round
		changed := false
		for _, p := range passes {
			if p(s) {
				changed = true
			}
			if s.out {
				return
			}
		}
		if !changed {
			return
		}
	}
}

// try judges a candidate and keeps it when the failure is still there.
func (s *shrinker) try(c *scenarios.Bundle) bool {
	if s.out || c == nil {
		return false
	}
	c.Normalize()
	if !s.judge(c, false) {
		return false
	}
	s.cur = c
	s.stats.Accepted++
	return true
}

// judge validates a candidate, then answers from the cache or the oracle.
// Unless force is set, a spent budget answers false and stops the shrink.
func (s *shrinker) judge(c *scenarios.Bundle, force bool) bool {
	if len(scenarios.Validate(c, nil).Errors()) > 0 {
		s.stats.Invalid++
		return false
	}
	key, err := c.Hash()
	if err == nil {
		if v, ok := s.cache[key]; ok {
			s.stats.CacheHits++
			return v
		}
	}
	if s.interrupted() != nil {
		s.out = true
		return false
	}
	if !force && s.spent() {
		s.out = true
		s.stats.BudgetHit = true
		return false
	}
	s.stats.OracleCalls++
	// The oracle gets its own copy, so nothing it does can change what
	// the shrink keeps.
	v := s.oracle(c.Clone())
	if err == nil {
		s.cache[key] = v
	}
	return v
}

// interrupted is ErrInterrupted once the context is done.
func (s *shrinker) interrupted() error {
	if s.opts.Context == nil || s.opts.Context.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInterrupted, s.opts.Context.Err())
}

// spent reports whether the play or time budget is used up.
func (s *shrinker) spent() bool {
	if s.opts.Plays > 0 && s.stats.OracleCalls >= s.opts.Plays {
		return true
	}
	return s.opts.Budget > 0 && time.Since(s.start) > s.opts.Budget
}

// countEvents counts a bundle's scheduled items.
func countEvents(b *scenarios.Bundle) int {
	return len(b.Inbox) + len(b.Approvals) + len(b.Signals) + len(b.Faults)
}

// sameJSON reports whether two bundles have the same single-JSON form.
func sameJSON(a, b *scenarios.Bundle) bool {
	x, errA := a.MarshalIndent()
	y, errB := b.MarshalIndent()
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
