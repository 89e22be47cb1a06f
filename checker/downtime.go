package checker

import (
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// downSpan is a crash's downtime: from the crash's tick until the tick the
// fresh instance starts. restarted is false when the horizon came first.
type downSpan struct {
	from, until int
	restarted   bool
}

// parseDowntimes reads the downtimes from the run log (a crash record that
// carries down, to the next restart record), or from the bundle's crash
// faults without one, read the way the engine plays them: a crash that lands
// while the implementation is down starts no downtime of its own.
func (f *facts) parseDowntimes(log []sandbox.LogRecord) {
	if f.ordered {
		for i := range log {
			r := &log[i]
			if r.Kind != sandbox.LogCrash || r.Down <= 0 {
				continue
			}
			span := downSpan{from: r.Tick}
			for j := i + 1; j < len(log); j++ {
				if later := &log[j]; later.Kind == sandbox.LogRestart {
					span.until, span.restarted = later.Tick, true
					break
				}
			}
			f.downs = append(f.downs, span)
		}
		return
	}
	type crashAt struct{ tick, after, down int }
	var cs []crashAt
	for _, fl := range f.b.Faults {
		if fl.Kind != scenarios.FaultCrash {
			continue
		}
		if v, ok := f.tl.visible(fl.At); ok {
			cs = append(cs, crashAt{v, fl.AfterWrites, fl.Down})
		}
	}
	sortStable(cs, func(a, b crashAt) bool { return a.tick < b.tick || a.tick == b.tick && a.after < b.after })
	for _, c := range cs {
		if n := len(f.downs); n > 0 && (!f.downs[n-1].restarted || c.tick < f.downs[n-1].until) {
			continue
		}
		if c.down <= 0 {
			continue
		}
		span := downSpan{from: c.tick}
		span.until, span.restarted = f.tl.visible(c.tick + c.down)
		f.downs = append(f.downs, span)
	}
}

// downAt returns the downtime under way at tick t, if any.
func (f *facts) downAt(t int) (downSpan, bool) {
	for _, d := range f.downs {
		if d.from <= t && (!d.restarted || t < d.until) {
			return d, true
		}
	}
	return downSpan{}, false
}

// deadline is the end of a liveness budget of n ticks from tick a: the n-th
// visited tick after a, except that a budget a downtime falls in ends no
// earlier than n visited ticks after the restart, as the crash budget does
// (spec §4 L1: "within 20 ticks of restart"; D71). ok is false when the
// horizon ends first, or the implementation never comes back.
func (f *facts) deadline(a, n int) (int, bool) {
	d, ok := f.tl.deadline(a, n)
	for changed := ok; changed; {
		changed = false
		for _, span := range f.downs {
			if span.from > d || span.restarted && span.until <= a {
				continue
			}
			if !span.restarted {
				return 0, false
			}
			e, ok := f.tl.deadline(span.until, n)
			if !ok {
				return 0, false
			}
			if e > d {
				d, changed = e, true
			}
		}
	}
	return d, ok
}

// restartOf is the tick the implementation was running again after a crash
// at tick t: t itself, or the end of the downtime the crash fell in. ok is
// false when it never came back.
func (f *facts) restartOf(t int) (int, bool) {
	span, down := f.downAt(t)
	if !down {
		return t, true
	}
	return span.until, span.restarted
}

// tornAt names one line of one file.
type tornAt struct {
	file string
	line int
}

// tornByHarness reports whether a bad line is exactly what a torn crash
// left (D75): the harness cut that write, so the line is no record of the
// implementation's and no fault of its format. A line that holds more
// (the next record glued onto the torn bytes) is the implementation's, and
// stays a violation, as does any torn line without a run log to say so.
func (f *facts) tornByHarness(e badLine) bool {
	text, ok := f.torn[tornAt{e.File, e.Line}]
	return ok && e.raw == text
}

// downOrRestartingAt returns the downtime under way at tick t, or the one
// whose restart comes at t: either way the implementation wrote nothing
// before the harness fired at t.
func (f *facts) downOrRestartingAt(t int) (downSpan, bool) {
	for _, d := range f.downs {
		if d.from <= t && (!d.restarted || t <= d.until) {
			return d, true
		}
	}
	return downSpan{}, false
}
