package history

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// run builds another harness's artifacts by hand (no run log): a bundle,
// inbox.jsonl as delivered and the admissions an implementation wrote.
type run struct {
	t     *testing.T
	b     *scenarios.Bundle
	inbox []byte
	audit []byte
	works int
}

func newRun(t *testing.T, horizon int, rules ...scenarios.Rule) *run {
	b := &scenarios.Bundle{Format: scenarios.Format, Meta: scenarios.Meta{Name: "l2-test", TopLevel: 2, Horizon: horizon},
		Fleet: []string{"agent-1"}, Mode: scenarios.Mode{Posture: "normal"}, Rules: rules}
	return &run{t: t, b: b}
}

func (r *run) line(dst *[]byte, v any) {
	l, err := sandbox.MarshalLine(v)
	require.NoError(r.t, err)
	*dst = append(append(*dst, l...), '\n')
}

// msg schedules a message and delivers it (at its own tick; a tick inside
// a jump is left to the history to place).
func (r *run) msg(id, conv, from, subject, body string, at int) *run {
	d := scenarios.Delivery{ID: id, ConversationID: conv, From: from, Subject: subject, Body: body, At: at}
	r.b.Inbox = append(r.b.Inbox, d)
	r.line(&r.inbox, sandbox.Message(d))
	return r
}

// unsent schedules a message that inbox.jsonl lacks.
func (r *run) unsent(id, conv, from, subject string, at int) *run {
	r.b.Inbox = append(r.b.Inbox, scenarios.Delivery{ID: id, ConversationID: conv, From: from, Subject: subject, At: at})
	return r
}

// again appends a message's inbox line once more (a duplicate delivery).
func (r *run) again(id string, at int) *run {
	d, ok := r.b.Message(id)
	require.True(r.t, ok)
	r.b.Faults = append(r.b.Faults, scenarios.Fault{At: at, Kind: scenarios.FaultDuplicate, MessageID: id})
	r.line(&r.inbox, sandbox.Message(d))
	return r
}

func (r *run) admit(msg string, at int) *run {
	r.works++
	r.line(&r.audit, sandbox.AuditRecord{Event: sandbox.EventAdmission, At: at, WorkID: fmt.Sprintf("w%d", r.works),
		MessageID: msg, RulesHash: "h"})
	return r
}

func (r *run) posture(at int, p string) *run {
	r.b.Faults = append(r.b.Faults, scenarios.Fault{At: at, Kind: scenarios.FaultPosture, Posture: p})
	return r
}

func (r *run) rules(at int, rules ...scenarios.Rule) *run {
	r.b.Faults = append(r.b.Faults, scenarios.Fault{At: at, Kind: scenarios.FaultRules, Rules: rules})
	return r
}

func (r *run) jump(at, by int) *run {
	r.b.Faults = append(r.b.Faults, scenarios.Fault{At: at, Kind: scenarios.FaultTickJump, By: by})
	return r
}

func (r *run) history() *History {
	return Compile(Input{Bundle: r.b, Files: map[string][]byte{sandbox.Inbox: r.inbox, sandbox.Audit: r.audit}})
}

// h9 returns the H9 violations by message id: their cause and tick.
func (r *run) h9() map[string]string {
	out := map[string]string{}
	for _, v := range Check(r.history()).Violations {
		if v.Invariant == H9Admission {
			require.Len(r.t, v.Causes, 1)
			out[v.MessageID] = fmt.Sprintf("%s@%d", v.Causes[0], v.Tick)
		}
	}
	return out
}

func sp(s string) *string { return &s }
func ip(n int) *int       { return &n }

// The rule set and the messages of docs/rules.md's first worked example.
func workedRules() []scenarios.Rule {
	return []scenarios.Rule{
		{ID: "orders", Admit: true, When: scenarios.Conditions{SubjectContains: sp("order")}},
		{ID: "vip", Admit: true, When: scenarios.Conditions{FromIn: &[]string{"vip@example.com"}}},
		{ID: "freeze", When: scenarios.Conditions{Posture: sp("maintenance")}, Overrides: []string{"orders"}},
	}
}

func workedRun(t *testing.T) *run {
	return newRun(t, 60, workedRules()...).
		msg("m1", "c1", "ann@example.com", "Order ORD-1 late", "", 1).
		msg("m2", "c2", "vip@example.com", "Hello", "", 2).
		msg("m3", "c3", "Ann@Example.com", "Hi", "", 3).
		posture(10, "maintenance").
		msg("m4", "c1", "ann@example.com", "Re: Order ORD-1", "", 20).
		msg("m5", "c4", "vip@example.com", "Order for a VIP", "", 21)
}

// docs/rules.md, worked examples: admitting what the table admits is
// clean, admitting anything else is unwarranted, and leaving out what it
// admits is missing, 5 visited ticks after the message.
func TestAdmissionWorkedExample(t *testing.T) {
	admitted := map[string]bool{"m1": true, "m2": true, "m3": false, "m4": false, "m5": true}
	none := workedRun(t)
	want := map[string]string{}
	for id, ok := range admitted {
		d, _ := none.b.Message(id)
		if ok {
			want[id] = fmt.Sprintf("missing@%d", d.At+5)
		}
	}
	assert.Equal(t, want, none.h9(), "nothing admitted")

	all := workedRun(t)
	want = map[string]string{}
	for id, ok := range admitted {
		d, _ := all.b.Message(id)
		all.admit(id, d.At)
		if !ok {
			want[id] = fmt.Sprintf("unwarranted@%d", d.At)
		}
	}
	assert.Equal(t, want, all.h9(), "everything admitted")

	right := workedRun(t).admit("m1", 1).admit("m2", 6).admit("m5", 26)
	assert.Empty(t, right.h9(), "the table's admissions, the last ones on the 5th tick")
}

// docs/rules.md: dave's refund needs a history, carol's fourth order
// message is one too many for the thread.
func TestAdmissionThreadLengthAndSenderHistory(t *testing.T) {
	rules := []scenarios.Rule{
		{ID: "returning-refund", Admit: true, When: scenarios.Conditions{SubjectContains: sp("refund"), SenderHistoryMin: ip(1)}},
		{ID: "short-order-thread", Admit: true, When: scenarios.Conditions{SubjectContains: sp("order"), ThreadLengthMax: ip(3)}},
	}
	r := newRun(t, 60, rules...).
		msg("d1", "cd1", "dave@example.com", "Refund please", "", 1).
		msg("d2", "cd2", "dave@example.com", "Refund for order ORD-2002", "", 2).
		msg("c1", "cc", "carol@example.com", "Order ORD-1001", "", 3).
		again("c1", 4). // a duplicate is not a second message of the thread
		msg("c2", "cc", "carol@example.com", "Re: Order ORD-1001", "", 5).
		msg("c3", "cc", "carol@example.com", "Re: Order ORD-1001", "", 6).
		msg("c4", "cc", "carol@example.com", "Re: Order ORD-1001", "", 7)
	for _, id := range []string{"d1", "d2", "c1", "c2", "c3", "c4"} {
		d, _ := r.b.Message(id)
		r.admit(id, d.At)
	}
	assert.Equal(t, map[string]string{"d1": "unwarranted@1", "c4": "unwarranted@7"}, r.h9())
}

// Each condition key, and how rules take part, switch each other off and
// admit (docs/rules.md, Evaluation and Conditions).
func TestAdmissionConditions(t *testing.T) {
	unknown := scenarios.Conditions{SubjectContains: sp("order"), Unknown: map[string]json.RawMessage{"weekday": json.RawMessage(`"monday"`)}}
	for _, tc := range []struct {
		name    string
		rules   []scenarios.Rule
		from    string
		subject string
		admit   bool
	}{
		{"subject, any case", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{SubjectContains: sp("ORDER")}}}, "x@y", "an order", true},
		{"subject, Unicode lower case", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{SubjectContains: sp("ÉTÉ")}}}, "x@y", "un été", true},
		{"subject absent", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{SubjectContains: sp("order")}}}, "x@y", "hello", false},
		{"body", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{BodyContains: sp("BOX")}}}, "x@y", "s", true},
		{"from_in is exact", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{FromIn: &[]string{"X@y"}}}}, "x@y", "s", false},
		{"from_in matches", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{FromIn: &[]string{"z@y", "x@y"}}}}, "x@y", "s", true},
		{"from_in empty never matches", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{FromIn: &[]string{}}}}, "x@y", "s", false},
		{"no conditions always hold", []scenarios.Rule{{ID: "a", Admit: true}}, "x@y", "s", true},
		{"admit false admits nothing", []scenarios.Rule{{ID: "a"}}, "x@y", "s", false},
		{"thread_length_max 0 never holds", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{ThreadLengthMax: ip(0)}}}, "x@y", "s", false},
		{"thread_length_min 1 always holds", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{ThreadLengthMin: ip(1)}}}, "x@y", "s", true},
		{"sender_history_max 0 holds for a first-time sender", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{SenderHistoryMax: ip(0)}}}, "x@y", "s", true},
		{"sender_history_min 1 fails a first-time sender", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{SenderHistoryMin: ip(1)}}}, "x@y", "s", false},
		{"posture in force engages", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{Posture: sp("normal")}}}, "x@y", "s", true},
		{"another posture disengages", []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{Posture: sp("vip-only")}}}, "x@y", "s", false},
		{"an unknown key never matches", []scenarios.Rule{{ID: "a", Admit: true, When: unknown}}, "x@y", "an order", false},
		{"an unknown key still overrides", []scenarios.Rule{{ID: "a", When: unknown, Overrides: []string{"b"}}, {ID: "b", Admit: true}}, "x@y", "s", false},
		{"an engaged rule overrides though its conditions fail", []scenarios.Rule{{ID: "a", When: scenarios.Conditions{SubjectContains: sp("zzz")}, Overrides: []string{"b"}}, {ID: "b", Admit: true}}, "x@y", "s", false},
		{"a disengaged rule does not override", []scenarios.Rule{{ID: "a", When: scenarios.Conditions{Posture: sp("maintenance")}, Overrides: []string{"b"}}, {ID: "b", Admit: true}}, "x@y", "s", true},
		{"no deny wins: another admitting rule admits", []scenarios.Rule{{ID: "a", Overrides: []string{"b"}}, {ID: "b", Admit: true}, {ID: "c", Admit: true}}, "x@y", "s", true},
		{"a rule overriding itself never admits", []scenarios.Rule{{ID: "a", Admit: true, Overrides: []string{"a"}}}, "x@y", "s", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, 30, tc.rules...)
			r.msg("m1", "c1", tc.from, tc.subject, "the box", 1).admit("m1", 1)
			if tc.admit {
				assert.Empty(t, r.h9())
			} else {
				assert.Equal(t, map[string]string{"m1": "unwarranted@1"}, r.h9())
			}
		})
	}
}

// Decision D5: within 5 visited ticks of a change a message may be judged
// under the context before it or after it; an admission is warranted if
// either admits it and required only if both do.
func TestAdmissionAllowance(t *testing.T) {
	gated := []scenarios.Rule{{ID: "a", Admit: true, When: scenarios.Conditions{Posture: sp("normal")}}}
	for _, tc := range []struct {
		name   string
		at     int
		admit  bool
		change func(*run)
		want   string // "" clean, else the cause and tick
	}{
		{"before the change, decided after it inside the budget: not required", 9, false, nil, ""},
		{"before the change, its budget over by then: required", 4, false, nil, "missing@9"},
		{"at the change, admitted", 10, true, nil, ""},
		{"at the change, not required", 10, false, nil, ""},
		{"5th tick after, admitted", 15, true, nil, ""},
		{"6th tick after, unwarranted", 16, true, nil, "unwarranted@16"},
		{"a change at tick 0 keeps the initial context for 5 ticks", 5, true,
			func(r *run) { r.b.Faults = r.b.Faults[:0]; r.posture(0, "maintenance") }, ""},
		{"and not for 6", 6, true,
			func(r *run) { r.b.Faults = r.b.Faults[:0]; r.posture(0, "maintenance") }, "unwarranted@6"},
		{"a jump does not eat the allowance", 32, true, func(r *run) { r.jump(11, 19) }, ""},
		{"the allowance counts visited ticks", 35, true, func(r *run) { r.jump(11, 19) }, "unwarranted@35"},
		{"a change inside a jump lands at its end", 30, true,
			func(r *run) { r.b.Faults = r.b.Faults[:0]; r.jump(5, 20); r.posture(10, "maintenance") }, ""},
		{"and its allowance runs from there", 31, true,
			func(r *run) { r.b.Faults = r.b.Faults[:0]; r.jump(5, 20); r.posture(10, "maintenance") }, "unwarranted@31"},
		{"a second change: the first one's old context still counts", 14, true,
			func(r *run) {
				r.rules(12, scenarios.Rule{ID: "b", Admit: true, When: scenarios.Conditions{SubjectContains: sp("zzz")}})
			}, ""},
		{"a second change: required only if all three contexts admit", 13, false,
			func(r *run) { r.b.Faults = r.b.Faults[:0]; r.posture(10, "vip-only"); r.posture(12, "normal") }, ""},
		{"changes at one tick are one change: no mixed context", 11, true,
			func(r *run) {
				r.b.Faults = r.b.Faults[:0]
				r.posture(10, "maintenance")
				r.rules(10, scenarios.Rule{ID: "m", Admit: true, When: scenarios.Conditions{Posture: sp("normal"), SubjectContains: sp("zzz")}})
			}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, 60, gated...).posture(10, "maintenance")
			if tc.change != nil {
				tc.change(r)
			}
			r.msg("m1", "c1", "x@y", "s", "", tc.at)
			if tc.admit {
				r.admit("m1", tc.at)
			}
			got := r.h9()
			if tc.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, map[string]string{"m1": tc.want}, got)
			}
		})
	}
}

// Spec §4 L2: "every admission traceable to the rules version … and posture
// in force when it happened". A decision may be made at any tick of the
// message's admission budget, under the rules in force when it arrived or
// when it was made (D5). Orders are admitted until tick 10, then refunds.
func TestAdmissionDecidedWithinBudget(t *testing.T) {
	orders := scenarios.Rule{ID: "orders", Admit: true, When: scenarios.Conditions{SubjectContains: sp("order")}}
	refunds := scenarios.Rule{ID: "refunds", Admit: true, When: scenarios.Conditions{SubjectContains: sp("refund")}}
	for _, tc := range []struct {
		name      string
		subject   string
		at, admit int // admit 0: none
		want      string
	}{
		{"a refund before the change, admitted after it", "Refund", 8, 10, ""},
		{"the same, admitted before the change", "Refund", 8, 9, "unwarranted@9"},
		{"the same, admitted after its budget", "Refund", 4, 10, "unwarranted@10"},
		{"an order before the change, declined", "Order", 8, 0, ""},
		{"an order whose budget ends before the change, declined", "Order", 4, 0, "missing@9"},
		{"an order before the change, admitted after it", "Order", 8, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, 40, orders).rules(10, refunds).msg("m1", "c1", "x@y", tc.subject, "", tc.at)
			if tc.admit > 0 {
				r.admit("m1", tc.admit)
			}
			got := r.h9()
			if tc.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, map[string]string{"m1": tc.want}, got)
			}
		})
	}
}

// Spec §4 L2 "within 5 ticks", in visited ticks (decision D1).
func TestAdmissionDeadline(t *testing.T) {
	always := scenarios.Rule{ID: "a", Admit: true}
	assert.Empty(t, newRun(t, 30, always).msg("m1", "c", "x", "s", "", 3).admit("m1", 8).h9(), "on the 5th tick")
	assert.Equal(t, map[string]string{"m1": "missing@8"},
		newRun(t, 30, always).msg("m1", "c", "x", "s", "", 3).admit("m1", 9).h9(), "on the 6th")
	assert.Empty(t, newRun(t, 40, always).jump(5, 20).msg("m1", "c", "x", "s", "", 4).admit("m1", 28).h9(),
		"after a jump from 5 to 25, the 5th visited tick after 4 is 28")
	assert.Empty(t, newRun(t, 7, always).msg("m1", "c", "x", "s", "", 3).h9(), "a budget the horizon cuts is not judged")
	assert.Equal(t, map[string]string{"m1": "missing@8"}, newRun(t, 8, always).msg("m1", "c", "x", "s", "", 3).h9(),
		"a budget ending on the horizon is")
}

// Decision D6: facts come from the inbox as delivered; a message missing
// from it is placed at its visible tick.
func TestAdmissionDeliveries(t *testing.T) {
	first := scenarios.Rule{ID: "first", Admit: true, When: scenarios.Conditions{ThreadLengthMax: ip(1)}}

	r := newRun(t, 30, first).unsent("m1", "c", "x", "s", 2).msg("m2", "c", "x", "s", "", 3).admit("m1", 2).admit("m2", 3)
	assert.Equal(t, map[string]string{"m2": "unwarranted@3"}, r.h9(), "the message inbox.jsonl lacks still opened the thread")

	r = newRun(t, 30, first).msg("m1", "c", "x", "s", "", 2).again("m1", 3).admit("m1", 4).admit("m1", 5)
	assert.Empty(t, r.h9(), "a duplicate delivery and a second admission change nothing")

	r = newRun(t, 30, first).msg("m1", "c", "x", "s", "", 2).admit("m1", 2).admit("m1", 3)
	r.b.Rules = []scenarios.Rule{{ID: "none"}}
	assert.Equal(t, map[string]string{"m1": "unwarranted@2"}, r.h9(), "one violation per message, at its first admission")

	r = newRun(t, 30, first).admit("ghost", 2)
	assert.Empty(t, r.h9(), "an admission of a message never delivered is not H9's question")

	r = newRun(t, 10, first).unsent("m1", "c", "x", "s", 12).admit("m1", 3)
	assert.Empty(t, r.h9(), "a bundle message past the horizon was never delivered")
}

// The admission material travels in history.jsonl's header, so a history
// read back judges H9 the same.
func TestAdmissionReadBack(t *testing.T) {
	h := workedRun(t).admit("m3", 3).history()
	back, err := Parse(h.Bytes())
	require.NoError(t, err)
	require.Equal(t, h.Admission, back.Admission)
	v := Check(back)
	assert.Equal(t, Check(h), v)
	assert.Equal(t, 4, v.Counts[H9Admission], "m3 unwarranted, m1, m2 and m5 missing")
}

// Decision D2: with a run log an implementation's own timestamps are never
// its time. An admission line no tick_end counts was seen only when the run
// ended: it happened at the last tick the run log closed, too late here.
func TestAdmissionTheRunLogDoesNotCount(t *testing.T) {
	r := newRun(t, 30, scenarios.Rule{ID: "a", Admit: true}).msg("m1", "c", "x", "s", "", 1).admit("m1", 2)
	log := []sandbox.LogRecord{{Kind: sandbox.LogTickEnd, Tick: 0}}
	for tick := 1; tick <= 12; tick++ {
		if tick == 1 {
			log = append(log, sandbox.LogRecord{Kind: sandbox.LogDeliver, Tick: 1, ID: "m1", Line: 1})
		}
		log = append(log, sandbox.LogRecord{Kind: sandbox.LogTickEnd, Tick: tick, Lines: map[string]int{sandbox.Inbox: 1}})
	}
	h := Compile(Input{Bundle: r.b, Files: map[string][]byte{sandbox.Inbox: r.inbox, sandbox.Audit: r.audit}, Log: log})
	var admit Op
	for _, op := range h.Ops {
		if op.Type == OpAdmit {
			admit = op
		}
	}
	assert.Equal(t, 12, admit.Tick)
	assert.True(t, admit.Approximate)
	v := Check(h)
	require.Len(t, v.Violations, 1)
	assert.Equal(t, []string{CauseMissing}, v.Violations[0].Causes)
	assert.Equal(t, 6, v.Violations[0].Tick)
	assert.Empty(t, r.h9(), "without the run log the line's own at is all there is")
}

// The history oracle evaluates admission itself: no file of the package
// imports the level checker or calls the scenarios evaluator, which the
// level checker, the generator and the reference share.
func TestAdmissionIsEvaluatedIndependently(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			assert.NotContains(t, imp.Path.Value, "/checker", name)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "Admitted", "Matches":
					t.Errorf("%s: %s calls %s", name, fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
