package examples

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
)

// The worked examples of docs/rules.md, read from rules.json text.
func TestAdmittedFollowsTheRulesDoc(t *testing.T) {
	const orders = `[
  {"id": "orders",  "admit": true,  "when": {"subject_contains": "order"}},
  {"id": "vip",     "admit": true,  "when": {"from_in": ["vip@example.com"]}},
  {"id": "freeze",  "admit": false, "when": {"posture": "maintenance"}, "overrides": ["orders"]}
]`
	const history = `[
  {"id": "returning-refund",   "admit": true, "when": {"subject_contains": "refund", "sender_history_min": 1}},
  {"id": "short-order-thread", "admit": true, "when": {"subject_contains": "order", "thread_length_max": 3}}
]`
	cases := []struct {
		name, rules string
		f           facts
		want        string // "" when not admitted
	}{
		{"subject any case", orders, facts{from: "ann@example.com", subject: "Order ORD-1 late", posture: "normal", threadLength: 1}, "orders"},
		{"exact sender", orders, facts{from: "vip@example.com", subject: "Hello", posture: "normal", threadLength: 1}, "vip"},
		{"sender case matters", orders, facts{from: "Ann@Example.com", subject: "Hi", posture: "normal", threadLength: 1}, ""},
		{"engaged rule switches another off", orders, facts{from: "ann@example.com", subject: "Re: Order ORD-1", posture: "maintenance", threadLength: 2}, ""},
		{"an override spares the others", orders, facts{from: "vip@example.com", subject: "Order for a VIP", posture: "maintenance", threadLength: 1}, "vip"},
		{"a disengaged rule overrides nothing", orders, facts{from: "ann@example.com", subject: "order", posture: "vip-only", threadLength: 1}, "orders"},
		{"first-time sender", history, facts{from: "dave@example.com", subject: "Refund please", posture: "normal", threadLength: 1}, ""},
		{"first matching rule in file order", history, facts{from: "dave@example.com", subject: "Refund for order ORD-2002", posture: "normal", threadLength: 1, senderHistory: 1}, "returning-refund"},
		{"thread length at the bound", history, facts{from: "carol@example.com", subject: "Order ORD-1001", posture: "normal", threadLength: 3, senderHistory: 2}, "short-order-thread"},
		{"thread length past the bound", history, facts{from: "carol@example.com", subject: "Order ORD-1001", posture: "normal", threadLength: 4, senderHistory: 3}, ""},
		{"unknown key never matches", `[{"id": "weekday-orders", "admit": true, "when": {"subject_contains": "order", "weekday": "monday"}}]`,
			facts{subject: "order", posture: "normal", threadLength: 1}, ""},
		{"a known key in another case is unknown", `[{"id": "a", "admit": true, "when": {"Subject_Contains": "order"}}]`,
			facts{subject: "order", posture: "normal", threadLength: 1}, ""},
		{"an unknown key still overrides", `[{"id": "a", "admit": true}, {"id": "b", "when": {"x": 1}, "overrides": ["a"]}]`,
			facts{subject: "s", posture: "normal", threadLength: 1}, ""},
		{"null is absent", `[{"id": "a", "admit": true, "when": {"subject_contains": null, "posture": null}}]`,
			facts{subject: "s", posture: "maintenance", threadLength: 1}, "a"},
		{"no conditions always hold", `[{"id": "a", "admit": true}]`, facts{posture: "normal", threadLength: 1}, "a"},
		{"admit false never admits", `[{"id": "a", "admit": false}]`, facts{posture: "normal", threadLength: 1}, ""},
		{"an empty sender list never matches", `[{"id": "a", "admit": true, "when": {"from_in": []}}]`, facts{from: "x", posture: "normal", threadLength: 1}, ""},
		{"body any case", `[{"id": "a", "admit": true, "when": {"body_contains": "REFUND"}}]`, facts{body: "a refund, please", posture: "normal", threadLength: 1}, "a"},
		{"sender history at most", `[{"id": "a", "admit": true, "when": {"sender_history_max": 0}}]`, facts{posture: "normal", threadLength: 1, senderHistory: 1}, ""},
		{"no rules admit nothing", `[]`, facts{posture: "normal", threadLength: 1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules, err := parseRules([]byte(c.rules))
			require.NoError(t, err)
			got, ok := admitted(rules, c.f)
			assert.Equal(t, c.want != "", ok)
			assert.Equal(t, c.want, got)
		})
	}
}

// A rules file the reference cannot read holds admissions back; it is never
// read as some other rule set.
func TestParseRulesRejectsWhatIsNotARuleList(t *testing.T) {
	for _, text := range []string{
		``, `{}`, `[{"id": 1}]`, `[{"id": "a", "when": []}]`,
		`[{"id": "a", "when": {"thread_length_min": "2"}}]`,
		`[{"id": "a", "when": {"from_in": "vip@example.com"}}]`,
		`[{"id": "a", "when": {"subject_contains": 3}}]`,
	} {
		_, err := parseRules([]byte(text))
		assert.Error(t, err, text)
	}
}

// The reference's reading of the rules and the harness's own are written
// apart; over generated rule sets and messages they must agree.
func TestAdmittedAgreesWithTheHarness(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := []string{"r0", "r1", "r2", "r3"}
		postures := []string{"normal", "maintenance", "vip-only"}
		words := []string{"order", "Refund", "ORD-1"}
		senders := []string{"ann@example.com", "vip@example.com", "Ann@Example.com"}
		// Each condition is present in a third of the rules, so many rules
		// match and the two readings are compared where it matters.
		maybe := func(label string) bool { return rapid.IntRange(0, 2).Draw(t, label) == 0 }
		var set []scenarios.Rule
		for i := range rapid.IntRange(0, 4).Draw(t, "rules") {
			r := scenarios.Rule{ID: ids[i], Admit: rapid.Bool().Draw(t, "admit")}
			c := &r.When
			if maybe("subject?") {
				c.SubjectContains = ptr(rapid.SampledFrom(words).Draw(t, "subject"))
			}
			if maybe("body?") {
				c.BodyContains = ptr(rapid.SampledFrom(words).Draw(t, "body"))
			}
			if maybe("from?") {
				from := rapid.SliceOfN(rapid.SampledFrom(senders), 0, 2).Draw(t, "from")
				c.FromIn = &from
			}
			if maybe("posture?") {
				c.Posture = ptr(rapid.SampledFrom(postures).Draw(t, "posture"))
			}
			for _, bound := range []**int{&c.ThreadLengthMin, &c.ThreadLengthMax, &c.SenderHistoryMin, &c.SenderHistoryMax} {
				if maybe("bound?") {
					*bound = ptr(rapid.IntRange(0, 3).Draw(t, "bound"))
				}
			}
			if maybe("unknown?") {
				c.Unknown = map[string]json.RawMessage{"weekday": json.RawMessage(`"monday"`)}
			}
			r.Overrides = rapid.SliceOfN(rapid.SampledFrom(ids), 0, 2).Draw(t, "overrides")
			set = append(set, r)
		}
		f := facts{
			subject:      rapid.SampledFrom([]string{"Order ORD-1", "refund", "hello"}).Draw(t, "msg subject"),
			body:         rapid.SampledFrom([]string{"my ORDER", "a refund", ""}).Draw(t, "msg body"),
			from:         rapid.SampledFrom(senders).Draw(t, "msg from"),
			posture:      rapid.SampledFrom(postures).Draw(t, "msg posture"),
			threadLength: rapid.IntRange(1, 4).Draw(t, "thread"), senderHistory: rapid.IntRange(0, 3).Draw(t, "history"),
		}
		rules, err := parseRules(scenarios.RulesBytes(set))
		require.NoError(t, err)
		got, ok := admitted(rules, f)
		want, wantOK := scenarios.Admitted(set, scenarios.Facts{Subject: f.subject, Body: f.body, From: f.from,
			Posture: f.posture, ThreadLength: f.threadLength, SenderHistory: f.senderHistory})
		require.Equal(t, wantOK, ok)
		require.Equal(t, want, got)
	})
}

func ptr[T any](v T) *T { return &v }

// A parse shared between instances answers for the bytes it was asked
// about: other bytes are parsed afresh, a list that is not one is refused,
// and the hash is always that of the bytes given.
func TestSharedRulesAnswerForTheirOwnBytes(t *testing.T) {
	a := []byte(`[{"id": "a", "admit": true}]`)
	b := []byte(`[{"id": "b", "admit": false, "when": {"posture": "maintenance"}}]`)
	var first, second caches
	ra, ok := first.parseRules(a)
	require.True(t, ok)
	rb, ok := second.parseRules(b)
	require.True(t, ok)
	require.Len(t, ra, 1)
	require.Len(t, rb, 1)
	assert.Equal(t, "a", ra[0].id)
	assert.Equal(t, "b", rb[0].id)
	assert.Equal(t, rulesHash(a), first.hashOf(a))
	assert.Equal(t, rulesHash(b), second.hashOf(b))
	assert.Equal(t, rulesHash(b), first.hashOf(b), "bytes the instance did not parse are hashed as given")

	again := append([]byte(nil), a...)
	var fresh caches
	r, ok := fresh.parseRules(again)
	require.True(t, ok)
	assert.Equal(t, "a", r[0].id)
	again[2] = 'x' // the caller's bytes change: the parse kept its own copy
	assert.Equal(t, rulesHash(a), fresh.hashOf(a))

	var broken caches
	_, ok = broken.parseRules([]byte(`{"id": "a"}`))
	assert.False(t, ok)
	_, ok = broken.parseRules(a[:10])
	assert.False(t, ok, "a torn copy of the last bytes parsed is not a rule list")
}

// mode.json and fleet.json decodes shared between instances answer for
// the bytes they were asked about, as the rules' do.
func TestSharedModeAndFleetAnswerForTheirOwnBytes(t *testing.T) {
	var a, b caches
	posture, ok := a.parseMode([]byte(`{"posture":"normal","changed_at":0}` + "\n"))
	assert.True(t, ok)
	assert.Equal(t, "normal", posture)
	posture, ok = b.parseMode([]byte(`{"posture":"frozen","changed_at":4}` + "\n"))
	assert.True(t, ok)
	assert.Equal(t, "frozen", posture, "bytes of the same length")
	var broken caches
	_, ok = broken.parseMode([]byte(`{"posture":`))
	assert.False(t, ok)
	posture, ok = (&caches{}).parseMode([]byte(`{"posture":"normal","changed_at":0}` + "\n"))
	assert.True(t, ok)
	assert.Equal(t, "normal", posture)

	assert.Equal(t, []string{"a", "b"}, a.parseFleet([]byte(`{"agents":["a","b","a"]}`)))
	assert.Equal(t, []string{"c"}, b.parseFleet([]byte(`{"agents":["c"]}`)))
	assert.Equal(t, defaultFleet, broken.parseFleet([]byte(`{"agents":`)))
	assert.Equal(t, []string{"a", "b"}, (&caches{}).parseFleet([]byte(`{"agents":["a","b","a"]}`)))
}
