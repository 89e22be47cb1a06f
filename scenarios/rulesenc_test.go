package scenarios

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// genAnyRules draws rule sets with every field in every shape, strings of
// any bytes among plain ones, so both the fast layout and its fallback run.
func genAnyRules() *rapid.Generator[[]Rule] {
	str := rapid.OneOf(rapid.SampledFrom([]string{"", "order", "ORD-1", "a<b", "x&y", "q\"uote", "back\\slash", "tab\t", "é", "\u2028", "\xff"}),
		rapid.StringMatching(`[ -~]{0,8}`), rapid.String())
	optStr := func(t *rapid.T, name string) *string {
		if rapid.Bool().Draw(t, name) {
			return ptr(str.Draw(t, name+"_v"))
		}
		return nil
	}
	optInt := func(t *rapid.T, name string) *int {
		if rapid.Bool().Draw(t, name) {
			return ptr(rapid.IntRange(-1<<40, 1<<40).Draw(t, name+"_v"))
		}
		return nil
	}
	strs := func(t *rapid.T, name string) []string {
		switch rapid.IntRange(0, 2).Draw(t, name) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return rapid.SliceOfN(str, 1, 3).Draw(t, name+"_v")
	}
	return rapid.Custom(func(t *rapid.T) []Rule {
		n := rapid.IntRange(-1, 4).Draw(t, "n")
		if n < 0 {
			return nil
		}
		rules := make([]Rule, n)
		for i := range rules {
			c := Conditions{SubjectContains: optStr(t, "subject"), BodyContains: optStr(t, "body"), Posture: optStr(t, "posture"),
				ThreadLengthMin: optInt(t, "tmin"), ThreadLengthMax: optInt(t, "tmax"),
				SenderHistoryMin: optInt(t, "smin"), SenderHistoryMax: optInt(t, "smax")}
			if rapid.Bool().Draw(t, "from") {
				from := strs(t, "from_in")
				c.FromIn = &from
			}
			if rapid.IntRange(0, 5).Draw(t, "unknown") == 0 {
				c.Unknown = map[string]json.RawMessage{"x_colour": json.RawMessage(`"red"`)}
			}
			rules[i] = Rule{ID: str.Draw(t, "id"), Admit: rapid.Bool().Draw(t, "admit"), When: c, Overrides: strs(t, "overrides")}
		}
		return rules
	})
}

// The hand layout of rules.json is encoding/json's, byte for byte.
func TestEncodeRulesMatchesEncoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rules := genAnyRules().Draw(t, "rules")
		if rapid.Bool().Draw(t, "generated") {
			rules = genRules("r").Draw(t, "generated_rules")
		}
		require.Equal(t, string(encodeRulesSlow(rules)), string(encodeRules(rules)))
	})
}

func TestEncodeRulesMatchesEncoderOnPublished(t *testing.T) {
	published, err := Published()
	require.NoError(t, err)
	fast := 0
	for _, p := range published {
		sets := [][]Rule{p.Bundle.Rules}
		for _, f := range p.Bundle.Faults {
			if f.Kind == FaultRules {
				sets = append(sets, f.Rules)
			}
		}
		for _, rules := range sets {
			if _, ok := encodeRulesFast(rules); ok {
				fast++
			}
			require.Equal(t, string(encodeRulesSlow(rules)), string(encodeRules(rules)), p.Bundle.Meta.Name)
		}
	}
	require.Positive(t, fast, "the fast layout takes the published rules")
}

// The hand layout names every field of Rule and Conditions; a field added to
// either must be added to appendRuleFast or appendConditionsFast too, or the
// fast bytes would leave it out while encoding/json writes it. This test
// fails first, pointing here.
func TestEncodeRulesFastKnowsEveryField(t *testing.T) {
	require.Equal(t, []string{"ID", "Admit", "When", "Overrides"}, fieldNames(reflect.TypeFor[Rule]()))
	require.Equal(t, []string{"SubjectContains", "BodyContains", "FromIn", "Posture",
		"ThreadLengthMin", "ThreadLengthMax", "SenderHistoryMin", "SenderHistoryMax", "Unknown"},
		fieldNames(reflect.TypeFor[Conditions]()))
}

func fieldNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Name
	}
	return names
}
