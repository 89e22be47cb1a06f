package checker

// Obligations. A level that passed because nothing it is about happened
// (no follow-up, no crash with work pending, no AGENT_DEATH, no escalation)
// says nothing about the implementation, yet reads "pass" like a level that
// was put to the test. So every safety and liveness check records each item
// it held to its rule, at the point where it judges it, and the verdict
// carries the counts: a level that passed with none is vacuous.
//
// The count is kept by the checks themselves, one f.judged call per item
// beside the code that judges it, rather than derived again here: a second
// derivation could drift from what the check really looked at. Contract
// invariants are not counted (decision D31): they judge the form of
// whatever the implementation wrote, which every run has, even an idle one.

// tally counts, per invariant id, the items its check judged. An item that
// a check meets more than once (the same crash found pending through its
// draft and through its message) is counted once when the check names it.
type tally struct {
	n    map[string]int
	seen map[seenKey]bool
}

// seenKey names an item of an invariant: by a string, or by a number
// (a crash's place in the run's crashes, a signal's line) that needs none.
type seenKey struct {
	id, key string
	n       int
}

func (t *tally) add(id string) {
	if t.n == nil {
		t.n = map[string]int{}
	}
	t.n[id]++
}

// judged records that the check of invariant id judged one more item.
func (f *facts) judged(id string) { f.obligations.add(id) }

// judgedWhen records one judged item of invariant id when ok holds: for a
// check whose condition for judging an item shares a line with its verdict.
func (f *facts) judgedWhen(ok bool, id string) {
	if ok {
		f.judged(id)
	}
}

// judgedAs records that the check of invariant id judged the item named
// key; the same key counts once.
func (f *facts) judgedAs(id, key string) { f.judgedOnce(seenKey{id: id, key: key}) }

// judgedAsN is judgedAs for an item named by a number.
func (f *facts) judgedAsN(id string, n int) { f.judgedOnce(seenKey{id: id, n: n}) }

func (f *facts) judgedOnce(k seenKey) {
	t := &f.obligations
	if t.seen == nil {
		t.seen = map[seenKey]bool{}
	}
	if t.seen[k] {
		return
	}
	t.seen[k] = true
	t.add(k.id)
}

// counted reports whether an invariant's obligations are counted.
func counted(inv Invariant) bool { return inv.Kind != KindContract }

// tally fills the verdict's obligation counts from what the checks of the
// judged levels recorded, and lists the levels that passed with none.
func (v *Verdict) tally(f *facts) {
	if len(v.Judged) == 0 {
		n := 0
		for _, inv := range catalogue {
			if inv.Level <= f.top && counted(inv) {
				n++
			}
		}
		v.Judged = make(map[string]int, n)
	}
	for _, inv := range catalogue {
		if inv.Level > f.top || !counted(inv) {
			continue
		}
		n := f.obligations.n[inv.ID]
		v.Judged[inv.ID] = n
		v.Obligations[inv.Level] += n
	}
	for level := MinLevel; level <= f.top; level++ {
		if v.Levels[level] == Pass && v.Obligations[level] == 0 {
			v.Vacuous = append(v.Vacuous, level)
		}
	}
}

// IsVacuous reports whether level passed with no obligation judged.
func (v Verdict) IsVacuous(level int) bool {
	for _, l := range v.Vacuous {
		if l == level {
			return true
		}
	}
	return false
}

// Status is how a level reads in a report: pass, fail, untested, or
// vacuous for a pass with no obligation judged. Levels keeps the spec's
// three values; Status is for showing them.
func (v Verdict) Status(level int) string {
	if level < MinLevel || level > MaxLevel {
		return Untested
	}
	if v.IsVacuous(level) {
		return Vacuous
	}
	return v.Levels[level]
}
