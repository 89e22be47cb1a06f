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

// Violation is one history invariant failure. Ops are the indexes of the
// operations that prove it, the offending one first.
type Violation struct {
	Invariant string   `json:"invariant"`
	Tick      int      `json:"tick"`
	Ops       []int    `json:"ops"`
	Src       []string `json:"src"`
	WorkID    string   `json:"work_id,omitempty"`
	MessageID string   `json:"message_id,omitempty"`
	DraftID   string   `json:"draft_id,omitempty"`
	EffectID  string   `json:"effect_id,omitempty"`
	Causes    []string `json:"causes,omitempty"`
	Detail    string   `json:"detail"`
}

// Has reports whether the violation lists a cause.
func (v Violation) Has(cause string) bool {
	for _, c := range v.Causes {
		if c == cause {
			return true
		}
	}
	return false
}

// Decline is a question the checker would not answer because the history
// does not say who an operation belongs to, or in which order two
// operations happened. A decline is never a violation and never a pass.
type Decline struct {
	Invariant string `json:"invariant"`
	Reason    string `json:"reason"`
	Ops       []int  `json:"ops"`
}

// Reasons for declining.
const (
	ReasonUnknownWork  = "effect's draft never declared: its work item is unknown"
	ReasonUnknownOwner = "agent death but no claims: whose work it was is unknown"
	ReasonOrder        = "same-tick lines of different files: order unknown without a run log"
	ReasonCrashPlace   = "crash placement inside its tick is approximate"
)

// Verdict is the history oracle's answer for one run.
type Verdict struct {
	Ordering   string      `json:"ordering"`
	Ops        int         `json:"ops"`
	Violations []Violation `json:"violations"`
	Declined   []Decline   `json:"declined"`
	// Counts holds the number of violations of every invariant, zeros
	// included.
	Counts map[string]int `json:"counts"`
	// DeclinedCounts holds the number of declines per reason.
	DeclinedCounts map[string]int `json:"declined_counts"`
}

// Count returns how many violations of an invariant carry a cause, or all
// of them when cause is empty.
func (v Verdict) Count(invariant, cause string) int {
	n := 0
	for _, x := range v.Violations {
		if x.Invariant == invariant && (cause == "" || x.Has(cause)) {
			n++
		}
	}
	return n
}

// work is what the pass has learnt about one work item so far.
type work struct {
	id          string
	admits      []int
	drafts      []string // draft ids in declaration order
	sends       []int
	resolves    []int
	escalations []int
	rejects     []int // valid rejects of any of its drafts
	// ended holds the rejects that were the first valid decision on the
	// draft that was its latest when they came: they end the work item
	// (D155).
	ended     []int
	approved  []int // valid approves of its latest draft at the time
	claimants []string
	crashes   []int // crashes while it was admitted and unresolved
}

type pass struct {
	h        *History
	ops      []Op
	v        *Verdict
	declared map[string]int // draft id -> first declaration op, so far
	first    map[string]int // draft id -> first declaration op, anywhere
	works    map[string]*work
	order    []string // work ids in order of first sight
	approves map[string][]int
	byEffect map[string]int
	byDraft  map[string]int
	byWork   map[string]int
	deaths   map[string]int
	anyDeath []int
	crashes  []int
	calls    map[string]int
	// pending are effects whose draft was not declared when they were
	// sent, by draft id, until it is.
	pending map[string][]int
	h8      map[int]bool
	// admitted holds the work ids with an admission anywhere: an
	// escalation naming anything else is ignored.
	admitted map[string]bool
	// admittedFor holds, per work id, the message ids its admissions name
	// anywhere, and forMessage the work ids admitted for each message id:
	// work items sharing a message are one unit of work (D49).
	admittedFor map[string][]string
	forMessage  map[string][]string
	// roughCrash holds, per tick, a crash whose place in the tick is
	// approximate.
	roughCrash map[int]int
	// decided holds the draft ids with a valid decision so far, rejected
	// those whose first one was a reject (its op), and workDrafts each work
	// item's first declarations anywhere, in order (D154).
	decided    map[string]bool
	rejected   map[string]int
	workDrafts map[string][]int
	// ints and strs back the first element of the per-key lists above and
	// of a work item's admissions: most keys have one, and a list's own
	// allocation comes only with its second.
	ints []int
	strs []string
}

// addInt is append(xs, x), with a list's first element taken from p.ints.
func (p *pass) addInt(xs []int, x int) []int {
	if len(xs) > 0 {
		return append(xs, x)
	}
	p.ints = append(p.ints, x)
	n := len(p.ints)
	return p.ints[n-1 : n : n]
}

// addStr is append(xs, x), with a list's first element taken from p.strs.
func (p *pass) addStr(xs []string, x string) []string {
	if len(xs) > 0 {
		return append(xs, x)
	}
	p.strs = append(p.strs, x)
	n := len(p.strs)
	return p.strs[n-1 : n : n]
}

// Check verifies H1–H11: H1–H8, H10 and H11 in one pass over the history's operations
// plus one pass over the work items at the end, H9 over its deliveries and
// admissions.
func Check(h *History) Verdict {
	// The maps keyed by draft, effect, call and work id are sized once from
	// how many operations of each type there are, which bounds their keys,
	// rather than grown step by step through the pass.
	var n [OpState + 1]int
	for i := range h.Ops {
		if t := h.Ops[i].Type; int(t) < len(n) {
			n[t]++
		}
	}
	drafts, sends, admits, approves := n[OpDraft], n[OpSend], n[OpAdmit], n[OpApprove]
	p := &pass{h: h, ops: h.Ops, v: &Verdict{Ordering: h.Ordering, Ops: len(h.Ops), Violations: []Violation{},
		Declined: []Decline{}, Counts: make(map[string]int, len(catalogue)), DeclinedCounts: map[string]int{}},
		declared: make(map[string]int, drafts), first: make(map[string]int, drafts), works: make(map[string]*work, admits),
		approves: make(map[string][]int, approves), byEffect: make(map[string]int, sends), byDraft: make(map[string]int, sends),
		byWork: make(map[string]int, sends), deaths: map[string]int{}, calls: make(map[string]int, n[OpModelCall]),
		pending: map[string][]int{}, h8: map[int]bool{}, admitted: make(map[string]bool, admits), roughCrash: map[int]int{},
		admittedFor: make(map[string][]string, admits), forMessage: make(map[string][]string, admits),
		decided: make(map[string]bool, approves), rejected: map[string]int{}, workDrafts: make(map[string][]int, admits),
		ints: make([]int, 0, 2*admits+approves), strs: make([]string, 0, 2*admits)}
	for _, inv := range catalogue {
		p.v.Counts[inv.ID] = 0
	}
	// Attribution is a lookup: an effect belongs to the work item its
	// draft id was first declared for.
	for i := range p.ops {
		op := &p.ops[i]
		switch op.Type {
		case OpDraft:
			if _, ok := p.first[op.DraftID]; !ok {
				p.first[op.DraftID] = i
				p.workDrafts[op.WorkID] = p.addInt(p.workDrafts[op.WorkID], i)
			}
		case OpAdmit:
			p.admitted[op.WorkID] = true
			p.link(op)
		case OpCrash:
			if _, ok := p.roughCrash[op.Tick]; op.Approximate && !ok {
				p.roughCrash[op.Tick] = i
			}
		}
	}
	for i := range p.ops {
		p.step(i)
	}
	p.end()
	p.v.Violations = append(p.v.Violations, checkAdmission(h)...)
	slices.SortStableFunc(p.v.Violations, func(a, b Violation) int {
		if c := cmp.Compare(firstOp(a, len(p.ops)), firstOp(b, len(p.ops))); c != 0 {
			return c
		}
		return strings.Compare(a.Invariant, b.Invariant)
	})
	for _, x := range p.v.Violations {
		p.v.Counts[x.Invariant]++
	}
	for _, d := range p.v.Declined {
		p.v.DeclinedCounts[d.Reason]++
	}
	return *p.v
}

// firstOp is the operation a violation is sorted by; one that cites none (a
// message the history never delivered) sorts after every operation.
func firstOp(v Violation, n int) int {
	if len(v.Ops) == 0 {
		return n
	}
	return v.Ops[0]
}

func (p *pass) work(id string) *work {
	w, ok := p.works[id]
	if !ok {
		w = &work{id: id}
		p.works[id] = w
		p.order = append(p.order, id)
	}
	return w
}

func (p *pass) violate(inv string, ops []int, detail string, causes ...string) *Violation {
	x := Violation{Invariant: inv, Tick: p.ops[ops[0]].Tick, Ops: ops, Causes: causes, Detail: detail}
	for _, i := range ops {
		x.Src = append(x.Src, p.ops[i].Src())
	}
	p.v.Violations = append(p.v.Violations, x)
	return &p.v.Violations[len(p.v.Violations)-1]
}

func (p *pass) decline(inv, reason string, ops ...int) {
	p.v.Declined = append(p.v.Declined, Decline{Invariant: inv, Reason: reason, Ops: ops})
}

// known reports whether the history knows that operation a happened
// before operation b (a < b). With a run log that lists the tick's writes
// it does. Without one (or for lines the log does not place), two
// implementation or stub lines of one tick from different files have no
// known order.
func (p *pass) known(a, b int) bool {
	x, y := &p.ops[a], &p.ops[b]
	if p.h.Ordering != OrderFiles && !x.Approximate && !y.Approximate {
		return true
	}
	if x.Tick != y.Tick || x.Actor == ActorHarness || y.Actor == ActorHarness {
		return true
	}
	return x.srcFileName() == y.srcFileName()
}

// srcFileName is the file part of the operation's source.
func (op *Op) srcFileName() string {
	if op.srcFile != 0 {
		return srcFiles[op.srcFile]
	}
	return srcFile(op.src)
}

func srcFile(src string) string {
	if i := strings.LastIndexByte(src, ':'); i >= 0 {
		return src[:i]
	}
	return src
}

func (p *pass) step(i int) {
	op := &p.ops[i]
	switch op.Type {
	case OpAdmit:
		w := p.work(op.WorkID)
		w.admits = p.addInt(w.admits, i)
	case OpClaim:
		if op.Outcome == sandbox.ClaimClaimed || op.Outcome == sandbox.ClaimWon {
			w := p.work(op.WorkID)
			if !contains(w.claimants, op.AgentID) {
				w.claimants = append(w.claimants, op.AgentID)
			}
		}
	case OpDraft:
		p.draft(i, op)
	case OpApprove:
		p.approve(i, op)
	case OpSignal:
		switch op.R().SignalType {
		case scenarios.OperatorEscalation:
			w := p.work(op.WorkID)
			w.escalations = append(w.escalations, i)
		case scenarios.AgentDeath:
			if _, ok := p.deaths[op.AgentID]; !ok {
				p.deaths[op.AgentID] = i
			}
			p.anyDeath = append(p.anyDeath, i)
		}
	case OpCrash:
		p.crash(i)
	case OpSend:
		p.send(i, op)
	case OpResolve:
		p.resolve(i, op)
	case OpModelCall:
		if _, ok := p.calls[op.R().CallID]; !ok {
			p.calls[op.R().CallID] = i
		}
	case OpState:
		p.state(i, op)
	}
}

func (p *pass) draft(i int, op *Op) {
	if _, ok := p.declared[op.DraftID]; ok {
		return // the first declaration is the draft
	}
	p.declared[op.DraftID] = i
	w := p.work(op.WorkID)
	w.drafts = append(w.drafts, op.DraftID)
	if esc, ok := p.escalated(w); ok {
		x := p.violate(H10DraftAfterEscalation, []int{i, esc}, fmt.Sprintf("draft %s declared for work item %s after the escalation at op %d", op.DraftID, w.id, esc))
		x.DraftID, x.WorkID = op.DraftID, w.id
	}
	// Effects sent before this declaration: was the draft's content made
	// before a crash that came between it and the effect?
	for _, e := range p.pending[op.DraftID] {
		if p.h8[e] {
			continue
		}
		for _, id := range op.R().Calls {
			call, ok := p.calls[id]
			if !ok {
				continue
			}
			if c, ok := p.crashBetween(call, e); ok {
				p.h8[e] = true
				x := p.violate(H8EffectDespiteCrash, []int{e, c, call, i},
					fmt.Sprintf("effect %s was sent after crash at op %d from draft %s, whose model call preceded the crash and which was declared only after the effect",
						p.ops[e].R().EffectID, c, op.DraftID), CauseLostAtCrash)
				x.EffectID, x.DraftID, x.WorkID = p.ops[e].R().EffectID, op.DraftID, op.WorkID
				break
			}
		}
	}
	delete(p.pending, op.DraftID)
}

// crashBetween returns a crash strictly between operations a and b.
func (p *pass) crashBetween(a, b int) (int, bool) {
	for _, c := range p.crashes {
		if c > a && c < b {
			return c, true
		}
	}
	return 0, false
}

func (p *pass) approve(i int, op *Op) {
	if op.R().Forged != ForgedNo {
		return
	}
	d, ok := p.declared[op.DraftID]
	later := !ok
	if !ok {
		// Valid only through the same-tick allowance of a file-order
		// history: the draft is declared later in the order.
		d, ok = p.first[op.DraftID]
	}
	if !ok {
		return
	}
	w := p.work(p.ops[d].WorkID)
	switch op.R().Decision {
	case scenarios.DecisionApprove:
		p.decided[op.DraftID] = true
		p.approves[op.DraftID] = p.addInt(p.approves[op.DraftID], i)
		// An approve of a draft the work item had already replaced
		// authorizes that draft but owes the work item nothing (D80).
		if n := len(w.drafts); later || n == 0 || w.drafts[n-1] == op.DraftID {
			w.approved = append(w.approved, i)
		}
	case scenarios.DecisionReject:
		w.rejects = append(w.rejects, i)
		if p.decided[op.DraftID] {
			return // a reject after an approve takes nothing back (D82)
		}
		p.decided[op.DraftID] = true
		p.rejected[op.DraftID] = i
		if p.latestAt(w.id, d, i) {
			w.ended = append(w.ended, i)
		}
	}
}

// latestAt reports whether draft declaration d was its work item's latest
// when approval i came: no later declaration of the item was before i, with
// the same-tick allowance that makes i valid in a file-order history.
func (p *pass) latestAt(work string, d, i int) bool {
	for _, j := range p.workDrafts[work] {
		if j <= d {
			continue
		}
		if j < i || p.h.Ordering == OrderFiles && p.ops[j].Tick <= p.ops[i].Tick {
			return false
		}
	}
	return true
}

// afterRejection judges one effect against H11: a rejection that was the
// first decision on its draft, or that ended its work item, came before it.
func (p *pass) afterRejection(i int, op *Op, w *work) {
	r, ok := p.rejected[op.DraftID]
	if len(w.ended) > 0 && (!ok || w.ended[0] < r) {
		r, ok = w.ended[0], true
	}
	if !ok {
		return
	}
	x := p.violate(H11SendAfterRejection, []int{i, r}, fmt.Sprintf("effect %s sends draft %s of work item %s after the rejection at op %d", op.R().EffectID, op.DraftID, w.id, r))
	x.EffectID, x.DraftID, x.WorkID = op.R().EffectID, op.DraftID, w.id
}

func (p *pass) crash(i int) {
	p.crashes = append(p.crashes, i)
	for _, id := range p.order {
		w := p.works[id]
		if len(w.admits) > 0 && len(w.resolves) == 0 && len(w.sends) == 0 {
			w.crashes = append(w.crashes, i)
		}
	}
	// Effects already out whose draft is still not declared: a restarted
	// instance cannot know what they were.
	var drafts []string
	for d := range p.pending {
		drafts = append(drafts, d)
	}
	sort.Strings(drafts)
	for _, d := range drafts {
		for _, e := range p.pending[d] {
			if p.h8[e] {
				continue
			}
			if p.ops[i].Approximate && p.ops[i].Tick == p.ops[e].Tick {
				p.decline(H8EffectDespiteCrash, ReasonCrashPlace, e, i)
				continue
			}
			p.h8[e] = true
			x := p.violate(H8EffectDespiteCrash, []int{e, i},
				fmt.Sprintf("crash at op %d found effect %s out while its draft %s was not declared", i, p.ops[e].R().EffectID, d),
				CauseOutAtCrash)
			x.EffectID, x.DraftID = p.ops[e].R().EffectID, d
		}
	}
}

// send judges one effect against H1, H2, H4, H5 and H11.
func (p *pass) send(i int, op *Op) {
	// An effect whose draft was never declared is valid for no work item
	// (spec §2: valid only if its draft_id was declared): it is nobody's
	// send, and what it did to a work item is not guessed.
	var w *work
	if d, ok := p.first[op.DraftID]; ok {
		w = p.work(p.ops[d].WorkID)
	}
	p.duplicate(i, op, w)
	p.orphan(i, op, w)
	p.unauthorized(i, op)
	if w != nil {
		p.cancelled(i, op, w)
		p.afterRejection(i, op, w)
	} else {
		p.decline(H4EffectAfterCancellation, ReasonUnknownWork, i)
	}
	if _, ok := p.byEffect[op.R().EffectID]; !ok {
		p.byEffect[op.R().EffectID] = i
	}
	if _, ok := p.byDraft[op.DraftID]; !ok {
		p.byDraft[op.DraftID] = i
	}
	if w != nil {
		if _, ok := p.byWork[w.id]; !ok {
			p.byWork[w.id] = i
		}
		w.sends = append(w.sends, i)
	}
}

func (p *pass) duplicate(i int, op *Op, w *work) {
	prior, what := -1, ""
	if e, ok := p.byEffect[op.R().EffectID]; ok {
		prior, what = e, "effect id "+op.R().EffectID
	} else if e, ok := p.byDraft[op.DraftID]; ok {
		prior, what = e, "draft "+op.DraftID
	} else if w != nil {
		if e, ok := p.byWork[w.id]; ok {
			prior, what = e, "work item "+w.id
		}
	}
	if prior >= 0 {
		x := p.violate(H1DuplicateEffect, []int{i, prior}, fmt.Sprintf("a second effect for %s (the first is op %d)", what, prior))
		x.EffectID, x.DraftID = op.R().EffectID, op.DraftID
		if w != nil {
			x.WorkID = w.id
		}
		return
	}
	if w == nil {
		p.decline(H1DuplicateEffect, ReasonUnknownWork, i)
	}
}

func (p *pass) orphan(i int, op *Op, w *work) {
	d, declared := p.declared[op.DraftID]
	if !declared {
		x := p.violate(H2OrphanEffect, []int{i}, fmt.Sprintf("effect %s names draft %s, not declared before it", op.R().EffectID, op.DraftID), CauseUndeclared)
		x.EffectID, x.DraftID = op.R().EffectID, op.DraftID
		if w != nil {
			x.WorkID = w.id
		}
		p.pending[op.DraftID] = append(p.pending[op.DraftID], i)
		return
	}
	if len(w.admits) == 0 {
		x := p.violate(H2OrphanEffect, []int{i, d}, fmt.Sprintf("effect %s sends draft %s of work item %s, never admitted before it", op.R().EffectID, op.DraftID, w.id), CauseUnadmitted)
		x.EffectID, x.DraftID, x.WorkID = op.R().EffectID, op.DraftID, w.id
	}
}

func (p *pass) unauthorized(i int, op *Op) {
	if len(p.approves[op.DraftID]) > 0 {
		return
	}
	ops := []int{i}
	if d, ok := p.declared[op.DraftID]; ok {
		ops = append(ops, d)
	}
	x := p.violate(H5UnauthorizedEffect, ops, fmt.Sprintf("effect %s: no valid approve line binds draft %s before it", op.R().EffectID, op.DraftID))
	x.EffectID, x.DraftID = op.R().EffectID, op.DraftID
}

func (p *pass) cancelled(i int, op *Op, w *work) {
	ops := []int{i}
	var causes []string
	if esc, ok := p.escalated(w); ok {
		causes = append(causes, CauseEscalation)
		ops = append(ops, esc)
	}
	unknown := false
	for _, r := range w.resolves {
		if p.known(r, i) {
			causes = append(causes, CauseResolution)
			ops = append(ops, r)
			break
		}
		unknown = true
	}
	if len(causes) == 0 {
		if unknown {
			p.decline(H4EffectAfterCancellation, ReasonOrder, i)
		}
		return
	}
	x := p.violate(H4EffectAfterCancellation, ops, fmt.Sprintf("effect %s for work item %s after its %s", op.R().EffectID, w.id, strings.Join(causes, " and ")), causes...)
	x.EffectID, x.DraftID, x.WorkID = op.R().EffectID, op.DraftID, w.id
}

// link records which message ids a work item's admissions name.
func (p *pass) link(op *Op) {
	if op.MessageID == "" || contains(p.admittedFor[op.WorkID], op.MessageID) {
		return
	}
	p.admittedFor[op.WorkID] = p.addStr(p.admittedFor[op.WorkID], op.MessageID)
	p.forMessage[op.MessageID] = p.addStr(p.forMessage[op.MessageID], op.WorkID)
}

// escalated returns the earliest escalation seen so far of the work item or
// of any admitted work item sharing a message with it: the operator took
// over the message's work, and a fork of it is that work under a second id
// (D49).
func (p *pass) escalated(w *work) (int, bool) {
	first, found := 0, false
	consider := func(x *work) {
		if x == nil || len(x.escalations) == 0 || !p.admitted[x.id] {
			return
		}
		if !found || x.escalations[0] < first {
			first, found = x.escalations[0], true
		}
	}
	consider(w)
	for _, m := range p.admittedFor[w.id] {
		for _, id := range p.forMessage[m] {
			consider(p.works[id])
		}
	}
	return first, found
}

// resolve judges an abandonment against H6 when it is written.
func (p *pass) resolve(i int, op *Op) {
	w := p.work(op.WorkID)
	w.resolves = append(w.resolves, i)
	if op.Outcome != sandbox.OutcomeAbandoned || len(w.admits) == 0 {
		return
	}
	switch {
	case len(w.escalations) > 0, len(w.rejects) > 0, len(w.crashes) > 0:
		return
	}
	for _, a := range w.claimants {
		if _, dead := p.deaths[a]; dead {
			return
		}
	}
	if len(w.claimants) == 0 && len(p.anyDeath) > 0 {
		p.decline(H6FalseSuppression, ReasonUnknownOwner, i, p.anyDeath[0])
		return
	}
	if c, ok := p.roughCrash[op.Tick]; ok {
		// A crash of this tick whose place is not known may have come
		// before the abandonment.
		p.decline(H6FalseSuppression, ReasonCrashPlace, i, c)
		return
	}
	x := p.violate(H6FalseSuppression, []int{i, w.admits[0]},
		fmt.Sprintf("work item %s abandoned (%q) with no escalation, rejection, agent death or crash before it", w.id, op.Reason))
	x.WorkID = w.id
}

// state judges the final snapshot against the outbox (H7).
func (p *pass) state(i int, op *Op) {
	for _, it := range op.R().Items {
		w, ok := p.works[it.WorkID]
		sent := ok && len(w.sends) > 0
		switch {
		case it.Status == sandbox.OutcomeCompleted && !sent:
			x := p.violate(H7ClaimContradiction, []int{i}, fmt.Sprintf("state.json says %s is completed; the outbox has no effect for it", it.WorkID), CauseStateCompleted)
			x.WorkID = it.WorkID
		case it.Status == sandbox.OutcomeAbandoned && sent:
			x := p.violate(H7ClaimContradiction, []int{i, w.sends[0]}, fmt.Sprintf("state.json says %s is abandoned; the outbox has an effect for it", it.WorkID), CauseStateAbandoned)
			x.WorkID = it.WorkID
		}
	}
}

// end judges what only the whole history can tell: lost work (H3) and the
// audit's resolutions against the outbox (H7).
func (p *pass) end() {
	for _, id := range p.order {
		w := p.works[id]
		p.lost(w)
		p.contradiction(w)
	}
}

func (p *pass) lost(w *work) {
	if len(w.admits) == 0 || len(w.approved) == 0 || len(w.escalations) > 0 || len(w.rejects) > 0 ||
		len(w.sends) > 0 || len(w.resolves) > 0 {
		return
	}
	a := w.approved[0]
	ops := []int{a, w.admits[0]}
	if d, ok := p.first[p.ops[a].DraftID]; ok {
		ops = append(ops, d)
	}
	x := p.violate(H3LostWork, ops, fmt.Sprintf("work item %s was approved (%s) and never sent nor resolved", w.id, p.ops[a].R().ApprovalID))
	x.WorkID, x.DraftID = w.id, p.ops[a].DraftID
}

func (p *pass) contradiction(w *work) {
	completed, abandoned := -1, -1
	for _, r := range w.resolves {
		switch p.ops[r].Outcome {
		case sandbox.OutcomeCompleted:
			if completed < 0 {
				completed = r
			}
		case sandbox.OutcomeAbandoned:
			if abandoned < 0 {
				abandoned = r
			}
		}
	}
	if completed >= 0 && abandoned >= 0 {
		x := p.violate(H7ClaimContradiction, []int{max(completed, abandoned), min(completed, abandoned)},
			fmt.Sprintf("work item %s is resolved both completed and abandoned", w.id), CauseResolvedBothWays)
		x.WorkID = w.id
	}
	if completed >= 0 && len(w.sends) == 0 {
		x := p.violate(H7ClaimContradiction, []int{completed}, fmt.Sprintf("work item %s is resolved completed; the outbox has no effect for it", w.id), CauseCompletedWithoutSend)
		x.WorkID = w.id
	}
	if abandoned >= 0 && len(w.sends) > 0 {
		x := p.violate(H7ClaimContradiction, []int{abandoned, w.sends[0]}, fmt.Sprintf("work item %s is resolved abandoned; the outbox has an effect for it", w.id), CauseAbandonedWithSend)
		x.WorkID = w.id
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
