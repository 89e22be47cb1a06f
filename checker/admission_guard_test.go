package checker_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/internal/doctored"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// rapidSource lets rapid drive the fault generator.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(s.t, "n")
}

// plannedAdmission is one admission record the admitter writes: at the
// first visited tick at or after tick, with its own at shifted by skew (what
// a judge without the run log reads).
type plannedAdmission struct {
	msg, work  string
	tick, skew int
}

// admitter is an implementation that does nothing but admit: the messages
// its plan names, at the ticks it names, whether or not any rule admits
// them and whether or not they have arrived. It keeps no memory (the audit
// log says what it already wrote), so crashes do not change what it does.
type admitter struct{ plan []plannedAdmission }

func (a *admitter) Step(env *sandbox.Env) error {
	now, err := sandbox.ReadClock(env.Files)
	if err != nil {
		return err
	}
	data, _ := env.Files.Read(sandbox.Audit)
	recs, _ := sandbox.ParseAudit(data)
	written := map[string]bool{}
	for _, l := range recs {
		written[l.Rec.WorkID] = true
	}
	for _, p := range a.plan {
		if p.tick > now || written[p.work] {
			continue
		}
		return sandbox.AppendJSON(env.Files, sandbox.Audit, sandbox.AuditRecord{Event: sandbox.EventAdmission,
			At: max(now+p.skew, 0), WorkID: p.work, MessageID: p.msg, RulesHash: "unchecked-here"})
	}
	return nil
}

// drawRules draws a rule set over every condition key, with overrides,
// postures, bounds that may be empty and, rarely, an unknown key.
func drawRules(t *rapid.T, b *scenarios.Bundle, label string) []scenarios.Rule {
	senders := []string{"vip@example.com", "Ann@Example.com"}
	for _, d := range b.Inbox {
		senders = append(senders, d.From)
	}
	n := rapid.IntRange(1, 4).Draw(t, label+" rules")
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("r%d", i)
	}
	str := func(name string, pool ...string) *string {
		if !rapid.Bool().Draw(t, name) {
			return nil
		}
		s := rapid.SampledFrom(pool).Draw(t, name+" value")
		return &s
	}
	num := func(name string, hi int) *int {
		if rapid.IntRange(0, 2).Draw(t, name) > 0 {
			return nil
		}
		v := rapid.IntRange(0, hi).Draw(t, name+" value")
		return &v
	}
	rules := make([]scenarios.Rule, n)
	for i := range rules {
		c := scenarios.Conditions{
			SubjectContains:  str("subject", "order", "ORDER", "refund", "hello", "late", "ord-"),
			BodyContains:     str("body", "order", "urgent", "refund", "box"),
			Posture:          str("posture", scenarios.Postures...),
			ThreadLengthMin:  num("tl min", 3),
			ThreadLengthMax:  num("tl max", 3),
			SenderHistoryMin: num("sh min", 2),
			SenderHistoryMax: num("sh max", 2),
		}
		if rapid.IntRange(0, 3).Draw(t, "from") == 0 {
			from := rapid.SliceOfNDistinct(rapid.SampledFrom(senders), 0, 3, rapid.ID[string]).Draw(t, "from list")
			c.FromIn = &from
		}
		if rapid.IntRange(0, 19).Draw(t, "unknown") == 0 {
			c.Unknown = map[string]json.RawMessage{"weekday": json.RawMessage(`"monday"`)}
		}
		rules[i] = scenarios.Rule{ID: ids[i], Admit: rapid.IntRange(0, 3).Draw(t, "admit") > 0, When: c,
			Overrides: rapid.SliceOfNDistinct(rapid.SampledFrom(ids), 0, 2, rapid.ID[string]).Draw(t, "overrides")}
	}
	return rules
}

// drawAdmissionBundle draws a generated bundle, then, often, random rule
// sets and extra rules and posture changes, tick 0 included.
func drawAdmissionBundle(t *rapid.T) *scenarios.Bundle {
	preset := rapid.SampledFrom(faults.PresetNames()).Draw(t, "preset")
	p, err := faults.DrawProfile(rapidSource{t}, preset)
	if err != nil {
		t.Fatalf("drawing a profile: %v", err)
	}
	b := faults.Generate(rapidSource{t}, p)
	if rapid.Bool().Draw(t, "random rules") {
		b.Rules = drawRules(t, b, "initial")
		for i := range b.Faults {
			if b.Faults[i].Kind == scenarios.FaultRules {
				b.Faults[i].Rules = drawRules(t, b, "fault")
			}
		}
	}
	last := max(b.Meta.Horizon-faults.Tail, 0)
	for k := rapid.IntRange(0, 3).Draw(t, "extra changes"); k > 0; k-- {
		f := scenarios.Fault{At: rapid.IntRange(0, last).Draw(t, "change at")}
		if rapid.Bool().Draw(t, "posture change") {
			f.Kind, f.Posture = scenarios.FaultPosture, rapid.SampledFrom(scenarios.Postures).Draw(t, "posture")
		} else {
			f.Kind, f.Rules = scenarios.FaultRules, drawRules(t, b, "extra")
		}
		b.Faults = append(b.Faults, f)
	}
	return b
}

// drawPlan admits a random subset of the messages (and a message the
// bundle never delivers) at random ticks: before, at and after their
// arrival, some twice.
func drawPlan(t *rapid.T, b *scenarios.Bundle) []plannedAdmission {
	ids := []string{"ghost"}
	at := map[string]int{"ghost": rapid.IntRange(0, b.Meta.Horizon).Draw(t, "ghost at")}
	for _, d := range b.Inbox {
		ids = append(ids, d.ID)
		at[d.ID] = d.At
	}
	var plan []plannedAdmission
	for _, id := range ids {
		for k := rapid.IntRange(0, 2).Draw(t, "admissions of "+id); k > 0; k-- {
			plan = append(plan, plannedAdmission{msg: id, work: fmt.Sprintf("w-%s-%d", id, k),
				tick: max(at[id]+rapid.IntRange(-3, 9).Draw(t, "delay"), 0), skew: rapid.IntRange(-2, 2).Draw(t, "skew")})
		}
	}
	sort.SliceStable(plan, func(i, j int) bool { return plan[i].tick < plan[j].tick })
	return plan
}

// admissionCounts judges a run both ways and returns the guard's answer to
// the admissions question and the guard itself.
func admissionCounts(t *rapid.T, b *scenarios.Bundle, files map[string][]byte, log []sandbox.LogRecord) (checker.Answer, checker.GuardResult) {
	lv := checker.Check(checker.Input{Bundle: b, Files: files, Log: log})
	hv := history.Check(history.Compile(history.Input{Bundle: b, Files: files, Log: log}))
	g := checker.Guard(lv, hv)
	for _, a := range g.Compared {
		if a.Question == "admissions" {
			return a, g
		}
	}
	t.Fatalf("admissions not compared: %+v", g)
	return checker.Answer{}, g
}

// Over generated bundles with random rules, posture and rules changes, and
// an implementation that admits a random subset of messages at random
// ticks, the level checker's L2 admission violations and the history
// oracle's H9 count the same thing: with the run log, without it, with
// admission lines the run log does not account for, and with messages
// missing from inbox.jsonl.
func TestAdmissionCountsAgreeOnGeneratedRuns(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		b := drawAdmissionBundle(t)
		plan := drawPlan(t, b)
		res, err := sim.Run(b, func() sandbox.Implementation { return &admitter{plan: plan} },
			sim.Options{Seed: rapid.Uint64().Draw(t, "seed")})
		require.NoError(t, err)
		files := res.Files.Files()

		for _, log := range [][]sandbox.LogRecord{res.Log, nil} {
			a, g := admissionCounts(t, b, files, log)
			require.Equal(t, a.Level, a.History, "log %v: %s\nlevel %v\nhistory %v", log != nil, g, a.LevelEvidence, a.HistoryEvidence)
			require.True(t, g.Agree, "log %v: %s", log != nil, g)
			seen[fmt.Sprintf("log %v, count>0 %v", log != nil, a.Level > 0)]++
		}

		// Admission lines appended after the run: the run log counts none
		// of them, so they happened at its end; without it, at their own at.
		late := cloneFiles(files)
		for k := rapid.IntRange(0, 3).Draw(t, "late lines"); k > 0 && len(b.Inbox) > 0; k-- {
			d := rapid.SampledFrom(b.Inbox).Draw(t, "late message")
			line, err := sandbox.MarshalLine(sandbox.AuditRecord{Event: sandbox.EventAdmission, At: rapid.IntRange(0, b.Meta.Horizon).Draw(t, "late at"),
				WorkID: fmt.Sprintf("late-%d", k), MessageID: d.ID, RulesHash: "x"})
			require.NoError(t, err)
			late[sandbox.Audit] = append(late[sandbox.Audit], append(line, '\n')...)
		}
		for _, log := range [][]sandbox.LogRecord{res.Log, nil} {
			a, g := admissionCounts(t, b, late, log)
			require.Equal(t, a.Level, a.History, "late lines, log %v: %s\nlevel %v\nhistory %v", log != nil, g, a.LevelEvidence, a.HistoryEvidence)
		}

		// Another harness's artifacts: no run log, and inbox lines lost.
		lost := cloneFiles(files)
		lost[sandbox.Inbox] = dropLines(t, lost[sandbox.Inbox])
		a, g := admissionCounts(t, b, lost, nil)
		require.Equal(t, a.Level, a.History, "lost inbox lines: %s\nlevel %v\nhistory %v", g, a.LevelEvidence, a.HistoryEvidence)
		if a.Level > 0 {
			seen["lost inbox lines, count>0"]++
		}

		// Another harness that stamps deliveries with the tick it made
		// them (D35): some inbox lines carry a later at.
		late = cloneFiles(files)
		late[sandbox.Inbox] = delayLines(t, late[sandbox.Inbox], b.Meta.Horizon)
		a, g = admissionCounts(t, b, late, nil)
		require.Equal(t, a.Level, a.History, "late-stamped inbox lines: %s\nlevel %v\nhistory %v", g, a.LevelEvidence, a.HistoryEvidence)
	})
	for _, k := range []string{"log true, count>0 true", "log false, count>0 true", "log true, count>0 false", "lost inbox lines, count>0"} {
		assert.Positive(t, seen[k], "no generated run had %q: the property was not exercised", k)
	}
}

func cloneFiles(files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for k, v := range files {
		out[k] = append([]byte(nil), v...)
	}
	return out
}

// dropLines removes a random subset of a file's lines.
func dropLines(t *rapid.T, data []byte) []byte {
	var out []byte
	start := 0
	for i, c := range data {
		if c != '\n' {
			continue
		}
		if !rapid.Bool().Draw(t, "drop line") {
			out = append(out, data[start:i+1]...)
		}
		start = i + 1
	}
	return out
}

// delayLines moves the at of a random subset of inbox lines to a later tick,
// at most the horizon.
func delayLines(t *rapid.T, data []byte, horizon int) []byte {
	lines, _ := sandbox.ParseInbox(data)
	var out []byte
	for _, l := range lines {
		m := l.Rec
		if m.At < horizon && rapid.Bool().Draw(t, "stamp late") {
			m.At = rapid.IntRange(m.At+1, horizon).Draw(t, "stamped at")
		}
		line, err := sandbox.MarshalLine(m)
		require.NoError(t, err)
		out = append(append(out, line...), '\n')
	}
	return out
}

// A doctored evaluator of admission on either side is caught: l2-govern
// changes the posture twice, and the guard sees the side that forgot it
// count differently, on the admissions question alone.
func TestGuardCatchesAnEvaluatorThatForgetsPosture(t *testing.T) {
	b := bundle(t, "l2-govern")
	for _, impl := range []string{"reference", "weak-ignore-posture"} {
		im, ok := examples.Lookup(impl)
		require.True(t, ok)
		res, err := sim.Run(b, im.New, sim.Options{Seed: 1})
		require.NoError(t, err)
		for _, log := range [][]sandbox.LogRecord{res.Log, nil} {
			in := checker.Input{Bundle: b, Files: res.Files.Files(), Log: log}
			h := history.Compile(history.Input{Bundle: b, Files: in.Files, Log: log})
			lv, hv := checker.Check(in), history.Check(h)
			require.True(t, checker.Guard(lv, hv).Agree, "%s, log %v: the real oracles agree", impl, log != nil)

			doctoredLevel := checker.Check(checker.Input{Bundle: doctored.WithoutPosture(b), Files: in.Files, Log: log})
			for side, g := range map[string]checker.GuardResult{
				"level":   checker.Guard(doctoredLevel, hv),
				"history": checker.Guard(lv, doctored.HistoryForgetsPosture(h)),
			} {
				require.False(t, g.Agree, "%s, log %v, doctored %s side", impl, log != nil, side)
				require.Len(t, g.Diffs, 1, "%s", g)
				assert.Equal(t, "admissions", g.Diffs[0].Question)
			}
		}
	}
}
