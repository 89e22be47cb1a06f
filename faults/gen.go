package faults

import (
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/scenarios"
)

// Tail is the quiet liveness phase that ends every generated bundle: no
// event is scheduled in its ticks, so every liveness budget (5, 10 and 20
// ticks, docs/decisions.md D12) that started in the safety phase ends
// before the horizon and is judged.
const Tail = 30

// Limits that keep generated bundles small, so runs stay fast and a
// counterexample stays readable.
const (
	maxMessages = 12
	maxCrashes  = 6
	maxJumps    = 2
)

// Generate draws one bundle under profile p: a safety phase in which the
// profile's faults strike, then Tail quiet ticks. The bundle is valid
// (scenarios.Validate reports no error) and normalized; its name is
// "l6-fuzz" and its top level 6, so every level is judged.
func Generate(src Source, p Profile) *scenarios.Bundle {
	g := &generator{d: draw{src}, p: p}
	g.fleet()
	g.anchors()
	g.conversations()
	g.messages()
	g.sameBodies()
	g.regimes()
	g.changeEdges()
	g.approvals()
	g.staleApprovals()
	g.redecisions()
	g.signals()
	g.duplicates()
	g.edgeDuplicates()
	g.crashes()
	g.sendCrashes()
	g.budgetEdges()
	g.downtimes()
	g.tornWrites()
	g.jumps()
	b := g.bundle()
	g.staleStamps(b)
	g.modelFailures(b)
	return b
}

type generator struct {
	d     draw
	p     Profile
	rates map[string]int // kind -> its rate in p, made at the first ask

	agents    []string
	anchorSet []string
	customers int
	convs     []*conversation
	msgs      []*message
	posture   string
	recipe    recipe
	faults    []scenarios.Fault
	apps      []scenarios.Approval
	sigs      []scenarios.Signal
	// decided maps a message id to its real approval's tick, when it has one.
	decided map[string]int
	// eligibleIDs are the messages that get approvals and signals.
	eligibleIDs map[string]bool
	// edge is what the threshold edges add (see thresholds.go).
	edge edges
}

type conversation struct {
	id      string
	from    string
	anchor  string
	topic   topic
	subject string
	body    string
}

type message struct {
	id      string
	conv    *conversation
	at      int
	subject string
	body    string
}

// topic is what a conversation is about. Subjects without {A} let two
// conversations about different orders share a subject exactly.
type topic struct {
	subject, body           string // {A} is the anchor
	plainSubject, plainBody string // for a thread that names no order
}

var topics = []topic{
	{"Order {A} is late", "Hello, order {A} was due last week.", "Order is late", "Hello, my order was due last week."},
	{"Order delivery problem", "The delivery of order {A} is late.", "Order delivery problem", "The delivery of my order is late."},
	{"Order arrived damaged", "My order {A} arrived damaged, the box was crushed.", "Order arrived damaged", "My order arrived damaged."},
	{"Refund for order {A}", "Please refund order {A}.", "Refund for my order", "Please refund my order."},
	{"Question about order {A}", "Where is order {A} now?", "Question about my order", "Where is my order now?"},
}

// stray topics fall outside or at the edges of the rules: off-topic, a
// refund that only a returning customer gets, an urgent body.
var strays = []topic{
	{plainSubject: "Hello", plainBody: "Just saying hello."},
	{plainSubject: "Refund please", plainBody: "I would like a refund."},
	{plainSubject: "Account locked", plainBody: "This is urgent, I cannot log in."},
	{plainSubject: "Newsletter", plainBody: "Please unsubscribe me."},
}

var names = []string{"ann", "bob", "cai", "dee", "eli", "fay", "gus", "hal", "ivy", "jon", "kim", "lou"}

const vipAddress = "vip@example.com"

// rate is g.p.Rate, looked up in a map made once: the generator asks about
// every kind many times, and Rate scans the profile's list.
func (g *generator) rate(kind string) int {
	if g.rates == nil {
		g.rates = make(map[string]int, len(g.p.Rates))
		for _, r := range g.p.Rates {
			if _, ok := g.rates[r.Kind]; !ok { // Rate answers the first
				g.rates[r.Kind] = r.PerMille
			}
		}
	}
	return g.rates[kind]
}

func (g *generator) on(kind string) bool { return g.rate(kind) > 0 }

func (g *generator) fleet() {
	n := max(g.p.Fleet, 1)
	for i := 1; i <= n; i++ {
		g.agents = append(g.agents, fmt.Sprintf("agent-%d", i))
	}
}

// anchors draws distinct order numbers of four digits each, so no anchor
// contains another: the stub matches anchors as substrings.
func (g *generator) anchors() {
	n := max(g.p.Conversations, 1) + g.d.between(1, 2)
	taken := map[int]bool{}
	for range n {
		v := 1000 + g.d.intn(9000)
		for taken[v] {
			v = 1000 + (v-1000+1)%9000
		}
		taken[v] = true
		g.anchorSet = append(g.anchorSet, fmt.Sprintf("ORD-%d", v))
	}
}

func (g *generator) newCustomer() string {
	name := names[g.customers%len(names)]
	g.customers++
	return name + "@example.com"
}

// conversations draws each thread's customer, order and topic. Anchor
// collisions reuse an earlier thread's customer with another order;
// same-subject threads reuse an earlier thread's exact subject.
func (g *generator) conversations() {
	free := append([]string(nil), g.anchorSet...)
	for i := range max(g.p.Conversations, 1) {
		c := &conversation{id: fmt.Sprintf("c%d", i+1)}
		switch {
		case i > 0 && g.on(AnchorCollision) && g.d.chance(g.rate(AnchorCollision)):
			c.from = pick(g.d, g.convs).from
		case g.on(RuleEdges) && g.d.chance(g.rate(RuleEdges)/4):
			c.from = vipAddress
		default:
			c.from = g.newCustomer()
		}
		if !g.d.chance(150) || g.on(AnchorCollision) {
			k := g.d.intn(len(free))
			c.anchor = free[k]
			free = append(free[:k], free[k+1:]...)
		}
		c.topic = pick(g.d, topics)
		if i > 0 && g.on(SameSubject) && g.d.chance(g.rate(SameSubject)) {
			other := pick(g.d, g.convs)
			if strings.Contains(other.topic.subject, "{A}") {
				other.topic = topics[1+g.d.intn(2)] // a subject without the anchor
			}
			c.topic = other.topic
		}
		g.convs = append(g.convs, c)
	}
	for _, c := range g.convs {
		c.subject, c.body = c.topic.render(c.anchor)
	}
}

func (t topic) render(anchor string) (string, string) {
	if anchor == "" {
		return t.plainSubject, t.plainBody
	}
	return strings.ReplaceAll(t.subject, "{A}", anchor), strings.ReplaceAll(t.body, "{A}", anchor)
}

// messages lays out each thread: a first message early, then follow-ups at
// short gaps or long ones (up to the 50-tick follow-up of L1), and, at the
// rules' edges, stray messages in threads of their own.
func (g *generator) messages() {
	var msgs []*message
	for _, c := range g.convs {
		t := g.d.between(1, 12)
		msgs = append(msgs, &message{conv: c, at: t, subject: c.subject, body: c.body})
		if !g.on(FollowUp) {
			continue
		}
		for k := 0; k < 3 && g.d.chance(g.rate(FollowUp)); k++ {
			gap := g.d.between(1, 6)
			if g.d.chance(350) {
				gap = g.d.between(20, 50)
			}
			t += gap
			msgs = append(msgs, &message{conv: c, at: t, subject: "Re: " + c.subject, body: g.followUpBody(c)})
		}
	}
	if g.on(RuleEdges) {
		for k := 0; k < 2 && g.d.chance(g.rate(RuleEdges)); k++ {
			c := &conversation{id: fmt.Sprintf("c%d", len(g.convs)+1), topic: pick(g.d, strays)}
			switch g.d.intn(3) {
			case 0:
				c.from = g.newCustomer()
			case 1:
				c.from = pick(g.d, g.convs).from // a returning sender
			default:
				c.from = vipAddress
			}
			c.subject, c.body = c.topic.render("")
			g.convs = append(g.convs, c)
			msgs = append(msgs, &message{conv: c, at: g.d.between(1, 20), subject: c.subject, body: c.body})
		}
	}
	edge := g.edgeMessages()
	if len(msgs) > maxMessages-len(edge) {
		msgs = msgs[:maxMessages-len(edge)]
	}
	msgs = append(msgs, edge...)
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].at < msgs[j].at })
	for i, m := range msgs {
		m.id = fmt.Sprintf("m%d", i+1)
	}
	g.msgs = msgs
}

func (g *generator) followUpBody(c *conversation) string {
	if c.anchor == "" {
		return pick(g.d, []string{"Any update on this?", "Hello? Still waiting."})
	}
	// Now and then a follow-up also names another order of the same
	// customer: the thread then carries two anchors.
	if g.on(AnchorCollision) && g.d.chance(g.rate(AnchorCollision)/4) {
		for _, o := range g.convs {
			if o != c && o.from == c.from && o.anchor != "" && o.anchor != c.anchor {
				return fmt.Sprintf("Still waiting on %s. Is it related to %s?", c.anchor, o.anchor)
			}
		}
	}
	return pick(g.d, []string{
		"Any update on this?",
		fmt.Sprintf("Still waiting on order %s.", c.anchor),
		fmt.Sprintf("Hello? %s please.", c.anchor),
	})
}

func (g *generator) lastMessageTick() int {
	last := 0
	for _, m := range g.msgs {
		last = max(last, m.at)
	}
	return last
}

// recipe is one rule set, in building blocks.
type recipe struct {
	support   bool // subject contains "order"
	threadCap int  // thread_length_max on support, 0 for none
	vip       bool // the vip sender
	returning bool // "refund" from a sender with history
	urgent    bool // "urgent" in the body
	gates     bool // vip-only and maintenance postures switch rules off
	// edges are rules over thread length and sender history at a threshold
	// the messages hit (see thresholds.go); a rules change keeps them.
	edges []scenarios.Rule
}

func ptr[T any](v T) *T { return &v }

// rules renders the recipe. There is always at least one rule.
func (r recipe) rules() []scenarios.Rule {
	rules := append([]scenarios.Rule(nil), r.edges...)
	var gated []string
	if r.vip {
		rules = append(rules, scenarios.Rule{ID: "vip", Admit: true,
			When: scenarios.Conditions{FromIn: &[]string{vipAddress}}})
	}
	if r.returning {
		rules = append(rules, scenarios.Rule{ID: "returning-refund", Admit: true,
			When: scenarios.Conditions{SubjectContains: ptr("refund"), SenderHistoryMin: ptr(1)}})
		gated = append(gated, "returning-refund")
	}
	if r.urgent {
		rules = append(rules, scenarios.Rule{ID: "urgent", Admit: true,
			When: scenarios.Conditions{BodyContains: ptr("urgent")}})
		gated = append(gated, "urgent")
	}
	if r.support {
		s := scenarios.Rule{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: ptr("order")}}
		if r.threadCap > 0 {
			s.When.ThreadLengthMax = ptr(r.threadCap)
		}
		rules = append(rules, s)
		gated = append(gated, "support")
	}
	if r.gates && len(gated) > 0 {
		rules = append(rules, scenarios.Rule{ID: "vip-only-gate", When: scenarios.Conditions{Posture: ptr("vip-only")},
			Overrides: gated})
		frozen := gated
		if r.vip {
			frozen = append([]string{"vip"}, gated...)
		}
		rules = append(rules, scenarios.Rule{ID: "maintenance-freeze", When: scenarios.Conditions{Posture: ptr("maintenance")},
			Overrides: frozen})
	}
	if r.gates {
		// A rule that admits only under one posture, which no gate switches
		// off: without it no generated rule admits over the posture, and an
		// implementation that reads a rule's posture wrongly is never met
		// (D233). Drawn from the blocks already drawn, not from the source.
		rules = append(rules, scenarios.Rule{ID: "maintenance-unsubscribe", Admit: true,
			When: scenarios.Conditions{Posture: ptr("maintenance"), BodyContains: ptr("unsubscribe")}})
	}
	if len(rules) == 0 {
		rules = append(rules, scenarios.Rule{ID: "closed"})
	}
	return rules
}

// mutate changes one or two building blocks, so a rules change always
// changes what some message would get.
func (r recipe) mutate(d draw) recipe {
	for n := d.between(1, 2); n > 0; n-- {
		switch d.intn(5) {
		case 0:
			r.support = !r.support
		case 1:
			if r.threadCap > 0 {
				r.threadCap = 0
			} else {
				r.threadCap = d.between(1, 3)
			}
		case 2:
			r.vip = !r.vip
		case 3:
			r.returning = !r.returning
		default:
			r.urgent = !r.urgent
		}
	}
	return r
}

// regimes draws the initial rules and posture and their changes.
func (g *generator) regimes() {
	g.posture = "normal"
	r := recipe{support: true, edges: g.edge.rules}
	if g.on(RuleEdges) {
		rate := g.rate(RuleEdges)
		if g.d.chance(rate / 2) {
			r.threadCap = g.d.between(1, 3)
		}
		r.vip = g.d.chance(rate)
		r.returning = g.d.chance(rate)
		r.urgent = g.d.chance(rate / 2)
		r.gates = g.d.chance(300)
	}
	if g.on(Posture) {
		r.gates = r.gates || g.d.chance(900)
		if g.d.chance(200) {
			g.posture = "vip-only"
		}
	}
	g.recipe = r
	last := g.lastMessageTick() + 3
	if g.on(Posture) {
		cur := g.posture
		for _, t := range g.changeTicks(Posture, last) {
			next := pick(g.d, otherPostures(cur))
			g.faults = append(g.faults, scenarios.Fault{At: t, Kind: scenarios.FaultPosture, Posture: next})
			cur = next
		}
	}
	if g.on(RulesChange) {
		cur := r
		for _, t := range g.changeTicks(RulesChange, last) {
			cur = cur.mutate(g.d)
			g.faults = append(g.faults, scenarios.Fault{At: t, Kind: scenarios.FaultRules, Rules: cur.rules()})
		}
	}
}

// changeTicks draws one to three sorted ticks for mid-thread changes.
func (g *generator) changeTicks(kind string, last int) []int {
	n := 1
	for n < 3 && g.d.chance(g.rate(kind)/2) {
		n++
	}
	ticks := make([]int, n)
	for i := range ticks {
		ticks[i] = g.d.between(1, last)
	}
	sort.Ints(ticks)
	return ticks
}

func otherPostures(cur string) []string {
	var out []string
	for _, p := range scenarios.Postures {
		if p != cur {
			out = append(out, p)
		}
	}
	return out
}

// admission says, per message id, whether some rule set the bundle uses
// admits it under some posture it uses (some: what amr validate demands of a
// message that carries an approval), and whether the rules and posture in
// force at its tick admit it (likely: an approval or signal for it will
// fire). Thread length and sender history are counted in bundle order.
func (g *generator) admission() (some, likely map[string]bool) {
	type change struct {
		at      int
		rules   []scenarios.Rule
		posture string
	}
	sets := [][]scenarios.Rule{g.recipe.rules()}
	postures := []string{g.posture}
	var changes []change
	for _, f := range g.faults {
		switch f.Kind {
		case scenarios.FaultRules:
			sets = append(sets, f.Rules)
			changes = append(changes, change{at: f.At, rules: f.Rules})
		case scenarios.FaultPosture:
			postures = append(postures, f.Posture)
			changes = append(changes, change{at: f.At, posture: f.Posture})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at < changes[j].at })
	some, likely = map[string]bool{}, map[string]bool{}
	thread, sender := map[string]int{}, map[string]int{}
	for _, m := range g.msgs {
		thread[m.conv.id]++
		facts := scenarios.Facts{Subject: m.subject, Body: m.body, From: m.conv.from,
			ThreadLength: thread[m.conv.id], SenderHistory: sender[m.conv.from]}
		sender[m.conv.from]++
		for _, rules := range sets {
			for _, p := range postures {
				facts.Posture = p
				if _, ok := scenarios.Admitted(rules, facts); ok {
					some[m.id] = true
				}
			}
		}
		rules, posture := sets[0], g.posture
		for _, c := range changes {
			if c.at > m.at {
				break
			}
			if c.rules != nil {
				rules = c.rules
			} else {
				posture = c.posture
			}
		}
		facts.Posture = posture
		_, likely[m.id] = scenarios.Admitted(rules, facts)
	}
	return some, likely
}

// eligible decides whether a message gets approvals and signals: always
// when it is likely admitted; rarely when only another rule set or posture
// of the bundle admits it (its approvals then fire only if the
// implementation admits it within a change's allowance, and otherwise wait
// unfired, which tests nothing); never when no rule set admits it (amr
// validate rejects an approval that can never bind).
func (g *generator) eligible(some, likely map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, m := range g.msgs {
		out[m.id] = likely[m.id] || some[m.id] && g.d.chance(150)
	}
	return out
}

// approvals gives most admittable messages a decision, on time or late,
// approve or reject; forged approvals come before or with the real one;
// any approval line may be delivered again.
func (g *generator) approvals() {
	g.decided = map[string]int{}
	g.eligibleIDs = g.eligible(g.admission())
	real, forged := 0, 0
	for _, m := range g.msgs {
		if !g.eligibleIDs[m.id] {
			continue
		}
		delay := g.d.between(0, 6)
		if g.on(LateApproval) && g.d.chance(g.rate(LateApproval)) {
			delay = g.d.between(60, 130)
		}
		if g.d.chance(850) {
			decision := scenarios.DecisionApprove
			if g.on(Reject) && g.d.chance(g.rate(Reject)/2) {
				decision = scenarios.DecisionReject
			}
			real++
			g.apps = append(g.apps, scenarios.Approval{ID: fmt.Sprintf("ap%d", real), At: m.at + delay,
				Match: scenarios.Match{MessageID: m.id}, Decision: decision})
			g.decided[m.id] = m.at + delay
		}
		for _, k := range []struct{ kind, forge string }{{ForgeDangling, scenarios.ForgeDangling}, {ForgeHash, scenarios.ForgeHashMismatch}} {
			if !g.on(k.kind) || !g.d.chance(g.rate(k.kind)/2) {
				continue
			}
			decision := scenarios.DecisionApprove
			if g.d.chance(100) {
				decision = scenarios.DecisionReject
			}
			forged++
			g.apps = append(g.apps, scenarios.Approval{ID: fmt.Sprintf("fa%d", forged), At: m.at + g.d.between(0, delay),
				Match: scenarios.Match{MessageID: m.id}, Decision: decision, Forge: k.forge})
		}
	}
	if !g.on(Redeliver) {
		return
	}
	for _, a := range g.apps {
		for k := 0; k < 2 && g.d.chance(g.rate(Redeliver)/(k+1)); k++ {
			g.faults = append(g.faults, scenarios.Fault{At: a.At + g.d.between(0, 10), Kind: scenarios.FaultRedeliver, ApprovalID: a.ID})
		}
	}
}

// signals escalates messages before or at their approval, and kills the
// agent holding a pending draft, or any agent. A message is escalated at
// most once.
func (g *generator) signals() {
	n := 0
	add := func(at int, typ string, target scenarios.Match) {
		n++
		g.sigs = append(g.sigs, scenarios.Signal{ID: fmt.Sprintf("s%d", n), At: at, Type: typ, Target: target})
	}
	deaths := 0
	for _, m := range g.msgs {
		if !g.eligibleIDs[m.id] {
			continue
		}
		apAt, approved := g.decided[m.id]
		target := scenarios.Match{MessageID: m.id}
		switch {
		case approved && g.on(EscalateAfter) && g.d.chance(g.rate(EscalateAfter)/2):
			at := apAt
			if g.d.chance(200) {
				at += g.d.between(1, 3)
			}
			add(at, scenarios.OperatorEscalation, target)
		case g.on(EscalateBefore) && g.d.chance(g.rate(EscalateBefore)/2):
			hi := m.at + 10
			if approved {
				hi = max(m.at, apAt-1)
			}
			add(g.d.between(m.at, hi), scenarios.OperatorEscalation, target)
		}
		if g.on(AgentDeath) && deaths < len(g.agents) && g.d.chance(g.rate(AgentDeath)/3) {
			hi := m.at + 10
			if approved {
				hi = max(m.at, apAt)
			}
			deaths++
			add(g.d.between(m.at, hi), scenarios.AgentDeath, target)
		}
	}
	if g.on(AgentDeath) && deaths < len(g.agents) && g.d.chance(g.rate(AgentDeath)/4) {
		add(g.d.between(1, g.lastMessageTick()+5), scenarios.AgentDeath, scenarios.Match{AgentID: pick(g.d, g.agents)})
	}
}

func (g *generator) duplicates() {
	if !g.on(Duplicate) {
		return
	}
	for _, m := range g.msgs {
		if g.d.chance(g.rate(Duplicate) / 2) {
			g.faults = append(g.faults, scenarios.Fault{At: m.at + g.d.between(0, 12), Kind: scenarios.FaultDuplicate, MessageID: m.id})
		}
	}
}

// crashes land where something happens: at a delivery, an approval, the
// tick after one, or a signal; at the boundary or after the k-th write.
func (g *generator) crashes() {
	if !g.on(CrashBoundary) && !g.on(CrashWrite) {
		return
	}
	var spots []int
	for _, m := range g.msgs {
		spots = append(spots, m.at)
	}
	for _, a := range g.apps {
		spots = append(spots, a.At, a.At+1)
	}
	for _, s := range g.sigs {
		spots = append(spots, s.At)
	}
	seen := map[[2]int]bool{}
	n := 0
	for _, t := range spots {
		for _, k := range []string{CrashBoundary, CrashWrite} {
			if n >= maxCrashes || !g.on(k) || !g.d.chance(g.rate(k)/4) {
				continue
			}
			after := 0
			if k == CrashWrite {
				after = g.d.between(1, 8)
			}
			if seen[[2]int{t, after}] {
				continue
			}
			seen[[2]int{t, after}] = true
			n++
			g.faults = append(g.faults, scenarios.Fault{At: t, Kind: scenarios.FaultCrash, AfterWrites: after})
		}
	}
}

// lastScheduled is the latest tick anything is scheduled at, jump landings
// included.
func (g *generator) lastScheduled() int {
	last := g.lastMessageTick()
	for _, a := range g.apps {
		last = max(last, a.At)
	}
	for _, s := range g.sigs {
		last = max(last, s.At)
	}
	for _, f := range g.faults {
		last = max(last, f.At+f.Down)
		if f.Kind == scenarios.FaultTickJump {
			last = max(last, f.At+f.By)
		}
	}
	return last
}

// jumps moves the clock ahead once or twice, most often from just before a
// scheduled event to at least two ticks past it, so the event lands inside
// the jump (a message stamped there arrives late).
func (g *generator) jumps() {
	if !g.on(TickJump) {
		return
	}
	var events []int
	for _, m := range g.msgs {
		events = append(events, m.at)
	}
	for _, a := range g.apps {
		events = append(events, a.At)
	}
	for _, f := range g.faults {
		events = append(events, f.At)
	}
	var taken [][2]int
	n := 1
	if g.d.chance(g.rate(TickJump)) {
		n = maxJumps
	}
	for range n {
		var at, by int
		if g.d.chance(600) && len(events) > 0 {
			x := pick(g.d, events)
			at = max(0, x-g.d.between(1, 3))
			by = x - at + g.d.between(2, 30)
		} else {
			at = g.d.between(0, g.lastScheduled())
			by = g.d.between(2, 40)
		}
		if overlaps(taken, at, at+by) {
			continue
		}
		taken = append(taken, [2]int{at, at + by})
		g.faults = append(g.faults, scenarios.Fault{At: at, Kind: scenarios.FaultTickJump, By: by})
	}
}

func overlaps(taken [][2]int, lo, hi int) bool {
	for _, t := range taken {
		if lo < t[1] && t[0] < hi {
			return true
		}
	}
	return false
}

func (g *generator) bundle() *scenarios.Bundle {
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta: scenarios.Meta{Name: "l6-fuzz", Version: 1, TopLevel: scenarios.MaxLevel,
			Description: "Generated by amr fuzz under profile: " + g.p.String(),
			Horizon:     g.horizon()},
		Fleet: g.agents,
		Mode:  scenarios.Mode{Posture: g.posture},
		Rules: g.recipe.rules(),
		Model: scenarios.Model{Anchors: g.anchorSet,
			Reply:         "Hello, we looked into order {{anchor}}: it ships tomorrow. Sorry for the wait.",
			ReplyNoAnchor: "Hello, thanks for writing. Could you tell us your order number?"},
		Approvals: g.apps,
		Signals:   g.sigs,
		Faults:    g.faults,
	}
	for _, m := range g.msgs {
		b.Inbox = append(b.Inbox, scenarios.Delivery{ID: m.id, ConversationID: m.conv.id, From: m.conv.from,
			Subject: m.subject, Body: m.body, At: m.at})
	}
	b.Normalize()
	return b
}
