package checker

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
)

// Decision D5 from the first tick: the initial mode.json is what the
// implementation read when it started, so a change at tick 0 leaves the
// initial context valid for the message of tick 0 and the 5 visited ticks
// after it, and no longer.
func TestAdmissionAfterAChangeAtTickZero(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		initial, changed     string
		at                   int
		admit                bool
		unwarranted, missing bool
	}{
		{"old context admits, inside the allowance", "normal", "maintenance", 5, true, false, false},
		{"old context admits, at tick 0", "normal", "maintenance", 0, true, false, false},
		{"old context admits, after the allowance", "normal", "maintenance", 6, true, true, false},
		{"only the old context admits: not required", "normal", "maintenance", 2, false, false, false},
		{"only the new context admits: not required inside the allowance", "maintenance", "normal", 5, false, false, false},
		{"only the new context admits: required after it", "maintenance", "normal", 6, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 2, 40)
				w.b.Mode.Posture = tc.initial
				w.b.Rules = []scenarios.Rule{{ID: "normal-only", Admit: true,
					When: scenarios.Conditions{SubjectContains: str("order"), Posture: str("normal")}}}
				w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 0, Kind: scenarios.FaultPosture, Posture: tc.changed})
				w.deliver("m1", "c1", "a@x", subjectM1, "ORD-1001?", tc.at)
				if tc.admit {
					w.admit("w1", "m1", tc.at)
				}
				v := Check(w.input(withLog))
				assert.Equal(t, tc.unwarranted, len(only(v, "L2.admission-unwarranted")) == 1)
				assert.Equal(t, tc.missing, len(only(v, "L2.admission-missing")) == 1)
			})
		})
	}
}

// admissionFindings lists each oracle's admission findings as message:cause.
func admissionFindings(t *testing.T, w *world, withLog bool) (level, hist []string) {
	in := w.input(withLog)
	for _, v := range Check(in).Violations {
		switch v.Invariant {
		case "L2.admission-unwarranted":
			level = append(level, v.MessageID+":unwarranted")
		case "L2.admission-missing":
			level = append(level, v.MessageID+":missing")
		}
	}
	hv := history.Check(history.Compile(history.Input{Bundle: in.Bundle, Files: in.Files, Log: in.Log}))
	for _, v := range hv.Violations {
		if v.Invariant == history.H9Admission {
			require.Len(t, v.Causes, 1)
			hist = append(hist, v.MessageID+":"+v.Causes[0])
		}
	}
	return level, hist
}

// docs/rules.md's worked examples, judged by both oracles: the level
// checker through the scenarios evaluator, the history oracle through its
// own. They name the same messages for the same cause, and the ones the
// page says.
func TestBothOraclesReadTheRulesPageAlike(t *testing.T) {
	orders := []scenarios.Rule{
		{ID: "orders", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}},
		{ID: "vip", Admit: true, When: scenarios.Conditions{FromIn: &[]string{"vip@example.com"}}},
		{ID: "freeze", When: scenarios.Conditions{Posture: str("maintenance")}, Overrides: []string{"orders"}},
	}
	history := []scenarios.Rule{
		{ID: "returning-refund", Admit: true, When: scenarios.Conditions{SubjectContains: str("refund"), SenderHistoryMin: intp(1)}},
		{ID: "short-order-thread", Admit: true, When: scenarios.Conditions{SubjectContains: str("order"), ThreadLengthMax: intp(3)}},
	}
	type msg struct {
		id, conv, from, subject string
		at                      int
		admitted                bool // what docs/rules.md says
	}
	for _, tc := range []struct {
		name  string
		rules []scenarios.Rule
		setup func(w *world)
		msgs  []msg
	}{
		{"first table", orders, func(w *world) {
			w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 10, Kind: scenarios.FaultPosture, Posture: "maintenance"})
		}, []msg{
			{"m1", "c1", "ann@example.com", "Order ORD-1 late", 1, true},
			{"m2", "c2", "vip@example.com", "Hello", 2, true},
			{"m3", "c3", "Ann@Example.com", "Hi", 3, false},
			{"m4", "c1", "ann@example.com", "Re: Order ORD-1", 20, false},
			{"m5", "c4", "vip@example.com", "Order for a VIP", 21, true},
		}},
		{"thread length and sender history", history, func(w *world) {}, []msg{
			{"d1", "cd1", "dave@example.com", "Refund please", 1, false},
			{"d2", "cd2", "dave@example.com", "Refund for order ORD-2002", 2, true},
			{"c1", "cc", "carol@example.com", "Order ORD-1001", 3, true},
			{"c2", "cc", "carol@example.com", "Re: Order ORD-1001", 4, true},
			{"c3", "cc", "carol@example.com", "Re: Order ORD-1001", 5, true},
			{"c4", "cc", "carol@example.com", "Re: Order ORD-1001", 6, false},
		}},
	} {
		for _, admitAll := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, admit all %v", tc.name, admitAll), func(t *testing.T) {
				readings(t, func(t *testing.T, withLog bool) {
					w := newWorld(t, 2, 40)
					w.b.Rules = tc.rules
					tc.setup(w)
					var want []string
					for _, m := range tc.msgs {
						w.deliver(m.id, m.conv, m.from, m.subject, "", m.at)
						if admitAll {
							w.admit("w-"+m.id, m.id, m.at)
						}
						switch {
						case admitAll && !m.admitted:
							want = append(want, m.id+":unwarranted")
						case !admitAll && m.admitted:
							want = append(want, m.id+":missing")
						}
					}
					level, hist := admissionFindings(t, w, withLog)
					assert.ElementsMatch(t, want, level, "level checker")
					assert.ElementsMatch(t, want, hist, "history oracle")
				})
			})
		}
	}
}
