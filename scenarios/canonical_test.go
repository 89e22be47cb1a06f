package scenarios

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/amr-bench/amr/internal/jcs"
	"pgregory.net/rapid"
)

// hashStrings are strings where a canonical string could go wrong: the
// escapes, HTML characters encoding/json escapes, the line separators it
// escapes, invalid UTF-8 (one U+FFFD per byte), characters beyond U+FFFF.
var hashStrings = []string{
	"", "plain", "a\"b", `back\slash`, "tab\tnew\nline\r", "\b\f\x00\x1f\x7f", "<&>", "\u2028\u2029",
	"é", "\xff", "a\xc3", "\xed\xa0\x80", "\xf0\x9f\x98\x82", "\ufffd", "/", "{{anchor}}",
}

func genHashString() *rapid.Generator[string] {
	return rapid.OneOf(rapid.SampledFrom(hashStrings), rapid.String(),
		rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) }))
}

// genHashInt is mostly small, sometimes at or past the double's exact range.
func genHashInt() *rapid.Generator[int] {
	return rapid.OneOf(rapid.IntRange(-3, 300), rapid.SampledFrom([]int{0, 1 << 53, -(1 << 53), 1<<53 + 1, -(1<<53 + 1), 1 << 60, 999999999999999, 1e15, -1e15}),
		rapid.Int())
}

func genHashStrings() *rapid.Generator[[]string] {
	return rapid.Custom(func(t *rapid.T) []string {
		if rapid.IntRange(0, 4).Draw(t, "nil") == 0 {
			return nil
		}
		return rapid.SliceOfN(genHashString(), 0, 3).Draw(t, "list")
	})
}

func maybe[T any](g *rapid.Generator[T]) *rapid.Generator[*T] {
	return rapid.Custom(func(t *rapid.T) *T {
		if rapid.Bool().Draw(t, "present") {
			return nil
		}
		v := g.Draw(t, "value")
		return &v
	})
}

// hashRaws are raw JSON answers: canonical or not, with spacing, HTML
// characters, large integers and texts that are not JSON at all.
var hashRaws = []string{
	"", `{"b":1,"a":[true,null]}`, ` { "x" : "<y>" } `, `12345678901234567890`, `1e400`, `{"a":1,"a":2}`, `{`,
	`"\u00e9\ud83d\ude02"`, `[1.50,-0,2E3]`, `"\xff"`, `null`, `{"n":9007199254740993}`,
}

func genHashRules() *rapid.Generator[[]Rule] {
	return rapid.Custom(func(t *rapid.T) []Rule {
		if rapid.IntRange(0, 4).Draw(t, "nil") == 0 {
			return nil
		}
		var rules []Rule
		for range rapid.IntRange(0, 3).Draw(t, "n") {
			r := Rule{ID: genHashString().Draw(t, "id"), Admit: rapid.Bool().Draw(t, "admit"), Overrides: genHashStrings().Draw(t, "overrides")}
			c := &r.When
			c.SubjectContains = maybe(genHashString()).Draw(t, "subject")
			c.BodyContains = maybe(genHashString()).Draw(t, "body")
			c.FromIn = maybe(genHashStrings()).Draw(t, "from_in")
			c.Posture = maybe(genHashString()).Draw(t, "posture")
			c.ThreadLengthMin = maybe(genHashInt()).Draw(t, "tmin")
			c.ThreadLengthMax = maybe(genHashInt()).Draw(t, "tmax")
			c.SenderHistoryMin = maybe(genHashInt()).Draw(t, "smin")
			c.SenderHistoryMax = maybe(genHashInt()).Draw(t, "smax")
			if rapid.IntRange(0, 5).Draw(t, "unknown") == 0 {
				c.Unknown = map[string]json.RawMessage{genHashString().Draw(t, "key"): json.RawMessage(rapid.SampledFrom(unknownValues).Draw(t, "v"))}
			}
			rules = append(rules, r)
		}
		return rules
	})
}

// genHashBundle draws bundles of any content, valid or not: the canonical
// bytes are defined for every value, and the hand layout must give them or
// step aside for every one.
func genHashBundle() *rapid.Generator[*Bundle] {
	return rapid.Custom(func(t *rapid.T) *Bundle {
		s, n := genHashString(), genHashInt()
		b := &Bundle{
			Format: s.Draw(t, "format"),
			Meta: Meta{Name: s.Draw(t, "name"), Version: n.Draw(t, "version"), Description: s.Draw(t, "description"),
				TopLevel: n.Draw(t, "top"), Horizon: n.Draw(t, "horizon"), StampScheduled: rapid.Bool().Draw(t, "stamp")},
			Fleet:     genHashStrings().Draw(t, "fleet"),
			Mode:      Mode{Posture: s.Draw(t, "posture"), ChangedAt: n.Draw(t, "changed_at")},
			Rules:     genHashRules().Draw(t, "rules"),
			RulesJSON: rapid.SampledFrom([]string{"", "[]\n", "x\"<>"}).Draw(t, "rules_json"),
			Model: Model{Anchors: genHashStrings().Draw(t, "anchors"), Reply: s.Draw(t, "reply"),
				ReplyNoAnchor: s.Draw(t, "reply_no_anchor")},
		}
		if rapid.Bool().Draw(t, "origin") {
			b.Meta.Origin = &Origin{Kind: s.Draw(t, "kind")}
			for _, f := range []*string{&b.Meta.Origin.CampaignSeed, &b.Meta.Origin.Run, &b.Meta.Origin.Impl, &b.Meta.Origin.Invariant,
				&b.Meta.Origin.OriginalHash, &b.Meta.Origin.ShrunkHash, &b.Meta.Origin.ReserveID, &b.Meta.Origin.HarnessVersion} {
				if rapid.Bool().Draw(t, "has") {
					*f = s.Draw(t, "origin_field")
				}
			}
		}
		for range rapid.IntRange(0, 2).Draw(t, "replies") {
			r := ReplyRule{ID: s.Draw(t, "id"), JSON: json.RawMessage(rapid.SampledFrom(hashRaws).Draw(t, "json")),
				JSONNoAnchor: json.RawMessage(rapid.SampledFrom(hashRaws).Draw(t, "json_no_anchor"))}
			for _, f := range []*string{&r.Reply, &r.ReplyNoAnchor, &r.Tool, &r.When.Contains, &r.When.Format, &r.When.Schema, &r.When.Tool} {
				if rapid.Bool().Draw(t, "has") {
					*f = s.Draw(t, "reply_field")
				}
			}
			b.Model.Replies = append(b.Model.Replies, r)
		}
		for range rapid.IntRange(0, 2).Draw(t, "failures") {
			b.Model.Failures = append(b.Model.Failures, ModelFailure{Call: n.Draw(t, "call"), Kind: s.Draw(t, "kind"),
				RetryAfter: n.Draw(t, "retry"), HoldMS: n.Draw(t, "hold")})
		}
		if rapid.Bool().Draw(t, "has_inbox") {
			b.Inbox = []Delivery{}
			for range rapid.IntRange(0, 3).Draw(t, "inbox") {
				b.Inbox = append(b.Inbox, Delivery{ID: s.Draw(t, "id"), ConversationID: s.Draw(t, "c"), From: s.Draw(t, "from"),
					Subject: s.Draw(t, "subject"), Body: s.Draw(t, "body"), At: n.Draw(t, "at")})
			}
		}
		match := func(name string) Match {
			var m Match
			for _, f := range []*string{&m.MessageID, &m.WorkID, &m.AgentID} {
				if rapid.Bool().Draw(t, name) {
					*f = s.Draw(t, name+"_id")
				}
			}
			return m
		}
		if rapid.Bool().Draw(t, "has_approvals") {
			b.Approvals = []Approval{}
			for range rapid.IntRange(0, 3).Draw(t, "approvals") {
				b.Approvals = append(b.Approvals, Approval{ID: s.Draw(t, "id"), At: n.Draw(t, "at"), Match: match("match"),
					Decision: s.Draw(t, "decision"), Forge: rapid.SampledFrom([]string{"", "", ForgeDangling, "\xfe"}).Draw(t, "forge"),
					Binds: rapid.SampledFrom([]string{"", BindsPrevious}).Draw(t, "binds")})
			}
		}
		if rapid.Bool().Draw(t, "has_signals") {
			b.Signals = []Signal{}
			for range rapid.IntRange(0, 3).Draw(t, "signals") {
				b.Signals = append(b.Signals, Signal{ID: s.Draw(t, "id"), At: n.Draw(t, "at"), Type: s.Draw(t, "type"), Target: match("target")})
			}
		}
		if rapid.Bool().Draw(t, "has_faults") {
			b.Faults = []Fault{}
			for range rapid.IntRange(0, 4).Draw(t, "faults") {
				f := Fault{At: n.Draw(t, "at"), Kind: rapid.SampledFrom(FaultKinds).Draw(t, "kind"), Torn: rapid.Bool().Draw(t, "torn")}
				for _, p := range []*int{&f.AfterWrites, &f.Down, &f.By} {
					if rapid.Bool().Draw(t, "has") {
						*p = n.Draw(t, "int")
					}
				}
				for _, p := range []*string{&f.WritesTo, &f.MessageID, &f.ApprovalID, &f.Posture} {
					if rapid.Bool().Draw(t, "has") {
						*p = s.Draw(t, "str")
					}
				}
				f.Rules = genHashRules().Draw(t, "rules")
				f.RulesJSON = rapid.SampledFrom([]string{"", "[]\n", "\x01"}).Draw(t, "rules_json")
				b.Faults = append(b.Faults, f)
			}
		}
		return b
	})
}

// The hand layout gives jcs.Marshal's bytes for every bundle it lays out,
// and lays out every bundle without an unknown condition, a raw answer or an
// integer the general path must judge.
func TestAppendCanonicalMatchesMarshal(t *testing.T) {
	laid := 0
	rapid.Check(t, func(t *rapid.T) {
		b := genHashBundle().Draw(t, "bundle")
		want, wantErr := jcs.Marshal(b)
		got, ok := appendCanonical(nil, b)
		if ok {
			laid++
			if wantErr != nil {
				t.Fatalf("laid out a bundle the general path rejects (%v): %s", wantErr, got)
			}
			if string(got) != string(want) {
				t.Fatalf("canonical bytes differ:\n got %s\nwant %s", got, want)
			}
		} else if plainForHash(b) {
			t.Fatalf("stepped aside for a bundle it can lay out: %s", want)
		}
		// The bundle's own entry points agree with the general path either way.
		form := b.HashForm()
		wantForm, wantFormErr := jcs.Marshal(form)
		gotForm, err := b.Canonical()
		if (err == nil) != (wantFormErr == nil) || string(gotForm) != string(wantForm) {
			t.Fatalf("Canonical: got %s, %v; want %s, %v", gotForm, err, wantForm, wantFormErr)
		}
		h, err := b.Hash()
		if wantFormErr != nil {
			if err == nil || err.Error() != "bundle "+strconv.Quote(b.Meta.Name)+": "+wantFormErr.Error() {
				t.Fatalf("Hash error %v, want the general path's %v", err, wantFormErr)
			}
		} else if err != nil || h != HashPrefix+RulesHash(wantForm) {
			t.Fatalf("Hash %s, %v; want the sha256 of %s", h, err, wantForm)
		}
	})
	if laid == 0 {
		t.Fatal("no bundle was laid out by hand")
	}
}

// plainForHash reports whether nothing in the bundle needs the general path.
func plainForHash(b *Bundle) bool {
	exact := func(n int) bool { return n <= 1<<53 && n >= -(1<<53) }
	ints := []int{b.Meta.Version, b.Meta.TopLevel, b.Meta.Horizon, b.Mode.ChangedAt}
	rules := [][]Rule{b.Rules}
	for _, f := range b.Model.Failures {
		ints = append(ints, f.Call, f.RetryAfter, f.HoldMS)
	}
	if len(b.Model.Replies) > 0 {
		return false
	}
	for _, d := range b.Inbox {
		ints = append(ints, d.At)
	}
	for _, a := range b.Approvals {
		ints = append(ints, a.At)
	}
	for _, s := range b.Signals {
		ints = append(ints, s.At)
	}
	for _, f := range b.Faults {
		ints = append(ints, f.At, f.AfterWrites, f.Down, f.By)
		rules = append(rules, f.Rules)
	}
	for _, rs := range rules {
		for _, r := range rs {
			if len(r.When.Unknown) > 0 {
				return false
			}
			for _, p := range []*int{r.When.ThreadLengthMin, r.When.ThreadLengthMax, r.When.SenderHistoryMin, r.When.SenderHistoryMax} {
				if p != nil {
					ints = append(ints, *p)
				}
			}
		}
	}
	for _, n := range ints {
		if !exact(n) {
			return false
		}
	}
	return true
}

// The hand layout names every field of a bundle's types with its JSON
// name; a field added or renamed must be laid out too, or the hash would
// leave it out where jcs.Marshal writes it. This test fails first,
// pointing at canonical.go.
func TestAppendCanonicalKnowsEveryField(t *testing.T) {
	want := map[string]string{
		"Bundle":       "format meta fleet mode rules rules_json,omitempty model inbox approvals signals faults",
		"Meta":         "name version description top_level horizon origin,omitempty stamp_scheduled,omitempty",
		"Origin":       "kind campaign_seed,omitempty run,omitempty impl,omitempty invariant,omitempty original_hash,omitempty shrunk_hash,omitempty reserve_id,omitempty harness_version,omitempty",
		"Mode":         "posture changed_at",
		"Model":        "anchors reply reply_no_anchor replies,omitempty failures,omitempty",
		"ReplyRule":    "id when,omitzero reply,omitempty reply_no_anchor,omitempty json,omitempty json_no_anchor,omitempty tool,omitempty",
		"ReplyWhen":    "contains,omitempty format,omitempty schema,omitempty tool,omitempty",
		"ModelFailure": "call kind retry_after,omitempty hold_ms,omitempty",
		"Delivery":     "id conversation_id from subject body at",
		"Match":        "message_id,omitempty work_id,omitempty agent_id,omitempty",
		"Approval":     "approval_id at match decision forge,omitempty binds,omitempty",
		"Signal":       "signal_id at signal_type target",
		"Fault":        "at kind after_writes,omitempty writes_to,omitempty down,omitempty torn,omitempty message_id,omitempty approval_id,omitempty by,omitempty posture,omitempty rules,omitempty rules_json,omitempty",
		"Rule":         "id admit when overrides,omitempty",
		"Conditions":   "subject_contains,omitempty body_contains,omitempty from_in,omitempty posture,omitempty thread_length_min,omitempty thread_length_max,omitempty sender_history_min,omitempty sender_history_max,omitempty -",
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Bundle](), reflect.TypeFor[Meta](), reflect.TypeFor[Origin](),
		reflect.TypeFor[Mode](), reflect.TypeFor[Model](), reflect.TypeFor[ReplyRule](), reflect.TypeFor[ReplyWhen](),
		reflect.TypeFor[ModelFailure](), reflect.TypeFor[Delivery](), reflect.TypeFor[Match](), reflect.TypeFor[Approval](),
		reflect.TypeFor[Signal](), reflect.TypeFor[Fault](), reflect.TypeFor[Rule](), reflect.TypeFor[Conditions]()} {
		var tags []string
		for i := range typ.NumField() {
			tags = append(tags, typ.Field(i).Tag.Get("json"))
		}
		if got := strings.Join(tags, " "); got != want[typ.Name()] {
			t.Errorf("%s has the fields %q; canonical.go lays out %q", typ.Name(), got, want[typ.Name()])
		}
	}
}
