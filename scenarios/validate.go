package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Validate checks the meaning of a loaded bundle and returns every problem
// found, located through src (which may be nil), sorted by file and line.
// Warnings do not make a bundle invalid: use Problems.Errors to decide.
func Validate(b *Bundle, src *Source) Problems {
	if b == nil {
		return Problems{{Pos: src.Locate(""), Msg: "no bundle"}}
	}
	v := &validator{b: b, src: src, messages: map[string]Delivery{}, approvalAt: map[string]int{}}
	for _, d := range b.Inbox {
		if _, ok := v.messages[d.ID]; !ok {
			v.messages[d.ID] = d
		}
	}
	for _, a := range b.Approvals {
		if _, ok := v.approvalAt[a.ID]; !ok {
			v.approvalAt[a.ID] = a.At
		}
	}
	v.meta()
	v.fleet()
	v.mode()
	v.rules("rules", b.Rules)
	v.rulesTexts()
	v.model()
	v.inbox()
	v.approvals()
	v.signals()
	v.faults()
	sortProblems(v.ps)
	return v.ps
}

// ValidateFile loads a bundle in either form and validates it. Problems that
// stop loading come back as Problems with a nil bundle; only a failure to
// read the path at all is an error.
func ValidateFile(path string) (*Bundle, Problems, error) {
	b, src, err := Load(path)
	if err != nil {
		var ps Problems
		if errors.As(err, &ps) {
			return nil, ps, nil
		}
		return nil, nil, err
	}
	return b, Validate(b, src), nil
}

type validator struct {
	b   *Bundle
	src *Source
	ps  Problems
	// First occurrence of each id, so lookups stay linear in bundle size.
	messages   map[string]Delivery
	approvalAt map[string]int
}

func (v *validator) errorf(field, format string, args ...any) {
	v.ps = append(v.ps, Problem{Pos: v.src.Locate(field), Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) warnf(field, format string, args ...any) {
	v.ps = append(v.ps, Problem{Pos: v.src.Locate(field), Field: field, Msg: fmt.Sprintf(format, args...), Warning: true})
}

// tick checks that a scheduled tick lies on the bundle's timeline.
func (v *validator) tick(field string, at int) {
	if at < 0 || at > v.b.Meta.Horizon {
		v.errorf(field, "tick %d is outside 0..%d (meta.horizon)", at, v.b.Meta.Horizon)
	}
}

func (v *validator) nonEmpty(field, s string) bool {
	if s == "" {
		v.errorf(field, "must not be empty")
		return false
	}
	return true
}

// unique reports a repeated id; seen maps an id to the field that first used it.
func (v *validator) unique(seen map[string]string, field, id string) {
	if id == "" {
		return
	}
	if first, ok := seen[id]; ok {
		v.errorf(field, "duplicate id %q (first used at %s)", id, first)
		return
	}
	seen[id] = field
}

func isPosture(s string) bool {
	for _, p := range Postures {
		if p == s {
			return true
		}
	}
	return false
}

func (v *validator) posture(field, s string) {
	if !isPosture(s) {
		v.errorf(field, "posture %q is not one of %s", s, strings.Join(Postures, ", "))
	}
}

func isKebab(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func (v *validator) meta() {
	m := v.b.Meta
	if v.b.Format != Format {
		v.errorf("format", "format %q is not %q", v.b.Format, Format)
	}
	if v.nonEmpty("meta.name", m.Name) {
		if !isKebab(m.Name) {
			v.errorf("meta.name", "name %q is not kebab-case (a-z, 0-9 and single hyphens)", m.Name)
		} else if prefix := "l" + strconv.Itoa(m.TopLevel) + "-"; !strings.HasPrefix(m.Name, prefix) || len(m.Name) == len(prefix) {
			v.warnf("meta.name", "name %q does not follow %s<name> for top_level %d", m.Name, prefix, m.TopLevel)
		}
	}
	if m.Version < 1 {
		v.errorf("meta.version", "version %d must be at least 1", m.Version)
	}
	if m.TopLevel < MinLevel || m.TopLevel > MaxLevel {
		v.errorf("meta.top_level", "top_level %d is outside %d..%d", m.TopLevel, MinLevel, MaxLevel)
	}
	if m.Horizon < 1 || m.Horizon > MaxHorizon {
		v.errorf("meta.horizon", "horizon %d is outside 1..%d", m.Horizon, MaxHorizon)
	}
	if m.Origin != nil && m.Origin.Kind == "" {
		v.errorf("meta.origin.kind", "must not be empty when origin is given")
	}
}

func (v *validator) fleet() {
	if len(v.b.Fleet) == 0 {
		v.errorf("fleet", "the fleet needs at least one agent")
		return
	}
	seen := map[string]string{}
	for i, id := range v.b.Fleet {
		field := indexed("fleet", i)
		if v.nonEmpty(field, id) {
			v.unique(seen, field, id)
		}
	}
}

func (v *validator) mode() {
	v.posture("mode.posture", v.b.Mode.Posture)
	if v.b.Mode.ChangedAt < 0 {
		v.errorf("mode.changed_at", "changed_at %d must not be negative", v.b.Mode.ChangedAt)
	}
}

// rules checks one rule set: the initial one or a rules fault's.
func (v *validator) rules(path string, rules []Rule) {
	ids := map[string]string{}
	for i, r := range rules {
		field := indexed(path, i)
		if v.nonEmpty(field+".id", r.ID) {
			v.unique(ids, field+".id", r.ID)
		}
		v.conditions(field+".when", r.When)
	}
	for i, r := range rules {
		for j, o := range r.Overrides {
			field := indexed(indexed(path, i)+".overrides", j)
			switch {
			case ids[o] == "":
				v.errorf(field, "overrides %q, which is not a rule of this set", o)
			case o == r.ID:
				v.warnf(field, "rule %q overrides itself, so it never admits when engaged", o)
			}
		}
	}
}

func (v *validator) conditions(path string, c Conditions) {
	for _, k := range []struct {
		name string
		s    *string
	}{{"subject_contains", c.SubjectContains}, {"body_contains", c.BodyContains}} {
		if k.s != nil && *k.s == "" {
			v.errorf(path+"."+k.name, "must not be empty when present")
		}
	}
	if c.FromIn != nil {
		if len(*c.FromIn) == 0 {
			v.warnf(path+".from_in", "an empty list never matches")
		}
		for i, a := range *c.FromIn {
			if a == "" {
				v.errorf(fmt.Sprintf("%s.from_in[%d]", path, i), "must not be empty")
			}
		}
	}
	if c.Posture != nil {
		v.posture(path+".posture", *c.Posture)
	}
	v.bounds(path, "thread_length", c.ThreadLengthMin, c.ThreadLengthMax)
	v.bounds(path, "sender_history", c.SenderHistoryMin, c.SenderHistoryMax)
	keys := make([]string, 0, len(c.Unknown))
	for k := range c.Unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v.warnf(path+"."+k, "unknown condition %q: a rule with it never matches", k)
	}
}

func (v *validator) bounds(path, name string, lo, hi *int) {
	if lo != nil && *lo < 0 {
		v.errorf(path+"."+name+"_min", "must not be negative")
	}
	if hi != nil && *hi < 0 {
		v.errorf(path+"."+name+"_max", "must not be negative")
	}
	if lo != nil && hi != nil && *lo > *hi {
		v.errorf(path+"."+name+"_max", "%s_max %d is below %s_min %d", name, *hi, name, *lo)
	}
}

func (v *validator) model() {
	m := v.b.Model
	seen := map[string]string{}
	for i, a := range m.Anchors {
		field := indexed("model.anchors", i)
		if v.nonEmpty(field, a) {
			v.unique(seen, field, a)
		}
	}
	v.nonEmpty("model.reply", m.Reply)
	v.nonEmpty("model.reply_no_anchor", m.ReplyNoAnchor)
	if len(m.Anchors) > 0 && m.Reply != "" && !strings.Contains(m.Reply, "{{anchor}}") {
		v.warnf("model.reply", "the bundle has anchors but the reply never embeds {{anchor}}")
	}
	v.placeholders("model.reply", m.Reply)
	v.placeholders("model.reply_no_anchor", m.ReplyNoAnchor)
	ids := map[string]string{}
	for i, r := range m.Replies {
		v.replyRule(indexed("model.replies", i), r, ids)
	}
	v.modelFailures()
}

func (v *validator) modelFailures() {
	calls := map[int]string{}
	for i, f := range v.b.Model.Failures {
		field := indexed("model.failures", i)
		if f.Call < 1 {
			v.errorf(field+".call", "call %d is not a call number (they count from 1)", f.Call)
		} else if prev, dup := calls[f.Call]; dup {
			v.errorf(field+".call", "call %d already fails at %s", f.Call, prev)
		} else {
			calls[f.Call] = field
		}
		known := false
		for _, k := range ModelFailureKinds {
			known = known || k == f.Kind
		}
		if !known {
			v.errorf(field+".kind", "kind %q is not one of %s", f.Kind, strings.Join(ModelFailureKinds, ", "))
		}
		switch {
		case f.RetryAfter != 0 && f.Kind != ModelRateLimit:
			v.errorf(field+".retry_after", "only a rate_limit failure has retry_after")
		case f.RetryAfter < 0 || f.RetryAfter > MaxRetryAfter:
			v.errorf(field+".retry_after", "retry_after %d is outside 0..%d seconds", f.RetryAfter, MaxRetryAfter)
		}
		switch {
		case f.HoldMS != 0 && f.Kind != ModelTimeout:
			v.errorf(field+".hold_ms", "only a timeout failure has hold_ms")
		case f.HoldMS < 0 || f.HoldMS > MaxHoldMS:
			v.errorf(field+".hold_ms", "hold_ms %d is outside 1..%d milliseconds", f.HoldMS, MaxHoldMS)
		}
	}
}

func (v *validator) inbox() {
	seen := map[string]string{}
	for i, d := range v.b.Inbox {
		field := indexed("inbox", i)
		if v.nonEmpty(field+".id", d.ID) {
			v.unique(seen, field+".id", d.ID)
		}
		v.nonEmpty(field+".conversation_id", d.ConversationID)
		v.nonEmpty(field+".from", d.From)
		v.tick(field+".at", d.At)
	}
}

func (v *validator) approvals() {
	seen := map[string]string{}
	admittable := v.admittable()
	for i, a := range v.b.Approvals {
		field := indexed("approvals", i)
		if v.nonEmpty(field+".approval_id", a.ID) {
			v.unique(seen, field+".approval_id", a.ID)
		}
		v.tick(field+".at", a.At)
		if a.Match.AgentID != "" {
			v.errorf(field+".match.agent_id", "an approval matches a message_id or a work_id, never an agent")
		}
		switch {
		case a.Match.MessageID != "" && a.Match.WorkID != "":
			v.errorf(field+".match", "give exactly one of message_id and work_id, not both")
		case a.Match.MessageID == "" && a.Match.WorkID == "":
			v.errorf(field+".match", "give exactly one of message_id and work_id")
		case a.Match.MessageID != "":
			if ok, known := admittable[a.Match.MessageID]; !known {
				v.errorf(field+".match.message_id", "message %q is not in the inbox", a.Match.MessageID)
			} else if !ok {
				v.errorf(field+".match.message_id", "message %q is admitted by no rule set of the bundle under any of its postures, so the approval can never bind", a.Match.MessageID)
			}
		}
		if a.Decision != DecisionApprove && a.Decision != DecisionReject {
			v.errorf(field+".decision", "decision %q is not %q or %q", a.Decision, DecisionApprove, DecisionReject)
		}
		if a.Forge != "" && a.Forge != ForgeDangling && a.Forge != ForgeHashMismatch {
			v.errorf(field+".forge", "forge %q is not %q or %q", a.Forge, ForgeDangling, ForgeHashMismatch)
		}
		switch {
		case a.Binds != "" && a.Binds != BindsPrevious:
			v.errorf(field+".binds", "binds %q is not %q", a.Binds, BindsPrevious)
		case a.Binds != "" && a.Forge != "":
			v.errorf(field+".binds", "a forged approval binds no real draft, so it cannot bind the previous one")
		}
	}
}

// admittable maps every message id to whether some rule set the bundle uses
// (the initial one or a rules fault's) admits it under some posture the
// bundle uses (the initial one or a posture fault's). Thread length and
// sender history come from delivery order: by tick, then by file order.
func (v *validator) admittable() map[string]bool {
	sets := [][]Rule{v.b.Rules}
	postures := []string{v.b.Mode.Posture}
	for _, f := range v.b.Faults {
		switch f.Kind {
		case FaultRules:
			sets = append(sets, f.Rules)
		case FaultPosture:
			postures = append(postures, f.Posture)
		}
	}
	out := map[string]bool{}
	for _, f := range deliveryFacts(v.b.Inbox) {
		ok := out[f.id]
		for _, rules := range sets {
			for _, p := range postures {
				if ok {
					break
				}
				f.facts.Posture = p
				_, ok = Admitted(rules, f.facts)
			}
		}
		out[f.id] = ok
	}
	return out
}

type messageFacts struct {
	id    string
	facts Facts
}

// deliveryFacts computes each message's facts in delivery order. A repeated
// id counts once, at its first delivery.
func deliveryFacts(inbox []Delivery) []messageFacts {
	order := make([]int, len(inbox))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return inbox[order[i]].At < inbox[order[j]].At })
	seen := map[string]bool{}
	thread := map[string]int{}
	sender := map[string]int{}
	var out []messageFacts
	for _, i := range order {
		d := inbox[i]
		if !seen[d.ID] {
			seen[d.ID] = true
			thread[d.ConversationID]++
			sender[d.From]++
		}
		out = append(out, messageFacts{id: d.ID, facts: Facts{
			Subject: d.Subject, Body: d.Body, From: d.From,
			ThreadLength: thread[d.ConversationID], SenderHistory: sender[d.From] - 1,
		}})
	}
	return out
}

func (v *validator) signals() {
	seen := map[string]string{}
	fleet := map[string]bool{}
	for _, a := range v.b.Fleet {
		fleet[a] = true
	}
	for i, s := range v.b.Signals {
		field := indexed("signals", i)
		if v.nonEmpty(field+".signal_id", s.ID) {
			v.unique(seen, field+".signal_id", s.ID)
		}
		v.tick(field+".at", s.At)
		if s.Type != AgentDeath && s.Type != OperatorEscalation {
			v.errorf(field+".signal_type", "signal_type %q is not %s or %s", s.Type, AgentDeath, OperatorEscalation)
		}
		t := s.Target
		n := 0
		for _, x := range []string{t.MessageID, t.WorkID, t.AgentID} {
			if x != "" {
				n++
			}
		}
		if n != 1 {
			v.errorf(field+".target", "give exactly one of message_id, work_id and agent_id (found %d)", n)
			continue
		}
		switch {
		case t.AgentID != "" && s.Type == OperatorEscalation:
			v.errorf(field+".target.agent_id", "an OPERATOR_ESCALATION names a work item, not an agent")
		case t.WorkID != "" && s.Type == AgentDeath:
			v.errorf(field+".target.work_id", "an AGENT_DEATH names an agent or a message whose agent dies, not a work_id")
		case t.AgentID != "" && !fleet[t.AgentID]:
			v.errorf(field+".target.agent_id", "agent %q is not in the fleet", t.AgentID)
		case t.MessageID != "":
			if _, ok := v.messages[t.MessageID]; !ok {
				v.errorf(field+".target.message_id", "message %q is not in the inbox", t.MessageID)
			}
		}
	}
}

func (v *validator) faults() {
	var jumps []jump
	for i, f := range v.b.Faults {
		field := indexed("faults", i)
		v.tick(field+".at", f.At)
		if !v.faultFields(field, f) {
			continue
		}
		switch f.Kind {
		case FaultCrash:
			if f.AfterWrites < 0 {
				v.errorf(field+".after_writes", "must not be negative")
			}
			if f.Torn && f.AfterWrites < 1 {
				v.errorf(field+".torn", "only a crash after a write can tear it: set after_writes")
			}
			v.writesTo(field, f)
			if f.Down < 0 || f.Down > MaxDown {
				v.errorf(field+".down", "down %d is outside 0..%d", f.Down, MaxDown)
			}
		case FaultDuplicate:
			if m, ok := v.messages[f.MessageID]; !ok {
				v.errorf(field+".message_id", "message %q is not in the inbox", f.MessageID)
			} else if f.At < m.At {
				v.errorf(field+".at", "duplicate at tick %d comes before message %q is delivered at tick %d", f.At, f.MessageID, m.At)
			}
		case FaultRedeliver:
			if at, ok := v.approvalAt[f.ApprovalID]; !ok {
				v.errorf(field+".approval_id", "approval %q is not in the approvals schedule", f.ApprovalID)
			} else if f.At < at {
				v.errorf(field+".at", "redelivery at tick %d comes before approval %q fires at tick %d", f.At, f.ApprovalID, at)
			}
		case FaultTickJump:
			if f.By < 2 {
				v.errorf(field+".by", "a tick jump moves by at least 2 (got %d)", f.By)
			} else if f.By > v.b.Meta.Horizon-f.At {
				v.errorf(field+".by", "the jump from %d by %d lands past the horizon %d", f.At, f.By, v.b.Meta.Horizon)
			}
			jumps = append(jumps, jump{i, f.At, f.By})
		case FaultPosture:
			v.posture(field+".posture", f.Posture)
		case FaultRules:
			if len(f.Rules) == 0 {
				v.errorf(field+".rules", "a rules fault needs at least one rule (to admit nothing, use a rule with admit false)")
			}
			v.rules(field+".rules", f.Rules)
		}
	}
	// In tick order, a jump overlaps an earlier one exactly when it starts
	// before the furthest tick an earlier jump skips to.
	sort.SliceStable(jumps, func(i, j int) bool { return jumps[i].at < jumps[j].at })
	var far *jump
	for k := range jumps {
		cur := &jumps[k]
		if far != nil && cur.at < jumpEnd(*far) {
			v.errorf(fmt.Sprintf("faults[%d].at", cur.i), "tick %d falls inside the jump of faults[%d] from %d to %d", cur.at, far.i, far.at, jumpEnd(*far))
		}
		if far == nil || jumpEnd(*cur) > jumpEnd(*far) {
			far = cur
		}
	}
}

// writesTo checks a crash's writes_to: one of the implementation's logs
// or state.json, and only on a crash after k writes, which it narrows
// (D138, D157).
func (v *validator) writesTo(field string, f Fault) {
	switch {
	case f.WritesTo == "":
	case !slices.Contains(CrashTargets, f.WritesTo):
		v.errorf(field+".writes_to", "%q is not one of %s", f.WritesTo, strings.Join(CrashTargets, ", "))
	case f.AfterWrites < 1:
		v.errorf(field+".writes_to", "only a crash after k writes counts writes to one file: set after_writes")
	}
}

// jump is a tick jump fault: its index, tick and size.
type jump struct{ i, at, by int }

// jumpEnd is the tick a jump lands on, at least one past its start, without
// overflowing on absurd sizes.
func jumpEnd(j jump) int {
	by := max(j.by, 1)
	if j.at > 0 && by > math.MaxInt-j.at {
		return math.MaxInt
	}
	return j.at + by
}

// faultFields checks the kind and that exactly the fields of that kind are
// set. It reports false when the kind is unknown.
func (v *validator) faultFields(field string, f Fault) bool {
	// In the order the problems are reported; fixed arrays, not maps,
	// since every fault of every generated bundle comes through here.
	names := [...]string{"after_writes", "down", "torn", "writes_to", "message_id", "approval_id", "by", "posture", "rules", "rules_json"}
	set := [...]bool{f.AfterWrites != 0, f.Down != 0, f.Torn, f.WritesTo != "", f.MessageID != "", f.ApprovalID != "",
		f.By != 0, f.Posture != "", f.Rules != nil, f.RulesJSON != ""}
	var mine string
	switch f.Kind {
	case FaultCrash:
		mine = "after_writes"
	case FaultDuplicate:
		mine = "message_id"
	case FaultRedeliver:
		mine = "approval_id"
	case FaultTickJump:
		mine = "by"
	case FaultPosture:
		mine = "posture"
	case FaultRules:
		mine = "rules"
	default:
		v.errorf(field+".kind", "kind %q is not one of %s", f.Kind, strings.Join(FaultKinds, ", "))
		return false
	}
	mineSet := false
	for i, k := range names {
		if k == mine {
			mineSet = set[i]
		}
		if set[i] && k != mine && !(k == "rules_json" && mine == "rules") && !((k == "down" || k == "torn" || k == "writes_to") && mine == "after_writes") {
			v.errorf(field+"."+k, "a %s fault has no %s", f.Kind, k)
		}
	}
	switch f.Kind {
	case FaultDuplicate, FaultRedeliver, FaultPosture:
		if !mineSet {
			v.errorf(field+"."+mine, "a %s fault needs %s", f.Kind, mine)
			return false
		}
	}
	return true
}

// indexed names the i-th element of a list field, as "path[i]".
func indexed(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}
