// Package rng is amr's source of randomness: a small seeded generator whose
// output is fixed by its algorithm here, not by any library version, so a
// seed reproduces the same run on every machine and every Go release.
package rng

import "hash/fnv"

// Rand is a splitmix64 generator. The zero value is a valid generator with
// seed 0.
type Rand struct {
	state uint64
}

// New returns a generator seeded with seed.
func New(seed uint64) *Rand { return &Rand{state: seed} }

// Stream derives an independent generator for a named purpose, so adding a
// draw to one stream never shifts the draws of another.
func Stream(seed uint64, name string) *Rand {
	return New(Mix(seed, Hash(name)))
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9e3779b97f4a7c15
	return finalize(r.state)
}

func finalize(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a uniform integer in [0, n); n <= 0 returns 0.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		return 0
	}
	// Lemire's multiply-shift with rejection keeps the draw unbiased.
	bound := uint64(n)
	for {
		x := r.Uint64()
		hi, lo := mul64(x, bound)
		if lo >= bound || lo >= (-bound)%bound {
			return int(hi)
		}
	}
}

func mul64(a, b uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	a0, a1 := a&mask32, a>>32
	b0, b1 := b&mask32, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&mask32 + a0*b1
	hi = a1*b1 + t>>32 + w1>>32
	lo = a * b
	return
}

// Range returns a uniform integer in [lo, hi]; hi < lo returns lo.
func (r *Rand) Range(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + r.Intn(hi-lo+1)
}

// Chance returns true with probability p (0..1).
func (r *Rand) Chance(p float64) bool {
	if p <= 0 {
		return false
	}
	if p >= 1 {
		return true
	}
	return float64(r.Uint64()>>11)/(1<<53) < p
}

// Shuffle permutes n elements with swap (Fisher–Yates).
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Intn(i+1))
	}
}

// Mix combines two values into a well-distributed seed.
func Mix(a, b uint64) uint64 {
	return finalize(a*0x9e3779b97f4a7c15 ^ finalize(b+0x632be59bd9b4e019))
}

// Hash is a stable 64-bit hash of a string (FNV-1a).
func Hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
