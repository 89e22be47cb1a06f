// Package doctored holds the two oracles with planted measurement bugs, for
// the tests that prove the differential guard turns such a bug into an
// INVALID run instead of a verdict. Nothing but tests imports it.
package doctored

import (
	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
)

// LevelForgetsDuplicates is the level checker with the classic favourable
// measurement bug: it drops the duplicate-effect findings.
func LevelForgetsDuplicates(in checker.Input) checker.Verdict {
	v := checker.Check(in)
	var kept []checker.Violation
	for _, x := range v.Violations {
		if x.Invariant != "L1.duplicate-effect" {
			kept = append(kept, x)
		}
	}
	v.Violations = kept
	return v
}

// HistoryForgetsDuplicates is the same bug in the history oracle.
func HistoryForgetsDuplicates(h *history.History) history.Verdict {
	v := history.Check(h)
	var kept []history.Violation
	for _, x := range v.Violations {
		if x.Invariant != history.H1DuplicateEffect {
			kept = append(kept, x)
		}
	}
	v.Violations = kept
	return v
}

// WithoutPosture is a bundle as a judge that forgets posture changes reads
// it.
func WithoutPosture(b *scenarios.Bundle) *scenarios.Bundle {
	c := b.Clone()
	c.Faults = c.Faults[:0]
	for _, f := range b.Faults {
		if f.Kind != scenarios.FaultPosture {
			c.Faults = append(c.Faults, f)
		}
	}
	return c
}

// LevelForgetsPosture is the level checker judging admission as if the
// bundle never changed the posture.
func LevelForgetsPosture(in checker.Input) checker.Verdict {
	if in.Bundle != nil {
		in.Bundle = WithoutPosture(in.Bundle)
	}
	return checker.Check(in)
}

// HistoryForgetsPosture is the history oracle's admission evaluation with
// the same defect.
func HistoryForgetsPosture(h *history.History) history.Verdict {
	doctored := *h
	if h.Admission != nil {
		a := *h.Admission
		a.Changes = nil
		for _, c := range h.Admission.Changes {
			if c.Kind != scenarios.FaultPosture {
				a.Changes = append(a.Changes, c)
			}
		}
		doctored.Admission = &a
	}
	return history.Check(&doctored)
}
