package fuzz

import (
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// An edge budget is a spec allowance or budget in visited ticks (D1) that
// runs from a harness event; its edge counters say that another event
// landed one tick before its last tick, at it, or one tick past it. They are
// read from the run log, like every counter.
type edgeBudget struct {
	name  string
	ticks int
	what  string // "<event> landed %s ... after <start>"
}

var edgeBudgets = []edgeBudget{
	{"posture_allowance", 5, "a message arrived %s the 5-tick allowance after a posture change"},
	{"rules_allowance", 5, "a message arrived %s the 5-tick allowance after a rules change"},
	{"approval_budget", 5, "a crash landed %s the 5-tick send budget of a valid approval"},
	{"reply_budget", 10, "a crash landed %s the 10-tick reply budget of a message"},
	{"crash_budget", 20, "a crash landed %s the 20-tick resolution budget of an earlier crash"},
	{"state_lag", 2, "a crash landed %s the 2-tick state lag allowance after an AGENT_DEATH"},
}

// Edge sides: the budget's last tick minus one, its last tick, plus one.
var edgeSides = []struct {
	name   string
	offset int
	words  string
}{
	{"before", -1, "one tick before the last tick of"},
	{"at", 0, "at the last tick of"},
	{"past", 1, "one tick past"},
}

// EdgeCounter names the counter of a budget's edge side ("before", "at",
// "past").
func EdgeCounter(budget, side string) string { return "edge_" + budget + "_" + side }

// edgeCounters are the catalogue's last counters, three a budget.
func edgeCounters() []Counter {
	var out []Counter
	for _, b := range edgeBudgets {
		for _, s := range edgeSides {
			out = append(out, Counter{EdgeCounter(b.name, s.name), strings.Replace(b.what, "%s", s.words, 1)})
		}
	}
	return out
}

// edgeWatch keeps the ordinals (visited ticks) at which budgets started.
type edgeWatch struct {
	postures, rulesAt, approvals, messages, crashes, deaths []int
}

func newEdgeWatch() *edgeWatch { return &edgeWatch{} }

func (e *edgeWatch) posture(now int) { e.postures = append(e.postures, now) }
func (e *edgeWatch) rules(now int)   { e.rulesAt = append(e.rulesAt, now) }
func (e *edgeWatch) death(now int)   { e.deaths = append(e.deaths, now) }

// mark marks the sides of a budget that an event at ordinal now sits on,
// for every start of the budget.
func (e *edgeWatch) mark(o *observer, budget string, ticks int, starts []int, now int) {
	for _, s := range edgeSides {
		for _, st := range starts {
			if now-st == ticks+s.offset {
				o.seen.mark(EdgeCounter(budget, s.name))
				break
			}
		}
	}
}

func (e *edgeWatch) deliver(o *observer, now int) {
	e.mark(o, "posture_allowance", 5, e.postures, now)
	e.mark(o, "rules_allowance", 5, e.rulesAt, now)
	e.messages = append(e.messages, now)
}

// approve starts the send budget of a valid, non-stale approve line.
func (e *edgeWatch) approve(o *observer, r sandbox.LogRecord, now int) {
	if r.Forge != "" || r.Decision != scenarios.DecisionApprove {
		return
	}
	if a, ok := o.b.ApprovalByID(r.ID); ok && a.Stale() {
		return
	}
	e.approvals = append(e.approvals, now)
}

func (e *edgeWatch) crash(o *observer, now int) {
	e.mark(o, "approval_budget", 5, e.approvals, now)
	e.mark(o, "reply_budget", 10, e.messages, now)
	e.mark(o, "crash_budget", 20, e.crashes, now)
	e.mark(o, "state_lag", 2, e.deaths, now)
	e.crashes = append(e.crashes, now)
}

// decided is one valid decision on a work item, with the number of crashes
// before it.
type decided struct {
	decision string
	crashes  int
}

// decision reads a valid decision line: an approval of a superseded draft,
// and a second decision on one work item, after which decision, with or
// without a crash between.
func (o *observer) decision(r sandbox.LogRecord, at progress, seen map[string][]decided, crashes int) {
	if r.Forge != "" {
		return
	}
	for _, w := range o.pendingWork(at, nil) {
		if h, ok := w.hash(r.DraftID); !ok || h != r.ContentHash {
			continue
		}
		if r.DraftID != w.latest {
			if r.Decision == scenarios.DecisionApprove {
				o.seen.mark(CStaleApproval)
			}
			return
		}
		for _, d := range seen[w.id] {
			switch {
			case d.decision == scenarios.DecisionReject && r.Decision == scenarios.DecisionApprove:
				o.seen.mark(CRejectThenApprove)
			case d.decision == scenarios.DecisionApprove && r.Decision == scenarios.DecisionReject && !w.sent:
				o.seen.mark(CApproveThenReject)
			}
			if crashes > d.crashes {
				o.seen.mark(CCrashDecisions)
			}
		}
		seen[w.id] = append(seen[w.id], decided{r.Decision, crashes})
		return
	}
}

// sameBodies reads pairs of distinct messages with one sender, subject and
// body, in one conversation and in two.
func (o *observer) sameBodies() {
	type text struct{ from, subject, body string }
	first := map[text]sandbox.Message{}
	for _, l := range o.inbox {
		m := l.Rec
		k := text{m.From, m.Subject, m.Body}
		prev, ok := first[k]
		switch {
		case !ok:
			first[k] = m
		case prev.ID == m.ID:
		case prev.ConversationID == m.ConversationID:
			o.seen.mark(CSameBody)
		default:
			o.seen.mark(CSameBodyElsewhere)
		}
	}
}
