package shrink

import (
	"github.com/amr-bench/amr/scenarios"
)

// horizonFloor is the smallest horizon the shrink gives a bundle: the last
// scheduled tick plus the liveness tail, and never before a jump lands. A
// shorter horizon would let a run end before a correct implementation could
// meet its budgets, and the failure would be the scenario's, not the
// implementation's.
func (s *shrinker) horizonFloor(b *scenarios.Bundle) int {
	last := 0
	for _, e := range Events(b) {
		last = max(last, e.At)
	}
	floor := last + s.opts.Tail
	for _, f := range b.Faults {
		if f.Kind == scenarios.FaultTickJump {
			floor = max(floor, f.At+f.By)
		}
	}
	return floor
}

// horizon cuts the horizon toward its floor, smallest first.
func (s *shrinker) horizon() bool {
	cur, floor := s.cur.Meta.Horizon, s.horizonFloor(s.cur)
	for _, h := range fewer(cur, floor) {
		if s.out {
			return false
		}
		c := s.cur.Clone()
		c.Meta.Horizon = h
		if s.try(c) {
			return true
		}
	}
	return false
}

// setAt moves one event to tick at.
func setAt(b *scenarios.Bundle, e Event, at int) {
	switch e.Kind {
	case KindDelivery:
		b.Inbox[e.Index].At = at
	case KindApproval:
		b.Approvals[e.Index].At = at
	case KindSignal:
		b.Signals[e.Index].At = at
	default:
		b.Faults[e.Index].At = at
	}
}

// shifted returns a copy of b where every event at or after tick from comes
// d ticks earlier. The horizon stays: only the horizon pass cuts it, and
// never below its floor.
func shifted(b *scenarios.Bundle, from, d int) *scenarios.Bundle {
	c := b.Clone()
	for _, e := range Events(c) {
		if e.At >= from {
			setAt(c, e, e.At-d)
		}
	}
	return c
}

// ticks lists the distinct ticks events are scheduled at, in order.
func ticks(b *scenarios.Bundle) []int {
	var out []int
	for _, e := range Events(b) {
		if len(out) == 0 || out[len(out)-1] != e.At {
			out = append(out, e.At)
		}
	}
	return out
}

// gaps closes the quiet stretches between scheduled ticks (and before the
// first one): everything from a tick on moves earlier together, so the order
// of events is kept. A gap shrinks toward one tick, smallest first.
func (s *shrinker) gaps() bool {
	changed := false
	for k := 0; ; k++ {
		ts := ticks(s.cur)
		if k >= len(ts) || s.out {
			return changed
		}
		prev := 0
		if k > 0 {
			prev = ts[k-1]
		}
		gap := ts[k] - prev
		for _, g := range fewer(gap, 1) {
			if s.out {
				return changed
			}
			if s.try(shifted(s.cur, ts[k], gap-g)) {
				changed = true
				break
			}
		}
	}
}

// earlier moves single events earlier, into a tick where nothing else is
// scheduled, toward tick 1: a duplicate or an approval that only needs to
// come after its message moves ahead of what it does not depend on. Events
// are never moved into an occupied tick: two events at one tick make the
// story depend on the order within a tick, which is harder to read.
// Candidates that break validity (a duplicate before its delivery) are
// skipped without asking the oracle.
func (s *shrinker) earlier() bool {
	changed := false
	for k := 0; ; k++ {
		evs := Events(s.cur)
		if k >= len(evs) || s.out {
			return changed
		}
		e := evs[k]
		busy := map[int]bool{}
		for _, o := range evs {
			busy[o.At] = true
		}
		for _, at := range fewer(e.At, 1) {
			if s.out {
				return changed
			}
			if busy[at] {
				continue
			}
			c := s.cur.Clone()
			setAt(c, e, at)
			if s.try(c) {
				changed = true
				break
			}
		}
	}
}

// jumps shrinks tick jumps toward the smallest jump (2). Events inside the
// old jump were visible when it landed, so they move to the new landing;
// events after it move earlier by the same amount, so the order is kept.
func (s *shrinker) jumps() bool {
	changed := false
	for i := 0; i < len(s.cur.Faults); i++ {
		f := s.cur.Faults[i]
		if f.Kind != scenarios.FaultTickJump {
			continue
		}
		for _, by := range fewer(f.By, 2) {
			if s.out {
				return changed
			}
			if s.try(shrunkJump(s.cur, i, by)) {
				changed = true
				break
			}
		}
	}
	return changed
}

// shrunkJump returns a copy of b whose i-th fault, a tick jump, moves by by.
func shrunkJump(b *scenarios.Bundle, i, by int) *scenarios.Bundle {
	c := b.Clone()
	f := c.Faults[i]
	land, newLand := f.At+f.By, f.At+by
	d := land - newLand
	for _, e := range Events(c) {
		switch {
		case e.At >= land:
			setAt(c, e, e.At-d)
		case e.At > newLand && e.At < land:
			setAt(c, e, newLand)
		}
	}
	c.Faults[i].By = by
	return c
}
