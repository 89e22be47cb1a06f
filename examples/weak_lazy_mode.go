package examples

// weak-lazy-mode polls mode.json every 8 ticks and works from the posture
// it read last in between: a posture change reaches its admissions up to 7
// ticks late, past the 5-tick allowance (spec §4 L2: a posture
// change "applies to subsequent admissions within 5 ticks"). Only a message
// arriving at the edge of the allowance shows it.

// modePoll is how many ticks a polled posture is trusted.
const modePoll = 8

// polledMode is the posture as weak-lazy-mode last read it.
type polledMode struct {
	have    bool
	at      int
	posture string
	ok      bool
}

// pollMode makes the view show the posture last polled, polling again when
// it is modePoll ticks old. A restarted instance polls at once.
func (r *responder) pollMode(v *view) {
	p := &r.polled
	if !p.have || v.tick-p.at >= modePoll {
		*p = polledMode{have: true, at: v.tick, posture: v.posture, ok: v.modeOK}
	}
	v.posture, v.modeOK = p.posture, p.ok
}
