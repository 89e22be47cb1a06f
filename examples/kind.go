package examples

import "strings"

// KindCostly is how a weak implementation whose defect is a cost, not a
// correctness one, is shown: it passes every level of every scenario, and
// only a diagnostic (a target starting "surprise.") flags it. Its Kind stays
// KindWeak: it is the reference with one planted defect like the others.
const KindCostly = "costly"

// ShownKind is the kind a person is shown: reference, weak (a published
// scenario must fail a level of it) or costly (correct at every level; a
// diagnostic must flag its waste).
func (i Impl) ShownKind() string {
	if i.Kind != KindWeak || len(i.Targets) == 0 {
		return i.Kind
	}
	for _, t := range i.Targets {
		if !strings.HasPrefix(t, "surprise.") {
			return KindWeak
		}
	}
	return KindCostly
}
