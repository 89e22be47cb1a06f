package examples

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
)

// requirePlainMatchesDecode holds the plain reader to encoding/json on one
// text: where it reads the text, its rules are decodeRules' exactly.
func requirePlainMatchesDecode(t require.TestingT, text []byte) bool {
	got, ok := parsePlainRules(text)
	if !ok {
		return false
	}
	want, err := decodeRules(text)
	require.NoError(t, err, "read as plain, refused by the decoder: %s", text)
	require.Equal(t, want, got, "%s", text)
	return true
}

// rulesText draws a rules.json text near the plain form: members in any
// order, spaced any way, some of them what the plain reader must leave to
// the decoder (escapes, other cases, duplicates, fractions, exponents,
// leading zeros, unknown keys, wrong types, non-ASCII, bad syntax).
func rulesText(t *rapid.T) string {
	str := func(label string) string {
		return rapid.SampledFrom([]string{`""`, `"order"`, `"Order ORD-1"`, `"a b~"`, `"a\"b"`, `"a\\b"`,
			`"\u0041"`, `"é"`, `"a\nb"`, `null`, `1`, `true`, `"<&>"`}).Draw(t, label)
	}
	num := func(label string) string {
		return rapid.SampledFrom([]string{`0`, `1`, `3`, `-1`, `-0`, `12`, `1.0`, `1e2`, `01`, `999999999999999999`,
			`9999999999999999999`, `null`, `"1"`, `1.5`}).Draw(t, label)
	}
	list := func(label string) string {
		return rapid.SampledFrom([]string{`[]`, `["a@example.com"]`, `["a", "b"]`, `[1]`, `null`, `"a"`, `["a",]`,
			`[ "x" , "y" ]`}).Draw(t, label)
	}
	sp := func(label string) string {
		return rapid.SampledFrom([]string{"", " ", "\n  ", "\t", "\r\n"}).Draw(t, label)
	}
	condKeys := []string{"subject_contains", "body_contains", "posture", "from_in", "thread_length_min",
		"thread_length_max", "sender_history_min", "sender_history_max", "weekday", "Posture"}
	var b strings.Builder
	b.WriteString(sp("lead") + "[")
	n := rapid.IntRange(0, 3).Draw(t, "rules")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(sp("before") + "{")
		keys := rapid.SliceOfN(rapid.SampledFrom([]string{"id", "admit", "when", "overrides", "ID", "note"}), 0, 5).Draw(t, "keys")
		for j, k := range keys {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(sp("key") + `"` + k + `"` + sp("colon") + ":" + sp("value"))
			switch k {
			case "id", "ID", "note":
				b.WriteString(str("id"))
			case "admit":
				b.WriteString(rapid.SampledFrom([]string{"true", "false", "null", `"true"`, "tru"}).Draw(t, "admit"))
			case "when":
				if rapid.IntRange(0, 9).Draw(t, "when null") == 0 {
					b.WriteString("null")
					break
				}
				b.WriteString("{")
				conds := rapid.SliceOfN(rapid.SampledFrom(condKeys), 0, 4).Draw(t, "conds")
				for c, key := range conds {
					if c > 0 {
						b.WriteString("," + sp("cond"))
					}
					b.WriteString(`"` + key + `":` + sp("cond value"))
					switch {
					case key == "from_in":
						b.WriteString(list("from"))
					case strings.Contains(key, "_m"):
						b.WriteString(num("bound"))
					default:
						b.WriteString(str("text"))
					}
				}
				b.WriteString(sp("close when") + "}")
			case "overrides":
				b.WriteString(list("overrides"))
			}
		}
		b.WriteString(sp("after") + "}")
	}
	b.WriteString(sp("end") + "]" + rapid.SampledFrom([]string{"", "\n", " ", "x", ","}).Draw(t, "tail"))
	return b.String()
}

func TestPlainRulesAreTheDecodersRules(t *testing.T) {
	plain := 0
	rapid.Check(t, func(t *rapid.T) {
		if requirePlainMatchesDecode(t, []byte(rulesText(t))) {
			plain++
		}
	})
	require.Positive(t, plain, "no drawn text was read as plain")
	t.Logf("%d drawn texts read as plain", plain)
}

// Every published bundle's rules.json and every generated one's, rules
// faults included, is read as plain, to the decoder's rules.
func TestHarnessRulesAreReadAsPlain(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	var sets [][]scenarios.Rule
	for _, p := range published {
		sets = append(sets, p.Bundle.Rules)
		for _, f := range p.Bundle.Faults {
			if f.Rules != nil {
				sets = append(sets, f.Rules)
			}
		}
	}
	for i := 0; i < 200; i++ {
		p, err := faults.DrawProfile(rng.Stream(uint64(i), "profile"), "default")
		require.NoError(t, err)
		b := faults.Generate(rng.Stream(uint64(i), "bundle"), p)
		sets = append(sets, b.Rules)
		for _, f := range b.Faults {
			if f.Rules != nil {
				sets = append(sets, f.Rules)
			}
		}
	}
	for _, rules := range sets {
		text := scenarios.RulesBytes(rules)
		require.True(t, requirePlainMatchesDecode(t, text), "not read as plain: %s", text)
	}
}

// What the plain reader leaves to the decoder, the decoder still reads.
func TestPlainRulesLeaveTheRestToTheDecoder(t *testing.T) {
	for _, text := range []string{
		`[{"ID": "a", "admit": true}]`,
		`[{"id": "a", "id": "b"}]`,
		`[{"id": "a\u0062"}]`,
		`[{"id": "a", "when": {"weekday": "monday"}}]`,
		`[{"id": "a", "when": {"thread_length_min": 1.0}}]`,
		`[{"id": "a", "when": {"posture": "x", "posture": "y"}}]`,
		`null`,
		"\ufeff[]",
		`[{"id": "é"}]`,
	} {
		_, ok := parsePlainRules([]byte(text))
		require.False(t, ok, text)
		_, err := parseRules([]byte(text))
		_, want := decodeRules([]byte(text))
		require.Equal(t, want, err, text)
	}
	got, ok := parsePlainRules([]byte(`[{"id": "a", "when": {"from_in": []}, "overrides": []}]`))
	require.True(t, ok)
	require.NotNil(t, got[0].when.fromIn, "an empty from_in is a condition no sender meets")
	require.Empty(t, *got[0].when.fromIn)
	require.NotNil(t, got[0].overrides)
}
