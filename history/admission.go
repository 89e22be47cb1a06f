package history

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Admission is what judging admission (H9) needs beyond the operations: the
// clock's timeline, the admission contexts the bundle schedules, and what
// every message says. Compile takes it from the bundle and inbox.jsonl, and
// history.jsonl carries it in its header, so a history read back judges
// admission the same. It holds the bundle's values as given: every tick is
// as scheduled, and H9 works out what the clock visited itself.
type Admission struct {
	Horizon int              `json:"horizon"`
	Jumps   []Jump           `json:"jumps"`
	Posture string           `json:"posture"`
	Rules   []scenarios.Rule `json:"rules"`
	Changes []Change         `json:"changes"`
	// Messages holds each distinct message of inbox.jsonl (its first
	// line), then each message of the bundle that inbox.jsonl lacks.
	Messages []Message `json:"messages"`
}

// Jump is a scheduled tick jump: the clock goes from At straight to At+By.
type Jump struct {
	At int `json:"at"`
	By int `json:"by"`
}

// Change is a scheduled rules or posture change.
type Change struct {
	At      int              `json:"at"`
	Kind    string           `json:"kind"` // scenarios.FaultPosture or scenarios.FaultRules
	Posture string           `json:"posture,omitempty"`
	Rules   []scenarios.Rule `json:"rules,omitempty"`
	Src     string           `json:"src"`
}

// Message is what a rule may read of one message.
type Message struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	From           string `json:"from"`
	Subject        string `json:"subject"`
	Body           string `json:"body"`
	At             int    `json:"at"`
	Src            string `json:"src"` // inbox.jsonl:N, or bundle:inbox/<id>
}

// admissionOf collects a run's admission material; nil without a bundle.
func admissionOf(in Input, bx *scenarios.Index) *Admission {
	b := in.Bundle
	if b == nil {
		return nil
	}
	a := &Admission{Horizon: b.Meta.Horizon, Posture: b.Mode.Posture, Rules: b.Rules,
		Jumps: []Jump{}, Changes: []Change{}, Messages: []Message{}}
	for i, f := range b.Faults {
		src := fmt.Sprintf("bundle:faults[%d]", i)
		switch f.Kind {
		case scenarios.FaultTickJump:
			a.Jumps = append(a.Jumps, Jump{At: f.At, By: f.By})
		case scenarios.FaultPosture:
			a.Changes = append(a.Changes, Change{At: f.At, Kind: f.Kind, Posture: f.Posture, Src: src})
		case scenarios.FaultRules:
			a.Changes = append(a.Changes, Change{At: f.At, Kind: f.Kind, Rules: f.Rules, Src: src})
		}
	}
	// Only the bundle's messages were delivered, with the bundle's content
	// (D30): an inbox line the bundle does not schedule, or one whose fields
	// were changed, is not what the harness wrote, so it neither asks for an
	// admission nor changes what the rules see. The line still places the
	// message in delivery order.
	seen := map[string]bool{}
	lines, _ := in.Parsed.Inbox(in.Files[sandbox.Inbox])
	for _, l := range lines {
		d, ok := bx.Message(l.Rec.ID)
		if !ok || seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		a.Messages = append(a.Messages, Message{ID: d.ID, ConversationID: d.ConversationID, From: d.From,
			Subject: d.Subject, Body: d.Body, At: d.At, Src: ref(sandbox.Inbox, l.N)})
	}
	for _, d := range b.Inbox {
		if seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		a.Messages = append(a.Messages, Message{ID: d.ID, ConversationID: d.ConversationID, From: d.From,
			Subject: d.Subject, Body: d.Body, At: d.At, Src: "bundle:inbox/" + d.ID})
	}
	return a
}

// --- the clock ---

// ticks lists the ticks the clock visits: 0 to the horizon, where a jump at
// a visited tick a by b goes straight to a+b, and a jump past the horizon
// ends the run at a.
func (a *Admission) ticks() []int {
	// A larger horizon than any bundle may have is read as the limit, so a
	// hostile bundle cannot exhaust memory.
	horizon := min(max(a.Horizon, 0), scenarios.MaxHorizon)
	by := map[int]int{}
	for _, j := range a.Jumps {
		by[j.At] = j.By
	}
	var out []int
	for t := 0; t <= horizon; t++ {
		out = append(out, t)
		if n := by[t]; n > 1 {
			if n > horizon-t {
				break
			}
			t += n - 1
		}
	}
	return out
}

// clock answers questions in visited ticks.
type clock []int

// pos is the number of visited ticks before t: the position of t's visible
// tick, or len when t is after the last visited tick.
func (c clock) pos(t int) int { return sort.SearchInts(c, t) }

// visible is the first visited tick at or after t.
func (c clock) visible(t int) (int, bool) {
	if p := c.pos(t); p < len(c) {
		return c[p], true
	}
	return 0, false
}

// --- admission contexts ---

// context is the rule set and the posture in force.
type context struct {
	rules   []scenarios.Rule
	posture string
}

// landing is the changes that land at one visited tick, in bundle order.
type landing struct {
	tick    int
	changes []Change
}

// schedule is the initial context and the changes in the order they land.
type schedule struct {
	initial  context
	landings []landing
}

func newSchedule(a *Admission, c clock) schedule {
	s := schedule{initial: context{rules: a.Rules, posture: a.Posture}}
	type placed struct {
		tick int
		ch   Change
	}
	var ps []placed
	for _, ch := range a.Changes {
		if t, ok := c.visible(ch.At); ok {
			ps = append(ps, placed{t, ch})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].tick < ps[j].tick })
	for _, p := range ps {
		if n := len(s.landings); n > 0 && s.landings[n-1].tick == p.tick {
			s.landings[n-1].changes = append(s.landings[n-1].changes, p.ch)
			continue
		}
		s.landings = append(s.landings, landing{tick: p.tick, changes: []Change{p.ch}})
	}
	return s
}

// through is the context once the first n landings have happened.
func (s schedule) through(n int) context {
	ctx := s.initial
	for _, l := range s.landings[:n] {
		for _, ch := range l.changes {
			if ch.Kind == scenarios.FaultRules {
				ctx.rules = ch.Rules
			} else {
				ctx.posture = ch.Posture
			}
		}
	}
	return ctx
}

// allowance is how many visited ticks after a change a message may still be
// judged under the context before it (spec §4 L2, "within 5 ticks";
// decision D5).
const allowance = 5

// contexts returns the contexts a message whose visible tick sits at
// position p of the clock may be judged under by a decision made at
// position q (q >= p): the one in force at every position from p to q, and
// the one before each change that landed at most 5 visited ticks before p
// or later, up to q. A message is judged when it arrives or when the
// implementation decides on it, whichever context it follows (D5).
func (s schedule) contexts(c clock, p, q int) []context {
	var out []context
	in := 0 // landings at or before the decision
	for in < len(s.landings) && c.pos(s.landings[in].tick) <= q {
		in++
	}
	for k := 0; k < in; k++ {
		if p-c.pos(s.landings[k].tick) <= allowance {
			out = append(out, s.through(k))
		}
	}
	return append(out, s.through(in))
}

// decidedAt is the clock position an admission decision made at tick t
// stands at for a message visible at position p: the last visited tick by
// t, no earlier than p and no later than the end of the admission budget
// (a decision recorded later is read as made when the budget ended).
func decidedAt(c clock, os []outage, p, t int) int {
	return min(max(c.pos(t+1)-1, p), budgetEnd(c, os, p))
}

// budgetEnd is the clock position at which the admission budget of a
// message visible at position p ends, or the last one when the horizon
// (or an outage that never ends) comes first.
func budgetEnd(c clock, os []outage, p int) int {
	if q, ok := budget(c, os, p, admissionBudget); ok {
		return q
	}
	return len(c) - 1
}

// --- rules ---

// facts is what a rule reads of one message besides the posture. Subject
// and body are held lower-cased: every rule of every context a message is
// judged under reads them, and folding them once per message keeps that
// from costing a copy per rule.
type facts struct {
	subject, body, from string
	thread, sender      int
}

// admits applies docs/rules.md to one message: a rule takes part when it
// has no posture condition or its posture is the one in force; each rule
// that takes part switches off the rules its overrides name; a rule that
// takes part, is not switched off and admits, admits the message when all
// its conditions hold.
func (ctx context) admits(f facts) bool {
	takesPart := make([]bool, len(ctx.rules))
	off := map[string]bool{}
	for i, r := range ctx.rules {
		takesPart[i] = r.When.Posture == nil || *r.When.Posture == ctx.posture
		if takesPart[i] {
			for _, id := range r.Overrides {
				off[id] = true
			}
		}
	}
	for i, r := range ctx.rules {
		if takesPart[i] && r.Admit && !off[r.ID] && ctx.holds(r.When, f) {
			return true
		}
	}
	return false
}

// holds reports whether every present condition holds; an unknown key
// never does.
func (ctx context) holds(c scenarios.Conditions, f facts) bool {
	if len(c.Unknown) > 0 {
		return false
	}
	if c.SubjectContains != nil && !containsLower(f.subject, *c.SubjectContains) {
		return false
	}
	if c.BodyContains != nil && !containsLower(f.body, *c.BodyContains) {
		return false
	}
	if c.FromIn != nil && !contains(*c.FromIn, f.from) {
		return false
	}
	if c.Posture != nil && *c.Posture != ctx.posture {
		return false
	}
	return within(f.thread, c.ThreadLengthMin, c.ThreadLengthMax) &&
		within(f.sender, c.SenderHistoryMin, c.SenderHistoryMax)
}

// containsLower is substring search after Unicode lower-casing both sides,
// as docs/rules.md defines it, for an s that is already lower-cased.
func containsLower(s, sub string) bool {
	return strings.Contains(s, strings.ToLower(sub))
}

// within reports lo <= n <= hi for the bounds that are present.
func within(n int, lo, hi *int) bool {
	return (lo == nil || n >= *lo) && (hi == nil || n <= *hi)
}

// --- H9 ---

// admissionBudget is how soon a message that must be admitted becomes work
// (spec §4 L2, "within 5 ticks").
const admissionBudget = 5

// judgedMessage is one distinct message as delivered.
type judgedMessage struct {
	Message
	op   int // its delivery operation, -1 when the history has none
	tick int // its delivery tick
	// rank orders messages of one tick: those the history delivers in
	// history order, then those known only from inbox.jsonl, then those
	// known only from the bundle.
	rank, seq int
	f         facts
}

// delivered returns the messages in delivery order, with their facts.
// Duplicate deliveries count once: a message is delivered by its first
// deliver operation (its first duplicate one when the history has no
// deliver). A message the history does not deliver (artifacts without
// inbox.jsonl, a line the run log does not list) is placed at its visible
// tick; one of the bundle past the horizon was never delivered.
func delivered(h *History, a *Admission, c clock) []*judgedMessage {
	first := make(map[string]int, len(a.Messages))
	for _, typ := range []OpType{OpDeliver, OpDuplicate} {
		for i := range h.Ops {
			op := &h.Ops[i]
			if _, ok := first[op.MessageID]; op.Type == typ && !ok {
				first[op.MessageID] = i
			}
		}
	}
	// One block holds every judged message, and out has room for all.
	jms := make([]judgedMessage, len(a.Messages))
	out := make([]*judgedMessage, 0, len(a.Messages))
	for seq, m := range a.Messages {
		jm := &jms[seq]
		*jm = judgedMessage{Message: m, op: -1, seq: seq}
		inInbox := strings.HasPrefix(m.Src, sandbox.Inbox+":")
		i, ok := first[m.ID]
		t, visible := c.visible(m.At)
		switch {
		case ok:
			jm.op, jm.tick, jm.seq = i, h.Ops[i].Tick, i
		case visible && inInbox:
			jm.tick, jm.rank = t, 1
		case visible:
			jm.tick, jm.rank = t, 2
		case inInbox:
			jm.tick, jm.rank = m.At, 1
		default:
			continue
		}
		out = append(out, jm)
	}
	slices.SortStableFunc(out, func(x, y *judgedMessage) int {
		if c := cmp.Compare(x.tick, y.tick); c != 0 {
			return c
		}
		if c := cmp.Compare(x.rank, y.rank); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	thread, sender := map[string]int{}, map[string]int{}
	for _, m := range out {
		thread[m.ConversationID]++
		m.f = facts{subject: strings.ToLower(m.Subject), body: strings.ToLower(m.Body), from: m.From,
			thread: thread[m.ConversationID], sender: sender[m.From]}
		sender[m.From]++
	}
	return out
}

// checkAdmission judges H9 over the history's admissions: an admission of
// a message that no context it may be judged under admits (cause
// unwarranted), and a message that every such context admits with no
// admission by the 5th visited tick after its visible tick (cause missing).
// One violation per message and cause. Admissions of messages the run never
// delivered are not H9's question.
func checkAdmission(h *History) []Violation {
	a := h.Admission
	if a == nil {
		return nil
	}
	c := clock(a.ticks())
	s := newSchedule(a, c)
	os := outagesOf(h.Ops)
	admits := make(map[string][]int, len(a.Messages))
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Type == OpAdmit {
			admits[op.MessageID] = append(admits[op.MessageID], i)
		}
	}
	var out []Violation
	for _, m := range delivered(h, a, c) {
		p := c.pos(m.tick)
		must := true
		for _, ctx := range s.contexts(c, p, budgetEnd(c, os, p)) {
			must = must && ctx.admits(m.f)
		}
		if ad := admits[m.ID]; len(ad) > 0 && !admitsAny(s.contexts(c, p, decidedAt(c, os, p, h.Ops[ad[0]].Tick)), m.f) {
			out = append(out, unwarranted(h, m, ad[0]))
		}
		q, judged := budget(c, os, p, admissionBudget)
		if !must || !judged {
			continue
		}
		deadline := c[q]
		if !admittedBy(h, admits[m.ID], deadline) {
			out = append(out, missing(h, m, deadline))
		}
	}
	return out
}

func admitsAny(ctxs []context, f facts) bool {
	for _, ctx := range ctxs {
		if ctx.admits(f) {
			return true
		}
	}
	return false
}

func admittedBy(h *History, admits []int, deadline int) bool {
	for _, i := range admits {
		if h.Ops[i].Tick <= deadline {
			return true
		}
	}
	return false
}

func unwarranted(h *History, m *judgedMessage, admit int) Violation {
	op := h.Ops[admit]
	v := Violation{Invariant: H9Admission, Tick: op.Tick, Ops: []int{admit}, Src: []string{op.Src()},
		WorkID: op.WorkID, MessageID: m.ID, Causes: []string{CauseUnwarranted},
		Detail: fmt.Sprintf("message %s is admitted as %s, but no rules and posture it may be judged under admit it", m.ID, op.WorkID)}
	return m.cite(h, v)
}

func missing(h *History, m *judgedMessage, deadline int) Violation {
	v := Violation{Invariant: H9Admission, Tick: deadline, Ops: []int{}, Src: []string{}, MessageID: m.ID,
		Causes: []string{CauseMissing},
		Detail: fmt.Sprintf("message %s must be admitted under every rules and posture it may be judged by, and is not admitted by tick %d", m.ID, deadline)}
	return m.cite(h, v)
}

// cite adds the message's delivery (or, when the history has none, where
// the message is known from) to a violation's proof.
func (m *judgedMessage) cite(h *History, v Violation) Violation {
	if m.op >= 0 {
		v.Ops = append(v.Ops, m.op)
		v.Src = append(v.Src, h.Ops[m.op].Src())
	} else {
		v.Src = append(v.Src, m.Src)
	}
	return v
}
