package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestConditionsJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Conditions
		out  string // canonical re-encoding
	}{
		{"empty", `{}`, Conditions{}, `{}`},
		{"every known key", `{"sender_history_max":4,"subject_contains":"Order","body_contains":"late","from_in":["a@x","b@x"],"posture":"normal","thread_length_min":1,"thread_length_max":3,"sender_history_min":0}`,
			Conditions{SubjectContains: ptr("Order"), BodyContains: ptr("late"), FromIn: &[]string{"a@x", "b@x"}, Posture: ptr("normal"),
				ThreadLengthMin: ptr(1), ThreadLengthMax: ptr(3), SenderHistoryMin: ptr(0), SenderHistoryMax: ptr(4)},
			`{"subject_contains":"Order","body_contains":"late","from_in":["a@x","b@x"],"posture":"normal","thread_length_min":1,"thread_length_max":3,"sender_history_min":0,"sender_history_max":4}`},
		{"empty from_in stays a list", `{"from_in":[]}`, Conditions{FromIn: &[]string{}}, `{"from_in":[]}`},
		{"null is absent", `{"posture":null}`, Conditions{}, `{}`},
		{"unknown keys are kept canonical and sorted", `{"z_key": [1, 2], "a_key" : { "c": "\u003c\u0041", "b" : 1.50 }, "posture":"normal"}`,
			Conditions{Posture: ptr("normal"), Unknown: map[string]json.RawMessage{"z_key": json.RawMessage(`[1,2]`), "a_key": json.RawMessage(`{"b":1.50,"c":"<A"}`)}},
			`{"posture":"normal","a_key":{"b":1.50,"c":"<A"},"z_key":[1,2]}`},
		{"a known key in another case is unknown", `{"Subject_Contains":"x"}`,
			Conditions{Unknown: map[string]json.RawMessage{"Subject_Contains": json.RawMessage(`"x"`)}}, `{"Subject_Contains":"x"}`},
		{"unknown key only", `{"weekday":"monday"}`,
			Conditions{Unknown: map[string]json.RawMessage{"weekday": json.RawMessage(`"monday"`)}}, `{"weekday":"monday"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Conditions
			require.NoError(t, json.Unmarshal([]byte(tc.in), &c))
			assert.Equal(t, tc.want, c)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(c))
			out := bytes.TrimSpace(buf.Bytes())
			assert.Equal(t, tc.out, string(out))
			var back Conditions
			require.NoError(t, json.Unmarshal(out, &back))
			assert.Equal(t, c, back)
			// json.Marshal escapes HTML characters; the value reads back the same.
			escaped, err := json.Marshal(c)
			require.NoError(t, err)
			var back2 Conditions
			require.NoError(t, json.Unmarshal(escaped, &back2))
			assert.Equal(t, c, back2)
		})
	}
}

func TestConditionsJSONErrors(t *testing.T) {
	for _, in := range []string{`[]`, `"x"`, `{"thread_length_min":"2"}`, `{"from_in":"a@x"}`, `{"posture":1}`} {
		var c Conditions
		assert.Error(t, json.Unmarshal([]byte(in), &c), in)
	}
}

func TestMatches(t *testing.T) {
	f := Facts{Subject: "Order ORD-1 is LATE", Body: "Where is my parcel?", From: "ann@example.com", Posture: "normal", ThreadLength: 2, SenderHistory: 3}
	tests := []struct {
		name string
		c    Conditions
		want bool
	}{
		{"no conditions", Conditions{}, true},
		{"subject substring, any case", Conditions{SubjectContains: ptr("late")}, true},
		{"subject condition in capitals", Conditions{SubjectContains: ptr("ORD-1 IS")}, true},
		{"subject absent", Conditions{SubjectContains: ptr("refund")}, false},
		{"subject does not look at the body", Conditions{SubjectContains: ptr("parcel")}, false},
		{"body substring, any case", Conditions{BodyContains: ptr("PARCEL")}, true},
		{"body absent", Conditions{BodyContains: ptr("order")}, false},
		{"from_in exact", Conditions{FromIn: &[]string{"bob@example.com", "ann@example.com"}}, true},
		{"from_in is case-sensitive", Conditions{FromIn: &[]string{"Ann@example.com"}}, false},
		{"from_in is not a substring test", Conditions{FromIn: &[]string{"ann@example"}}, false},
		{"from_in empty", Conditions{FromIn: &[]string{}}, false},
		{"posture equal", Conditions{Posture: ptr("normal")}, true},
		{"posture differs", Conditions{Posture: ptr("maintenance")}, false},
		{"thread length min inclusive", Conditions{ThreadLengthMin: ptr(2)}, true},
		{"thread length min above", Conditions{ThreadLengthMin: ptr(3)}, false},
		{"thread length max inclusive", Conditions{ThreadLengthMax: ptr(2)}, true},
		{"thread length max below", Conditions{ThreadLengthMax: ptr(1)}, false},
		{"sender history min inclusive", Conditions{SenderHistoryMin: ptr(3)}, true},
		{"sender history min above", Conditions{SenderHistoryMin: ptr(4)}, false},
		{"sender history max inclusive", Conditions{SenderHistoryMax: ptr(3)}, true},
		{"sender history max below", Conditions{SenderHistoryMax: ptr(2)}, false},
		{"all conditions hold", Conditions{SubjectContains: ptr("order"), FromIn: &[]string{"ann@example.com"}, ThreadLengthMax: ptr(5)}, true},
		{"one condition fails", Conditions{SubjectContains: ptr("order"), FromIn: &[]string{"bob@example.com"}}, false},
		{"unknown key never matches", Conditions{Unknown: map[string]json.RawMessage{"weekday": json.RawMessage(`"monday"`)}}, false},
		{"unknown key spoils known ones", Conditions{SubjectContains: ptr("order"), Unknown: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.c.Matches(f))
		})
	}
}

func TestAdmitted(t *testing.T) {
	order := Facts{Subject: "Order late", From: "ann@example.com", Posture: "normal", ThreadLength: 1}
	vip := Facts{Subject: "Hello", From: "vip@example.com", Posture: "normal", ThreadLength: 1}
	in := func(f Facts, posture string) Facts { f.Posture = posture; return f }
	rules := []Rule{
		{ID: "orders", Admit: true, When: Conditions{SubjectContains: ptr("order")}},
		{ID: "vip", Admit: true, When: Conditions{FromIn: &[]string{"vip@example.com"}}},
		{ID: "vip-only", When: Conditions{Posture: ptr("vip-only")}, Overrides: []string{"orders"}},
		{ID: "freeze", When: Conditions{Posture: ptr("maintenance")}, Overrides: []string{"orders", "vip"}},
	}
	tests := []struct {
		name   string
		rules  []Rule
		facts  Facts
		wantID string
	}{
		{"first matching admit rule", rules, order, "orders"},
		{"another rule", rules, vip, "vip"},
		{"nothing matches", rules, Facts{Subject: "Hi", From: "bob@example.com", Posture: "normal"}, ""},
		{"engaged override switches a rule off", rules, in(order, "vip-only"), ""},
		{"an override leaves other rules on", rules, in(vip, "vip-only"), "vip"},
		{"overrides only while engaged", rules, in(order, "normal"), "orders"},
		{"maintenance switches both off", rules, in(vip, "maintenance"), ""},
		{"a rule not engaged does not admit", []Rule{{ID: "m", Admit: true, When: Conditions{Posture: ptr("maintenance")}}}, order, ""},
		{"an engaged posture rule admits", []Rule{{ID: "m", Admit: true, When: Conditions{Posture: ptr("maintenance")}}}, in(order, "maintenance"), "m"},
		{"admit false never admits", []Rule{{ID: "deny", When: Conditions{}}}, order, ""},
		{"a deny rule does not block another rule", []Rule{{ID: "deny"}, {ID: "all", Admit: true}}, order, "all"},
		{"override by a non-admitting rule without posture", []Rule{{ID: "all", Admit: true}, {ID: "off", Overrides: []string{"all"}}}, order, ""},
		{"override by a rule whose other conditions fail still applies", []Rule{{ID: "all", Admit: true},
			{ID: "off", When: Conditions{SubjectContains: ptr("nothing like it")}, Overrides: []string{"all"}}}, order, ""},
		{"rule order picks the reported id", []Rule{{ID: "b", Admit: true}, {ID: "a", Admit: true}}, order, "b"},
		{"unknown condition never admits", []Rule{{ID: "x", Admit: true, When: Conditions{Unknown: map[string]json.RawMessage{"tag": json.RawMessage(`"a"`)}}}}, order, ""},
		{"thread length rule", []Rule{{ID: "first", Admit: true, When: Conditions{ThreadLengthMax: ptr(1)}}}, order, "first"},
		{"thread length rule on a follow-up", []Rule{{ID: "first", Admit: true, When: Conditions{ThreadLengthMax: ptr(1)}}}, Facts{ThreadLength: 2}, ""},
		{"sender history rule", []Rule{{ID: "known", Admit: true, When: Conditions{SenderHistoryMin: ptr(1)}}}, Facts{SenderHistory: 1}, "known"},
		{"sender history rule, first contact", []Rule{{ID: "known", Admit: true, When: Conditions{SenderHistoryMin: ptr(1)}}}, Facts{}, ""},
		{"no rules", nil, order, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := Admitted(tc.rules, tc.facts)
			assert.Equal(t, tc.wantID, id)
			assert.Equal(t, tc.wantID != "", ok)
		})
	}
}

func TestRulesBytesAndHash(t *testing.T) {
	b := baseBundle()
	data := RulesBytes(b.Rules)
	assert.Equal(t, byte('['), data[0])
	assert.Equal(t, byte('\n'), data[len(data)-1])
	assert.Equal(t, "[]\n", string(RulesBytes(nil)))
	sum := sha256.Sum256(data)
	assert.Equal(t, hex.EncodeToString(sum[:]), RulesHash(data))
	assert.Len(t, RulesHash(data), 64)

	// Both forms, and any formatting of the file, give the same bytes.
	dir := t.TempDir()
	require.NoError(t, SaveDir(b, dir))
	fromDir, _, err := LoadDir(dir)
	require.NoError(t, err)
	js, err := b.MarshalIndent()
	require.NoError(t, err)
	fromJSON, _, err := Parse("b.json", js)
	require.NoError(t, err)
	assert.Equal(t, data, RulesBytes(fromDir.Rules))
	assert.Equal(t, data, RulesBytes(fromJSON.Rules))

	compact := `[{"id":"orders","admit":true,"when":{"subject_contains":"order"}},{"id":"vip","admit":true,"when":{"from_in":["vip@example.com"]}},{"id":"gate","admit":false,"when":{"posture":"maintenance"},"overrides":["orders"]}]`
	var reformatted []Rule
	require.NoError(t, json.Unmarshal([]byte(compact), &reformatted))
	assert.Equal(t, RulesHash(data), RulesHash(RulesBytes(reformatted)))

	// A different rule set hashes differently.
	b.Rules[0].Admit = false
	assert.NotEqual(t, RulesHash(data), RulesHash(RulesBytes(b.Rules)))

	// The saved rules.json is exactly RulesBytes.
	saved, err := readLimited(filepath.Join(dir, FileRules))
	require.NoError(t, err)
	assert.Equal(t, data, saved)
}

// The encoding of the last rule set is reused only for equal rules: a rule
// set changed in place after it was encoded is encoded afresh, and the
// copy kept is equal to what was encoded, so equal rules do hit it.
func TestRulesBytesFollowsTheRulesGiven(t *testing.T) {
	s, n := "order", 2
	from := []string{"a@x"}
	rules := []Rule{
		{ID: "orders", Admit: true, When: Conditions{SubjectContains: &s, ThreadLengthMax: &n, FromIn: &from,
			Unknown: map[string]json.RawMessage{"color": json.RawMessage(`"red"`)}}, Overrides: []string{}},
		{ID: "off", When: Conditions{FromIn: &[]string{}}},
	}
	first := RulesBytes(rules)
	require.Equal(t, string(encodeRules(rules)), string(first))
	require.True(t, reflect.DeepEqual(cloneRules(rules), rules), "the kept copy equals the rules")
	first[0] = 'x' // a caller's copy: the next answer is unchanged
	require.Equal(t, string(encodeRules(rules)), string(RulesBytes(rules)))

	s = "refund"
	from[0] = "b@x"
	rules[1].Admit = true
	changed := RulesBytes(rules)
	require.Equal(t, string(encodeRules(rules)), string(changed))
	require.Contains(t, string(changed), "refund")
	require.Contains(t, string(changed), "b@x")

	require.Equal(t, "[]\n", string(RulesBytes(nil)))
	require.Equal(t, "[]\n", string(RulesBytes([]Rule{})))
}

// The in-place comparison of ASCII agrees with lowering both strings, and
// other text still goes through strings.ToLower.
func TestContainsFoldedIsLoweredContains(t *testing.T) {
	chars := []rune{'a', 'B', 'z', 'Z', '@', '[', '`', '{', ' ', 'é', 'É', 'İ', 'K', 'ß', 'k', 'i'}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom(chars), 0, 12, -1).Draw(t, "s")
		sub := rapid.StringOfN(rapid.SampledFrom(chars), 0, 3, -1).Draw(t, "sub")
		if rapid.Bool().Draw(t, "inside") && len(s) > 0 {
			i := rapid.IntRange(0, len(s)).Draw(t, "at")
			sub = strings.ToUpper(s[:i])
		}
		want := strings.Contains(strings.ToLower(s), strings.ToLower(sub))
		if got := containsFolded(s, sub); got != want {
			t.Fatalf("containsFolded(%q, %q) = %v, want %v", s, sub, got, want)
		}
	})
}
