package jcs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The RFC 8785 vectors, byte for byte.
func TestCanonicalizeVectors(t *testing.T) {
	for _, name := range []string{"arrays", "french", "structures", "unicode", "values", "weird"} {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "input", name+".json"))
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join("testdata", "output", name+".json"))
			require.NoError(t, err)
			got, err := Canonicalize(in)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// Number samples of RFC 8785 Appendix B, given as IEEE-754 bits.
func TestFormatNumberAppendixB(t *testing.T) {
	tests := []struct {
		bits string
		want string
	}{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	}
	for _, tt := range tests {
		t.Run(tt.bits, func(t *testing.T) {
			u, err := strconv.ParseUint(tt.bits, 16, 64)
			require.NoError(t, err)
			assert.Equal(t, tt.want, formatNumber(math.Float64frombits(u)))
		})
	}
}

// The reference repository publishes SHA-256 sums of its ES6 number test
// file: lines "hex-bits,expected\n" over a fixed sequence of doubles. Our
// formatter, run over the same sequence, must give the same sums.
func TestFormatNumberES6Sequence(t *testing.T) {
	sums := []struct {
		lines int
		sum   string
	}{
		{1000, "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687"},
		{10000, "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892"},
		{100000, "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7"},
		{1000000, "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16"},
	}
	if testing.Short() {
		sums = sums[:3]
	}
	static := readStatic(t)
	next := es6Sequence(static)
	h := sha256.New()
	var line []byte
	done := 0
	for _, s := range sums {
		for ; done < s.lines; done++ {
			f := next()
			line = strconv.AppendUint(line[:0], math.Float64bits(f), 16)
			line = append(line, ',')
			line = append(line, formatNumber(f)...)
			line = append(line, '\n')
			h.Write(line)
		}
		assert.Equal(t, s.sum, hex.EncodeToString(h.Sum(nil)), "first %d lines", s.lines)
	}
}

func readStatic(t *testing.T) []uint64 {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "es6-static.txt"))
	require.NoError(t, err)
	defer f.Close()
	var out []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		u, err := strconv.ParseUint(text, 16, 64)
		require.NoError(t, err)
		out = append(out, u)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// es6Sequence yields the test file's doubles: the static values, 2000
// consecutive values from the smallest normal upward, then doubles read
// little-endian from a SHA-256 chain over a 32-byte zero block, skipping
// zeros and non-finite values.
func es6Sequence(static []uint64) func() float64 {
	const serial = 2000
	idx := 0
	var block [sha256.Size]byte
	var data []byte
	return func() float64 {
		defer func() { idx++ }()
		switch {
		case idx < len(static):
			return math.Float64frombits(static[idx])
		case idx < len(static)+serial:
			return math.Float64frombits(0x0010000000000000 + uint64(idx-len(static)))
		}
		for {
			if len(data) == 0 {
				block = sha256.Sum256(block[:])
				data = block[:]
			}
			f := math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
			if f != 0 && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	}
}

func TestCanonicalizeAccepts(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`-0`, `0`},
		{`-0.0e5`, `0`},
		{`0.0`, `0`},
		{`1E2`, `100`},
		{`1e+2`, `100`},
		{`1e-400`, `0`},
		{`1e21`, `1e+21`},
		{`1e20`, `100000000000000000000`},
		{`1e-7`, `1e-7`},
		{`0.000001`, `0.000001`},
		{`123456789012345678901234567890`, `1.2345678901234568e+29`},
		{`9007199254740993`, `9007199254740992`},
		{`-0.0000033333333333333333`, `-0.0000033333333333333333`},
		{" \t\r\n[ ] \n", `[]`},
		{`{ }`, `{}`},
		{`[1, [2, {"b":3, "a":[]}]]`, `[1,[2,{"a":[],"b":3}]]`},
		{`"\u00e9\u00E9"`, `"éé"`},
		{`"\/"`, `"/"`},
		{`"\u001f\u0000"`, `"\u001f\u0000"`},
		{`"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{`"\u007f"`, "\"\u007f\""},
		{`"\u2028"`, "\"\u2028\""},
		{`"\ud83d\ude02"`, `"😂"`},
		{`"\uD83D\uDE02"`, `"😂"`},
		{`"\ufffe"`, "\"\ufffe\""},
		{`"<&>"`, `"<&>"`},
		// UTF-16 order puts a surrogate pair (D83D...) before U+FB33,
		// where UTF-8 byte order would not.
		{`{"\ufb33":1,"\ud83d\ude02":2,"\u00f6":3}`, "{\"\u00f6\":3,\"\U0001F602\":2,\"\ufb33\":1}"},
		{`{"b":1,"a":2,"":3,"A":4}`, `{"":3,"A":4,"a":2,"b":1}`},
		{`true`, `true`},
		{`null`, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty", ``},
		{"blank", "  \n"},
		{"plus sign", `+1`},
		{"leading zero", `01`},
		{"negative leading zero", `-01`},
		{"bare fraction", `.5`},
		{"trailing dot", `1.`},
		{"dot before exponent", `1.e5`},
		{"lone minus", `-`},
		{"empty exponent", `1e`},
		{"signed empty exponent", `1e+`},
		{"hex number", `0x10`},
		{"underscore", `1_000`},
		{"NaN", `NaN`},
		{"Infinity", `Infinity`},
		{"negative Infinity", `-Infinity`},
		{"overflow", `1e400`},
		{"negative overflow", `-1e309`},
		{"lone high surrogate", `"\ud800"`},
		{"high surrogate then text", `"\ud800x"`},
		{"high surrogate then BMP escape", `"\ud800\u0041"`},
		{"two high surrogates", `"\ud800\ud800"`},
		{"lone low surrogate", `"\udc00"`},
		{"reversed pair", `"\ude02\ud83d"`},
		{"invalid UTF-8", "\"\xff\""},
		{"overlong UTF-8", "\"\xc0\xaf\""},
		{"UTF-8 surrogate", "\"\xed\xa0\x80\""},
		{"truncated UTF-8", "\"\xe2\x82\""},
		{"raw tab in string", "\"a\tb\""},
		{"raw newline in string", "\"a\nb\""},
		{"bad escape", `"\x"`},
		{"short unicode escape", `"\u12"`},
		{"bad hex", `"\u12G4"`},
		{"unterminated string", `"abc`},
		{"single quotes", `'a'`},
		{"duplicate key", `{"a":1,"a":2}`},
		{"duplicate key after unescape", `{"a":1,"\u0061":2}`},
		{"nested duplicate key", `[{"x":{"k":1,"k":1}}]`},
		{"missing comma", `[1 2]`},
		{"trailing comma in array", `[1,]`},
		{"trailing comma in object", `{"a":1,}`},
		{"leading comma", `[,1]`},
		{"unquoted key", `{a:1}`},
		{"number key", `{1:1}`},
		{"key without value", `{"a"}`},
		{"missing colon", `{"a" 1}`},
		{"trailing data", `{}x`},
		{"two values", `1 2`},
		{"byte order mark", "\xef\xbb\xbf{}"},
		{"truncated literal", `tru`},
		{"capital literal", `True`},
		{"open array", `[`},
		{"open object", `{"a":1`},
		{"comment", `[1 /* c */]`},
		{"too deep", strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Canonicalize([]byte(tt.in))
			require.Error(t, err, "accepted as %q", out)
			var se *SyntaxError
			assert.ErrorAs(t, err, &se)
			assert.Nil(t, out)
		})
	}
}

func TestCanonicalizeDepthLimitIsInclusive(t *testing.T) {
	in := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	out, err := Canonicalize([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, in, string(out))
}

func TestSyntaxErrorOffset(t *testing.T) {
	_, err := Canonicalize([]byte(`{"a":1, "a":2}`))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 8, se.Offset)
	assert.Contains(t, se.Error(), `duplicate key "a"`)
}

func TestMarshal(t *testing.T) {
	type inner struct {
		Z string `json:"z"`
		A []int  `json:"a"`
	}
	type outer struct {
		Name  string         `json:"name"`
		In    inner          `json:"in"`
		Score float64        `json:"score"`
		Tags  map[string]int `json:"tags"`
		Raw   json.RawMessage
	}
	v := outer{
		Name:  "<b>&</b>",
		In:    inner{Z: "é", A: []int{3, 1}},
		Score: 0.1,
		Tags:  map[string]int{"y": 2, "x": 1},
		Raw:   json.RawMessage(`{"k": 1.50}`),
	}
	got, err := Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, `{"Raw":{"k":1.5},"in":{"a":[3,1],"z":"é"},"name":"<b>&</b>","score":0.1,"tags":{"x":1,"y":2}}`, string(got))
}

func TestMarshalIntegers(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
		ok   bool
	}{
		{"2^53", int64(1) << 53, "9007199254740992", true},
		{"-2^53", -(int64(1) << 53), "-9007199254740992", true},
		{"2^53+1", int64(1)<<53 + 1, "", false},
		{"max int64", int64(math.MaxInt64), "", false},
		{"max uint64", uint64(math.MaxUint64), "", false},
		// 2^60 is a double, but ECMAScript prints it as the integer below,
		// which would then stand for two different Go values.
		{"2^60", int64(1) << 60, "", false},
		{"2^60 as printed", int64(1152921504606847000), "1152921504606847000", true},
		{"zero", int64(0), "0", true},
		{"negative zero float", math.Copysign(0, -1), "0", true},
		{"15 digits", int64(999999999999999), "999999999999999", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.v)
			if !tt.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "would change")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestMarshalRejectsNaN(t *testing.T) {
	_, err := Marshal(math.NaN())
	require.Error(t, err)
	_, err = Marshal(math.Inf(1))
	require.Error(t, err)
}

func TestAppendStringEscapesEveryControlCharacter(t *testing.T) {
	for c := 0; c < 0x20; c++ {
		out := appendString(nil, string(rune(c)))
		back, err := Canonicalize(out)
		require.NoError(t, err, "control %#x", c)
		assert.Equal(t, string(out), string(back))
		var s string
		require.NoError(t, json.Unmarshal(out, &s))
		assert.Equal(t, string(rune(c)), s)
		assert.False(t, bytes.ContainsRune(out[1:len(out)-1], rune(c)), "control %#x left raw", c)
	}
}

func TestCanonicalizeReordersNestedObjects(t *testing.T) {
	in := `{"b":{"d":1,"c":[{"f":2,"e":{"y":null,"x":true}}]},"a":"x"}`
	got, err := Canonicalize([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, `{"a":"x","b":{"c":[{"e":{"x":true,"y":null},"f":2}],"d":1}}`, string(got))
}

func TestCanonicalizeShortIntegersKeepTheirDigits(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "7": "7", "-7": "-7",
		"123456789012345":          "123456789012345",
		"-12345678901234":          "-12345678901234",
		"1234567890123456":         "1234567890123456",
		"1e2":                      "100",
		"100000000000000000000000": "1e+23",
	} {
		got, err := Canonicalize([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, string(got), in)
	}
}

// A large object finds a duplicate key through a set, in the same place a
// small one finds it by a scan, and sorts its keys either way.
func TestCanonicalizeLargeObject(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	const n = 500
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `"k%04d":%d,`, i, i)
	}
	clean := strings.TrimSuffix(b.String(), ",") + "}"
	got, err := Canonicalize([]byte(clean))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), `{"k0000":0,"k0001":1,`), string(got[:40]))
	assert.True(t, strings.HasSuffix(string(got), `"k0499":499}`))

	dup := b.String() + `"k0003":9}`
	_, err = Canonicalize([]byte(dup))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, strings.LastIndex(dup, `"k0003"`), se.Offset)
	assert.Contains(t, se.Error(), `duplicate key "k0003"`)
}

// A plain string is copied as written; any string with an escape or a
// character beyond ASCII is decoded and written canonically.
func TestCanonicalizeStringsPlainAndNot(t *testing.T) {
	for in, want := range map[string]string{
		`"a/b <&> ~"`:    `"a/b <&> ~"`,
		`"\u0041\/"`:     `"A/"`,
		`"é"`:            `"é"`,
		`"\u00e9"`:       `"é"`,
		`"tab\tx"`:       `"tab\tx"`,
		`["x","\"q\""]`:  `["x","\"q\""]`,
		`{"k":"\u001f"}`: `{"k":"\u001f"}`,
		"\"\x7f\"":       "\"\x7f\"",
	} {
		got, err := Canonicalize([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, string(got), in)
	}
	_, err := Canonicalize([]byte("\"a\x01\""))
	assert.Error(t, err, "a raw control character is still refused")
	_, err = Canonicalize([]byte(`"abc`))
	assert.Error(t, err, "an unterminated plain string is still refused")
}
