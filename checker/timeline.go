package checker

import (
	"sort"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// timeline is the ordered list of ticks the clock visits: 0 to the horizon,
// except that a tick jump from a by b goes straight from a to a+b.
type timeline []int

// newTimeline is the timeline the engine plays, so a hostile bundle is
// judged along the ticks a run of it visits.
func newTimeline(b *scenarios.Bundle) timeline { return timeline(scenarios.TimelineOf(b)) }

// index returns the position of the first visited tick at or after t, or
// len(tl) when there is none.
func (tl timeline) index(t int) int { return sort.SearchInts(tl, t) }

// visible returns the first visited tick at or after t: the tick at which
// something scheduled for t actually happens.
func (tl timeline) visible(t int) (int, bool) {
	i := tl.index(t)
	if i >= len(tl) {
		return 0, false
	}
	return tl[i], true
}

// deadline returns the tick at which a budget of n ticks from tick a ends:
// the n-th visited tick after a, so a jump does not eat a budget. ok is false
// when the horizon ends first; such a budget is not judged.
func (tl timeline) deadline(a, n int) (int, bool) {
	if n < 1 {
		return a, true
	}
	k := tl.index(a+1) + n - 1
	if k >= len(tl) {
		return 0, false
	}
	return tl[k], true
}

// last is the final visited tick.
func (tl timeline) last() int {
	if len(tl) == 0 {
		return 0
	}
	return tl[len(tl)-1]
}

// regime is the admission context in force: a rule set and a posture.
type regime struct {
	rules   []scenarios.Rule
	hash    string
	alias   string // the hash of the bytes another harness wrote for the same rules (D25)
	posture string
}

// regimes is the history of admission contexts: the initial one, then one
// more after each rules or posture change, at the tick it landed.
type regimes struct {
	list  []regime
	since []int // since[i] is the tick list[i] came into force
}

// newRegimes builds the admission contexts from the bundle. Each rule set's
// hash is that of the rules.json bytes the implementation was given (spec
// §2): the ones the run log says were written, else the bundle's own bytes.
func newRegimes(b *scenarios.Bundle, tl timeline, log []sandbox.LogRecord) regimes {
	written := writtenRules(log)
	cur := regime{rules: b.Rules, posture: b.Mode.Posture, hash: written.initial}
	if cur.hash == "" {
		cur.hash = scenarios.RulesHash(b.RulesFile())
	}
	rs := regimes{list: []regime{cur}, since: []int{0}}
	type change struct {
		tick, order int
		f           scenarios.Fault
	}
	var changes []change
	for i, f := range b.Faults {
		if f.Kind != scenarios.FaultRules && f.Kind != scenarios.FaultPosture {
			continue
		}
		if t, ok := tl.visible(f.At); ok {
			changes = append(changes, change{t, i, f})
		}
	}
	sortStable(changes, func(a, b change) bool { return a.tick < b.tick })
	for _, c := range changes {
		if c.f.Kind == scenarios.FaultRules {
			cur.rules = c.f.Rules
			if cur.hash = written.take(c.tick, c.f.At); cur.hash == "" {
				cur.hash = scenarios.RulesHash(c.f.RulesFile())
			}
		} else {
			cur.posture = c.f.Posture
		}
		rs.list = append(rs.list, cur)
		rs.since = append(rs.since, c.tick)
	}
	return rs
}

// rulesWrites are the rules.json hashes a run log records: the initial one
// (on the start record) and each rewrite's, by the tick it landed and the
// tick it was scheduled for, in log order.
type rulesWrites struct {
	initial string
	changes map[[2]int][]string
}

func writtenRules(log []sandbox.LogRecord) rulesWrites {
	w := rulesWrites{changes: map[[2]int][]string{}}
	for i := range log {
		r := &log[i]
		switch {
		case r.RulesHash == "":
		case r.Kind == sandbox.LogStart && w.initial == "":
			w.initial = r.RulesHash
		case r.Kind == sandbox.LogRules && r.Scheduled != nil:
			key := [2]int{r.Tick, *r.Scheduled}
			w.changes[key] = append(w.changes[key], r.RulesHash)
		}
	}
	return w
}

// take returns the next recorded hash of a rules change that landed at tick
// and was scheduled for at, or "" when the log records none.
func (w rulesWrites) take(tick, at int) string {
	key := [2]int{tick, at}
	hs := w.changes[key]
	if len(hs) == 0 {
		return ""
	}
	w.changes[key] = hs[1:]
	return hs[0]
}

// at returns the index of the regime in force at tick t (changes at t
// included: the harness rewrites mode and rules before it delivers).
func (rs regimes) at(t int) int {
	return sort.Search(len(rs.since), func(i int) bool { return rs.since[i] > t }) - 1
}

// allowanceTicks is how long after a rules or posture change a message may
// still be judged under the old context (spec §4 L2: "within 5 ticks").
const allowanceTicks = 5

// candidates returns the regimes a message visible at tick v may be judged
// under by an admission decided at tick end (v <= end): every one in force at
// a visited tick from the start of the allowance of a change landing at most
// 5 visited ticks before v, through end (D5). The regime in force at v is
// always among them.
func (rs regimes) candidates(out []int, tl timeline, v, end int) []int {
	i := tl.index(v)
	lo := i - allowanceTicks - 1
	out = out[:0]
	if lo < 0 {
		// The window reaches back before the first tick: a change at tick
		// 0 replaced the initial context, which the implementation may
		// have read when it started.
		lo, out = 0, append(out, 0)
	}
	for k := lo; k < len(tl) && (k <= i || tl[k] <= end); k++ {
		r := rs.at(tl[k])
		if len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = append(out, rs.at(v))
	}
	return out
}
