package checker

// viewEvent is one line a view of the logs reads, placed at its tick.
type viewEvent struct {
	tick int
	kind int // evAdmit, evResolve, evClaim, evDeath
	idx  int // index into the facts' list of that kind
}

const (
	evAdmit = iota
	evResolve
	evClaim
	evDeath
)

// viewEvents lists every line a view reads, in tick order and, within a
// tick, in list order.
func viewEvents(f *facts) []viewEvent {
	var ev []viewEvent
	for i, a := range f.admissions {
		ev = append(ev, viewEvent{a.at.tick, evAdmit, i})
	}
	for i, r := range f.resolutions {
		ev = append(ev, viewEvent{r.at.tick, evResolve, i})
	}
	for i, c := range f.claims {
		ev = append(ev, viewEvent{c.at.tick, evClaim, i})
	}
	for i, s := range f.deaths {
		ev = append(ev, viewEvent{s.at.tick, evDeath, i})
	}
	sortStable(ev, func(a, b viewEvent) bool { return a.tick < b.tick })
	return ev
}

// viewCursor is a view of the logs advanced tick by tick: moving it from
// one tick to a later one reads only the lines in between, so following a
// run costs one pass over its logs, where viewAt reads them all for every
// tick. It answers exactly what viewAt(t) answers: where a list's order
// and its ticks disagree (a run log no engine of ours wrote), the line
// latest in list order still wins, and a move back in time starts over.
type viewCursor struct {
	f      *facts
	events []viewEvent
	pos    int  // events[:pos] are in the view
	at     int  // the tick the view is at
	moved  bool // at is set
	v      *logView
	resIdx map[string]int // work -> index of the resolution its outcome comes from
	// claimIdx is, per work and agent, the index of the claim its outcome
	// comes from; claims the outcomes themselves.
	claimIdx map[[2]string]int
	claims   map[string]claimState
	dead     map[string]bool
	// What changed since settled was called: the works whose lines moved
	// into the view, whether an agent joined the dead, and whether the
	// view started over.
	dirty       map[string]bool
	deadChanged bool
	restarted   bool
}

func newViewCursor(f *facts, events []viewEvent) *viewCursor {
	c := &viewCursor{f: f, events: events}
	c.reset()
	return c
}

func (c *viewCursor) reset() {
	c.pos, c.moved = 0, false
	// The maps are made at their first entry: a run without claims or
	// deaths never needs theirs, and every slot of the state judge has a
	// cursor.
	c.v = &logView{}
	c.resIdx, c.claimIdx, c.claims, c.dead, c.dirty = nil, nil, nil, nil, nil
	c.restarted = true
}

// put sets m[k] to v, making m first when it is nil.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// settled forgets what changed so far.
func (c *viewCursor) settled() {
	clear(c.dirty)
	c.deadChanged, c.restarted = false, false
}

// viewAt moves the cursor to the end of tick t and returns its view, which
// stays valid until the next move. The order of admitted and dead is that
// of the ticks the lines came in, not sorted: compareState reads them as
// sets.
func (c *viewCursor) viewAt(t int) *logView {
	if c.moved && t < c.at {
		c.reset()
	}
	c.at, c.moved = t, true
	for ; c.pos < len(c.events) && c.events[c.pos].tick <= t; c.pos++ {
		c.apply(c.events[c.pos])
	}
	return c.v
}

func (c *viewCursor) apply(e viewEvent) {
	v, f := c.v, c.f
	switch e.kind {
	case evAdmit:
		w := f.admissions[e.idx].WorkID
		if !v.isAdmitted[w] {
			put(&v.isAdmitted, w, true)
			v.admitted = append(v.admitted, w)
			put(&c.dirty, w, true)
		}
	case evResolve:
		r := f.resolutions[e.idx]
		if i, ok := c.resIdx[r.WorkID]; !ok || e.idx > i {
			put(&c.resIdx, r.WorkID, e.idx)
			put(&v.outcome, r.WorkID, r.Outcome)
			put(&c.dirty, r.WorkID, true)
		}
	case evClaim:
		cl := f.claims[e.idx]
		k := [2]string{cl.WorkID, cl.AgentID}
		if i, ok := c.claimIdx[k]; ok && e.idx < i {
			return
		}
		put(&c.claimIdx, k, e.idx)
		cs := c.claims[cl.WorkID]
		if cs == nil {
			cs = claimState{}
			put(&c.claims, cl.WorkID, cs)
		}
		cs[cl.AgentID] = cl.Outcome
		put(&c.dirty, cl.WorkID, true)
		if win, ok := cs.soleWinner(); ok {
			put(&v.winner, cl.WorkID, win)
		} else {
			delete(v.winner, cl.WorkID)
		}
	case evDeath:
		target := f.deaths[e.idx].Target
		if !c.dead[target] {
			put(&c.dead, target, true)
			v.dead = append(v.dead, target)
			c.deadChanged = true
		}
	}
}
