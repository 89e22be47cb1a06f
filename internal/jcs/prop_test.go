package jcs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// specialRunes are the characters where canonical escaping, ordering or
// UTF-16 handling could go wrong.
var specialRunes = []rune{
	0, '\b', '\t', '\n', '\f', '\r', 0x1f, '"', '\\', '/', 0x7f, 0x80, 'é',
	0x2028, 0x2029, 0xfb33, 0xfeff, 0xfffd, 0xffff, 0x10000, 0x1f602, 0x10ffff,
}

func genRune() *rapid.Generator[rune] {
	return rapid.OneOf(rapid.Rune(), rapid.SampledFrom(specialRunes)).
		Filter(utf8.ValidRune)
}

func genString() *rapid.Generator[string] {
	return rapid.StringOfN(genRune(), 0, 8, -1)
}

func genNumber() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Float64(),
		rapid.Custom(func(t *rapid.T) float64 {
			return float64(rapid.Int64Range(-1<<53, 1<<53).Draw(t, "int"))
		}),
		rapid.SampledFrom([]float64{0, 1e21, 1e-7, 1e-6, 5e-324, 1.7976931348623157e308, 333333333.3333333}),
	)
}

// genJSON draws a JSON value as encoding/json would decode it: nil, bool,
// float64, string, []any or map[string]any.
func genJSON(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := 4
		if depth > 0 {
			kinds = 6
		}
		switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return genNumber().Draw(t, "number")
		case 3:
			return genString().Draw(t, "string")
		case 4:
			elems := rapid.SliceOfN(genJSON(depth-1), 0, 4).Draw(t, "array")
			out := make([]any, len(elems))
			copy(out, elems)
			return out
		default:
			m := rapid.MapOfN(genString(), genJSON(depth-1), 0, 4).Draw(t, "object")
			out := make(map[string]any, len(m))
			for k, v := range m {
				out[k] = v
			}
			return out
		}
	})
}

// render writes v as valid but non-canonical JSON: random whitespace, key
// order, escapes and number notation, all drawn from t.
func render(t *rapid.T, v any) string {
	var b strings.Builder
	renderTo(t, &b, v)
	return b.String()
}

var spaces = []string{"", "", " ", "\n", "\t", "\r\n  "}

func space(t *rapid.T, b *strings.Builder) {
	b.WriteString(rapid.SampledFrom(spaces).Draw(t, "space"))
}

func renderTo(t *rapid.T, b *strings.Builder, v any) {
	space(t, b)
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		format := rapid.SampledFrom([]byte{'e', 'E', 'f', 'g'}).Draw(t, "format")
		b.WriteString(strconv.FormatFloat(v, format, -1, 64))
	case string:
		renderString(t, b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			renderTo(t, b, e)
		}
		space(t, b)
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		keys = rapid.Permutation(keys).Draw(t, "order")
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			space(t, b)
			renderString(t, b, k)
			space(t, b)
			b.WriteByte(':')
			renderTo(t, b, v[k])
		}
		space(t, b)
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("render: unexpected %T", v))
	}
	space(t, b)
}

func renderString(t *rapid.T, b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		mustEscape := r < 0x20 || r == '"' || r == '\\'
		if !mustEscape && !rapid.Bool().Draw(t, "escape") {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			if rapid.Bool().Draw(t, "upper") {
				fmt.Fprintf(b, `\u%04X`, u)
			} else {
				fmt.Fprintf(b, `\u%04x`, u)
			}
		}
	}
	b.WriteByte('"')
}

func TestCanonicalizeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genJSON(3).Draw(t, "value")
		a, b := render(t, v), render(t, v)

		ca, err := Canonicalize([]byte(a))
		require.NoError(t, err, "input %q", a)
		cb, err := Canonicalize([]byte(b))
		require.NoError(t, err, "input %q", b)
		require.Equal(t, string(ca), string(cb), "key order and whitespace must not matter")

		again, err := Canonicalize(ca)
		require.NoError(t, err)
		require.Equal(t, string(ca), string(again), "canonicalization must be idempotent")

		var back any
		require.NoError(t, json.Unmarshal(ca, &back))
		require.Equal(t, v, back, "canonicalization must keep the value")

		viaGo, err := Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(ca), string(viaGo), "a Go value and its text must agree")
	})
}
