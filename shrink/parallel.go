package shrink

import (
	"sync"

	"github.com/amr-bench/amr/scenarios"
)

// first tries candidates in order and keeps the first on which the failure
// is still there, returning its index, or -1. With Workers > 1 the oracle
// answers a batch of candidates at once; the answers are then read in order
// exactly as one-at-a-time tries would read them: a candidate after the
// first kept one is neither counted, cached nor kept, so the outcome and the
// statistics are those of a shrink with one worker.
func (s *shrinker) first(cands []*scenarios.Bundle) int {
	w := max(s.opts.Workers, 1)
	for lo := 0; lo < len(cands) && !s.out; lo += w {
		batch := cands[lo:min(lo+w, len(cands))]
		answers := s.speculate(batch)
		for i, c := range batch {
			if s.tryWith(c, answers[i]) {
				return lo + i
			}
			if s.out {
				return -1
			}
		}
	}
	return -1
}

// answer is a speculative oracle answer for one candidate.
type answer struct {
	known, v bool
}

// speculate asks the oracle, in parallel, about every valid candidate of a
// batch not already in the cache, each distinct bundle once. Nothing is
// counted or cached here.
func (s *shrinker) speculate(batch []*scenarios.Bundle) []answer {
	out := make([]answer, len(batch))
	if len(batch) < 2 {
		return out
	}
	var wg sync.WaitGroup
	asked := map[string]bool{}
	for i, c := range batch {
		if c == nil {
			continue
		}
		c.Normalize()
		if len(scenarios.Validate(c, nil).Errors()) > 0 {
			continue
		}
		key, err := c.Hash()
		if err != nil || asked[key] {
			continue
		}
		if _, ok := s.cache[key]; ok {
			continue
		}
		asked[key] = true
		wg.Add(1)
		go func(i int, c *scenarios.Bundle) {
			defer wg.Done()
			out[i] = answer{known: true, v: s.oracle(c.Clone())}
		}(i, c)
	}
	wg.Wait()
	return out
}

// tryWith is try, answering from a speculative answer when one is known:
// the same counts and cache entries as asking the oracle then.
func (s *shrinker) tryWith(c *scenarios.Bundle, a answer) bool {
	if !a.known {
		return s.try(c)
	}
	if s.out || c == nil {
		return false
	}
	c.Normalize()
	key, _ := c.Hash()
	if v, ok := s.cache[key]; ok {
		s.stats.CacheHits++
		if !v {
			return false
		}
	} else {
		if s.spent() {
			s.out = true
			s.stats.BudgetHit = true
			return false
		}
		s.stats.OracleCalls++
		s.cache[key] = a.v
		if !a.v {
			return false
		}
	}
	s.cur = c
	s.stats.Accepted++
	return true
}
