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
		if op.Type != OpCrash || op.R().Down <= 0 {
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

// budget returns the clock position at which a budget of n visited ticks
// from position p ends. A budget an outage falls in ends no earlier than n
// visited ticks after the restart (D71), as a crash's resolution budget
// runs from the restart. judged is false when the horizon comes first or
// the implementation never came back.
func budget(c clock, os []outage, p, n int) (q int, judged bool) {
	q = p + n
	if q >= len(c) {
		return 0, false
	}
	for changed := true; changed; {
		changed = false
		for _, o := range os {
			if o.from > c[q] || o.up && o.until <= c[p] {
				continue
			}
			if !o.up {
				return 0, false
			}
			e := c.pos(o.until) + n
			if e >= len(c) {
				return 0, false
			}
			if e > q {
				q, changed = e, true
			}
		}
	}
	return q, true
}
