package history

// outage is the time an implementation stayed down after a crash that
// drew a downtime: from the crash's tick to its restart's. up is false when
// no restart came before the history ended.
type outage struct {
	from, until int
	up          bool
}

// outagesOf reads the outages from the history's own operations: a crash
// that carries a downtime, to the restart after it.
func outagesOf(ops []Op) []outage {
	var out []outage
	for i, op := range ops {
		if op.Type != OpCrash || op.Down <= 0 {
			continue
		}
		o := outage{from: op.Tick}
		for _, later := range ops[i+1:] {
			if later.Type == OpRestart {
				o.until, o.up = later.Tick, true
				break
			}
		}
		out = append(out, o)
	}
	return out
}

// during returns the outage under way at tick t, if any.
func during(os []outage, t int) (outage, bool) {
	for _, o := range os {
		if o.from <= t && (!o.up || t < o.until) {
			return o, true
		}
	}
	return outage{}, false
}

// budget returns the clock position at which a budget of n visited ticks
// from position p ends. A budget that would end while the implementation is
// down starts again from its restart (D71), as a crash's resolution budget
// runs from the restart. judged is false when the horizon comes first or
// the implementation never came back.
func budget(c clock, os []outage, p, n int) (q int, judged bool) {
	q = p + n
	for q < len(c) {
		o, down := during(os, c[q])
		if !down {
			return q, true
		}
		if !o.up {
			return 0, false
		}
		q = c.pos(o.until) + n
	}
	return 0, false
}
