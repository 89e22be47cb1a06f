package faults

// Source is what a generator draws from. Intn returns a uniform integer in
// [0, n) for n > 1; generators never call it with n < 2.
//
// Two sources exist. amr fuzz uses *rng.Rand (internal/rng), whose output is
// fixed by amr's own code, so a seed generates the same bundle on every
// machine and with every version of every library. The property tests wrap
// a *rapid.T, so rapid can explore and shrink the same generators.
type Source interface {
	Intn(n int) int
}

// draw adds the helpers every generator uses. Each helper maps a draw of 0
// to the simplest choice (no event, the smallest count, the first option),
// so a shrinking source such as rapid, which shrinks draws toward 0, shrinks
// bundles toward plain ones.
type draw struct{ src Source }

// intn returns a value in [0, n); it draws nothing when there is no choice.
func (d draw) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := d.src.Intn(n)
	if v < 0 || v >= n {
		return 0
	}
	return v
}

// between returns a value in [lo, hi]; hi <= lo returns lo.
func (d draw) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + d.intn(hi-lo+1)
}

// chance is true with probability perMille/1000.
func (d draw) chance(perMille int) bool {
	switch {
	case perMille <= 0:
		return false
	case perMille >= 1000:
		return true
	}
	return d.intn(1000) >= 1000-perMille
}

// pick returns one element of a non-empty list.
func pick[T any](d draw, list []T) T {
	return list[d.intn(len(list))]
}
