package scenarios

import (
	"github.com/amr-bench/amr/internal/jcs"
)

// canonicalWriter lays out a bundle's canonical bytes by hand: every struct
// of a bundle has fixed keys, so their RFC 8785 order is fixed here, and
// only the values are canonicalized as they are written. It is the bytes of
// jcs.Marshal over the same value, encoding/json's omitempty and omitzero
// included; where it cannot be sure of them (an integer beyond 2^53, an
// unknown condition, a raw JSON answer that is not strict JSON) it stops,
// and the caller takes the general path, whose bytes or error count. The
// general path renders the bundle through encoding/json and parses it back,
// most of the cost of a generated run's hash.
type canonicalWriter struct {
	out []byte
	ok  bool
}

// appendCanonical appends the canonical form of the bundle as jcs.Marshal
// renders it, or reports false.
func appendCanonical(out []byte, b *Bundle) ([]byte, bool) {
	w := canonicalWriter{out: out, ok: true}
	w.bundle(b)
	return w.out, w.ok
}

func (w *canonicalWriter) raw(s string) { w.out = append(w.out, s...) }

func (w *canonicalWriter) str(s string) { w.out = jcs.AppendString(w.out, s) }

func (w *canonicalWriter) int(n int) {
	var ok bool
	if w.out, ok = jcs.AppendInt(w.out, int64(n)); !ok {
		w.ok = false
	}
}

func (w *canonicalWriter) bool(v bool) {
	if v {
		w.raw("true")
	} else {
		w.raw("false")
	}
}

func (w *canonicalWriter) strings(list []string) {
	if list == nil {
		w.raw("null")
		return
	}
	w.out = append(w.out, '[')
	for i, s := range list {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.str(s)
	}
	w.out = append(w.out, ']')
}

// key writes a member's key, after a comma unless it is the object's first.
// optInt writes key and *v when v is set.
func (w *canonicalWriter) optInt(first *bool, key string, v *int) {
	if v != nil {
		w.key(first, key)
		w.int(*v)
	}
}

func (w *canonicalWriter) key(first *bool, key string) {
	if !*first {
		w.out = append(w.out, ',')
	}
	*first = false
	w.out = append(w.out, '"')
	w.out = append(w.out, key...)
	w.out = append(w.out, '"', ':')
}

func (w *canonicalWriter) bundle(b *Bundle) {
	w.raw(`{"approvals":`)
	writeList(w, b.Approvals, w.approval)
	w.raw(`,"faults":`)
	writeList(w, b.Faults, w.fault)
	w.raw(`,"fleet":`)
	w.strings(b.Fleet)
	w.raw(`,"format":`)
	w.str(b.Format)
	w.raw(`,"inbox":`)
	writeList(w, b.Inbox, w.delivery)
	w.raw(`,"meta":`)
	w.meta(&b.Meta)
	w.raw(`,"mode":{"changed_at":`)
	w.int(b.Mode.ChangedAt)
	w.raw(`,"posture":`)
	w.str(b.Mode.Posture)
	w.raw(`},"model":`)
	w.model(&b.Model)
	w.raw(`,"rules":`)
	w.rules(b.Rules)
	if b.RulesJSON != "" {
		w.raw(`,"rules_json":`)
		w.str(b.RulesJSON)
	}
	w.raw(`,"signals":`)
	if b.Signals == nil {
		w.raw("null")
	} else {
		w.out = append(w.out, '[')
		for i := range b.Signals {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			s := &b.Signals[i]
			w.raw(`{"at":`)
			w.int(s.At)
			w.raw(`,"signal_id":`)
			w.str(s.ID)
			w.raw(`,"signal_type":`)
			w.str(s.Type)
			w.raw(`,"target":`)
			w.match(&s.Target)
			w.out = append(w.out, '}')
		}
		w.out = append(w.out, ']')
	}
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) approval(a *Approval) {
	w.raw(`{"approval_id":`)
	w.str(a.ID)
	w.raw(`,"at":`)
	w.int(a.At)
	if a.Binds != "" {
		w.raw(`,"binds":`)
		w.str(a.Binds)
	}
	w.raw(`,"decision":`)
	w.str(a.Decision)
	if a.Forge != "" {
		w.raw(`,"forge":`)
		w.str(a.Forge)
	}
	w.raw(`,"match":`)
	w.match(&a.Match)
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) match(m *Match) {
	first := true
	w.out = append(w.out, '{')
	if m.AgentID != "" {
		w.key(&first, "agent_id")
		w.str(m.AgentID)
	}
	if m.MessageID != "" {
		w.key(&first, "message_id")
		w.str(m.MessageID)
	}
	if m.WorkID != "" {
		w.key(&first, "work_id")
		w.str(m.WorkID)
	}
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) delivery(d *Delivery) {
	w.raw(`{"at":`)
	w.int(d.At)
	w.raw(`,"body":`)
	w.str(d.Body)
	w.raw(`,"conversation_id":`)
	w.str(d.ConversationID)
	w.raw(`,"from":`)
	w.str(d.From)
	w.raw(`,"id":`)
	w.str(d.ID)
	w.raw(`,"subject":`)
	w.str(d.Subject)
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) fault(f *Fault) {
	first := true
	w.out = append(w.out, '{')
	if f.AfterWrites != 0 {
		w.key(&first, "after_writes")
		w.int(f.AfterWrites)
	}
	if f.ApprovalID != "" {
		w.key(&first, "approval_id")
		w.str(f.ApprovalID)
	}
	w.key(&first, "at")
	w.int(f.At)
	if f.By != 0 {
		w.raw(`,"by":`)
		w.int(f.By)
	}
	if f.Down != 0 {
		w.raw(`,"down":`)
		w.int(f.Down)
	}
	w.raw(`,"kind":`)
	w.str(f.Kind)
	if f.MessageID != "" {
		w.raw(`,"message_id":`)
		w.str(f.MessageID)
	}
	if f.Posture != "" {
		w.raw(`,"posture":`)
		w.str(f.Posture)
	}
	if len(f.Rules) > 0 {
		w.raw(`,"rules":`)
		w.rules(f.Rules)
	}
	if f.RulesJSON != "" {
		w.raw(`,"rules_json":`)
		w.str(f.RulesJSON)
	}
	if f.Torn {
		w.raw(`,"torn":true`)
	}
	if f.WritesTo != "" {
		w.raw(`,"writes_to":`)
		w.str(f.WritesTo)
	}
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) meta(m *Meta) {
	w.raw(`{"description":`)
	w.str(m.Description)
	w.raw(`,"horizon":`)
	w.int(m.Horizon)
	w.raw(`,"name":`)
	w.str(m.Name)
	if o := m.Origin; o != nil {
		w.raw(`,"origin":{`)
		first := true
		for _, f := range []struct {
			key, value string
			always     bool
		}{
			{"campaign_seed", o.CampaignSeed, false},
			{"harness_version", o.HarnessVersion, false},
			{"impl", o.Impl, false},
			{"invariant", o.Invariant, false},
			{"kind", o.Kind, true},
			{"original_hash", o.OriginalHash, false},
			{"reserve_id", o.ReserveID, false},
			{"run", o.Run, false},
			{"shrunk_hash", o.ShrunkHash, false},
		} {
			if f.always || f.value != "" {
				w.key(&first, f.key)
				w.str(f.value)
			}
		}
		w.out = append(w.out, '}')
	}
	if m.StampScheduled {
		w.raw(`,"stamp_scheduled":true`)
	}
	w.raw(`,"top_level":`)
	w.int(m.TopLevel)
	w.raw(`,"version":`)
	w.int(m.Version)
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) model(m *Model) {
	w.raw(`{"anchors":`)
	w.strings(m.Anchors)
	if len(m.Failures) > 0 {
		w.raw(`,"failures":[`)
		for i := range m.Failures {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			f := &m.Failures[i]
			w.raw(`{"call":`)
			w.int(f.Call)
			if f.HoldMS != 0 {
				w.raw(`,"hold_ms":`)
				w.int(f.HoldMS)
			}
			w.raw(`,"kind":`)
			w.str(f.Kind)
			if f.RetryAfter != 0 {
				w.raw(`,"retry_after":`)
				w.int(f.RetryAfter)
			}
			w.out = append(w.out, '}')
		}
		w.out = append(w.out, ']')
	}
	if len(m.Replies) > 0 {
		w.raw(`,"replies":[`)
		for i := range m.Replies {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.reply(&m.Replies[i])
		}
		w.out = append(w.out, ']')
	}
	w.raw(`,"reply":`)
	w.str(m.Reply)
	w.raw(`,"reply_no_anchor":`)
	w.str(m.ReplyNoAnchor)
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) reply(r *ReplyRule) {
	w.raw(`{"id":`)
	w.str(r.ID)
	for _, f := range []struct {
		key   string
		value []byte
	}{{"json", r.JSON}, {"json_no_anchor", r.JSONNoAnchor}} {
		if len(f.value) == 0 {
			continue
		}
		w.raw(`,"`)
		w.raw(f.key)
		w.raw(`":`)
		out, err := jcs.AppendRaw(w.out, f.value)
		if err != nil {
			w.ok = false
			return
		}
		w.out = out
	}
	for _, f := range []struct{ key, value string }{
		{"reply", r.Reply}, {"reply_no_anchor", r.ReplyNoAnchor}, {"tool", r.Tool},
	} {
		if f.value != "" {
			w.raw(`,"`)
			w.raw(f.key)
			w.raw(`":`)
			w.str(f.value)
		}
	}
	if r.When != (ReplyWhen{}) {
		w.raw(`,"when":{`)
		first := true
		for _, f := range []struct{ key, value string }{
			{"contains", r.When.Contains}, {"format", r.When.Format}, {"schema", r.When.Schema}, {"tool", r.When.Tool},
		} {
			if f.value != "" {
				w.key(&first, f.key)
				w.str(f.value)
			}
		}
		w.out = append(w.out, '}')
	}
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) rules(rules []Rule) {
	if rules == nil {
		w.raw("null")
		return
	}
	w.out = append(w.out, '[')
	for i := range rules {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		r := &rules[i]
		w.raw(`{"admit":`)
		w.bool(r.Admit)
		w.raw(`,"id":`)
		w.str(r.ID)
		if len(r.Overrides) > 0 {
			w.raw(`,"overrides":`)
			w.strings(r.Overrides)
		}
		w.raw(`,"when":`)
		w.conditions(&r.When)
		w.out = append(w.out, '}')
	}
	w.out = append(w.out, ']')
}

func (w *canonicalWriter) conditions(c *Conditions) {
	if len(c.Unknown) > 0 {
		// Unknown keys interleave with the known ones in canonical order,
		// and their values are the loader's; the general path sorts them.
		w.ok = false
		return
	}
	first := true
	w.out = append(w.out, '{')
	if c.BodyContains != nil {
		w.key(&first, "body_contains")
		w.str(*c.BodyContains)
	}
	if c.FromIn != nil {
		w.key(&first, "from_in")
		w.strings(*c.FromIn)
	}
	if c.Posture != nil {
		w.key(&first, "posture")
		w.str(*c.Posture)
	}
	w.optInt(&first, "sender_history_max", c.SenderHistoryMax)
	w.optInt(&first, "sender_history_min", c.SenderHistoryMin)
	if c.SubjectContains != nil {
		w.key(&first, "subject_contains")
		w.str(*c.SubjectContains)
	}
	w.optInt(&first, "thread_length_max", c.ThreadLengthMax)
	w.optInt(&first, "thread_length_min", c.ThreadLengthMin)
	w.out = append(w.out, '}')
}

// writeList writes xs as a JSON array, one element at a time, or null for
// a nil slice, as encoding/json does.
func writeList[T any](w *canonicalWriter, xs []T, one func(*T)) {
	if xs == nil {
		w.raw("null")
		return
	}
	w.out = append(w.out, '[')
	for i := range xs {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		one(&xs[i])
	}
	w.out = append(w.out, ']')
}
