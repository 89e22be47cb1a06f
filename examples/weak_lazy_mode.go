package examples

// weak-lazy-mode polls mode.json every 8 ticks and works from the posture
// it read last in between: a posture change reaches its admissions up to 7
// ticks late, past the 5-tick allowance (spec §4 L2: a posture change
// "applies to subsequent admissions within 5 ticks"). Only a message
// arriving at the edge of the allowance shows it. A restarted instance
// polls at once.
type lazyMode struct {
	reference
	have    bool
	at      int
	posture string
	ok      bool
}

// modePoll is how many ticks a polled posture is trusted.
const modePoll = 8

// see makes the view show the posture last polled, polling again when it
// is modePoll ticks old.
func (p *lazyMode) see(v *view, _ *caches) {
	if !p.have || v.tick-p.at >= modePoll {
		p.have, p.at, p.posture, p.ok = true, v.tick, v.posture, v.modeOK
	}
	v.posture, v.modeOK = p.posture, p.ok
}
