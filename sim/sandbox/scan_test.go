package sandbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The fast path must decode exactly as encoding/json does whenever it
// accepts a line, and accept nothing encoding/json rejects. These checks
// compare the two on the same input.

// members returns an object's members as encoding/json would give them.
func members(o object) map[string]json.RawMessage {
	if o.m == nil && o.fields == nil {
		return map[string]json.RawMessage{}
	}
	return o.keep()
}

func checkObject(t require.TestingT, data []byte) {
	var want map[string]json.RawMessage
	wantErr := json.Unmarshal(data, &want)
	if fs, ok := scanObject(data, nil); ok {
		require.NoError(t, wantErr, "fast path accepted %q", data)
		require.Equal(t, want, members(object{fields: fs}), "%q", data)
	}
	got, _, ok := decodeObject(data, []field{{key: []byte("stale")}})
	require.Equal(t, wantErr == nil && want != nil, ok, "%q", data)
	if ok {
		require.Equal(t, want, members(got), "%q", data)
		for k, v := range want {
			raw, found := got.get(k)
			require.True(t, found, k)
			require.Equal(t, v, raw, k)
		}
		_, found := got.get("stale")
		require.Equal(t, want["stale"] != nil, found)
	}
}

func checkObjects(t require.TestingT, data []byte) {
	var want []map[string]json.RawMessage
	wantErr := json.Unmarshal(data, &want)
	toMaps := func(items []object) []map[string]json.RawMessage {
		if items == nil {
			return nil
		}
		out := make([]map[string]json.RawMessage, len(items))
		for i, o := range items {
			if o.m != nil || o.fields != nil {
				out[i] = o.keep()
			} else if want != nil && i < len(want) && want[i] != nil {
				out[i] = map[string]json.RawMessage{}
			}
		}
		return out
	}
	if got, ok := scanObjects(data); ok {
		require.NoError(t, wantErr, "fast path accepted %q", data)
		require.Equal(t, want, toMaps(got), "%q", data)
	}
	got, err := decodeObjects(data)
	require.Equal(t, wantErr == nil, err == nil, "%q", data)
	if err == nil {
		require.Equal(t, want, toMaps(got), "%q", data)
	}
}

func checkScalars(t require.TestingT, data []byte) {
	var want string
	wantErr := json.Unmarshal(data, &want)
	got, err := DecodeString(data)
	require.Equal(t, wantErr == nil, err == nil, "%q", data)
	require.Equal(t, want, got, "%q", data)

	var wantOrigin, gotOrigin Origin
	wantErr = json.Unmarshal(data, &wantOrigin)
	err = decodeOrigin(data, &gotOrigin)
	require.Equal(t, wantErr == nil, err == nil, "%q", data)
	require.Equal(t, wantOrigin, gotOrigin, "%q", data)

	var wantBool, gotBool bool
	wantErr = json.Unmarshal(data, &wantBool)
	err = decodeBool(data, &gotBool)
	require.Equal(t, wantErr == nil, err == nil, "%q", data)
	require.Equal(t, wantBool, gotBool, "%q", data)
}

func checkAll(t require.TestingT, data []byte) {
	checkObject(t, data)
	checkObjects(t, data)
	checkScalars(t, data)
}

var scanCases = []string{
	`{"event":"admission","at":1,"work_id":"w-1","message_id":"m1","rules_hash":"sha256:x"}`,
	`  {"a" : "b" ,  "c":[1, 2.5e-3, -0, true, false, null, {"x": {}}, []]}  ` + "\r",
	`{}`, `{ }`, `[]`, `[{}]`, `[ {"a":1} , {"b":[]} ]`, `null`, `true`, `false`, `"s"`, `""`, `1`,
	`{"a":1,"a":2}`,
	`{"a\u0062":1}`, `{"\u00e9":1}`, `{"é":1}`, `{"a":"\u00e9\n\"\\\/\b\f\r\t"}`,
	`{"a":"é"}`, "{\"a\":\"\xff\"}", "{\"\xff\":1}", "{\"a\":\"\x01\"}", "{\"a\x7f\":\"\x7f\"}",
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":-}`, `{"a":+1}`, `{"a":1E+07}`,
	`{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":NaN}`,
	`{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":1}}`, `{"a":1} x`, `{"a":1}{}`, `{"a":[1,]}`, `{"a":[,1]}`,
	`{"a":{"b":1,}}`, `{"a":{1:2}}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{'a':1}`,
	`{"a":1`, `{"a":`, `{"a"`, `{"`, `{`, ``, `   `, `[`, `[{}`, `[1]`, `[{},1]`, `[null]`,
	`"model-free"`, `["call-0001"]`, `[ "call-1" , "call-2" ]`, `[""]`, `[]`, `[1]`, `["a",]`, `["a"`,
	`["\u00e9"]`, `"\u00e9"`, "\"\xff\"", `["a"] `,
	strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100),
	`{"a":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `}`,
}

func TestScanMatchesEncodingJSON(t *testing.T) {
	for _, c := range scanCases {
		checkAll(t, []byte(c))
	}
}

// Every byte value, on its own, after a run of plain bytes and after a
// backslash: scanString ends a literal exactly where encoding/json finds a
// valid one, and calls it plain only for printable ASCII with no escape.
func TestScanStringEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		for _, lit := range []string{`"` + b + `"`, `"abc` + b + `def"`, `"\` + b + `"`, `"\u00` + b + `0"`} {
			data := []byte(lit)
			end, plain := scanString(data, 0)
			valid := json.Valid(data)
			assert.Equal(t, valid, end == len(data), "%q", lit)
			if !valid {
				continue
			}
			inner := data[1 : len(data)-1]
			want := !strings.ContainsRune(string(inner), '\\')
			for _, x := range inner {
				want = want && x >= 0x20 && x < 0x80
			}
			assert.Equal(t, want, plain, "%q", lit)
		}
	}
	for _, lit := range []string{`"`, `"abc`, `"abc\`, `"\u12`, `"abc\"`} {
		end, _ := scanString([]byte(lit), 0)
		assert.Equal(t, -1, end, "%q is not closed", lit)
	}
}

// DecodeString gives what json.Unmarshal gives for every byte value after an
// ASCII prefix and after a non-ASCII letter, invalid UTF-8 included.
func TestDecodeStringEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := string([]byte{byte(c)})
		for _, lit := range []string{`"ab` + b + `cd"`, `"é` + b + `"`, `"` + b + `é"`} {
			var want string
			wantErr := json.Unmarshal([]byte(lit), &want)
			got, err := DecodeString([]byte(lit))
			require.Equal(t, wantErr == nil, err == nil, "%q", lit)
			assert.Equal(t, want, got, "%q", lit)
			_, plain := plainString([]byte(lit))
			assert.Equal(t, wantErr == nil && c != '\\' && c >= 0x20 && (c < 0x80 || want == lit[1:len(lit)-1]), plain, "%q", lit)
		}
	}
}

func TestScanAcceptsWhatTheHarnessWrites(t *testing.T) {
	for _, line := range []string{admissionLine, claimLine, noteLine,
		`{"draft_id":"d-1.a","work_id":"w-1","conversation_id":"c1","body":"Hi","content_hash":"sha256:ab","declared_at":3,"origin":["call-0001"]}`,
	} {
		_, ok := scanObject([]byte(line), nil)
		assert.True(t, ok, line)
	}
	state := `{"work_items":[{"work_id":"w-1","status":"drafted","assigned_agent":"a"}],"agents":[{"id":"a","alive":true}],"assignments":[]}`
	fs, ok := scanObject([]byte(state), nil)
	require.True(t, ok)
	top := object{fields: fs}
	raw, found := top.get("work_items")
	require.True(t, found)
	_, ok = scanObjects(raw)
	assert.True(t, ok)
}

func TestKeepOwnsItsBytes(t *testing.T) {
	line := []byte(noteLine)
	fs, ok := scanObject(line, nil)
	require.True(t, ok)
	o := object{fields: fs}
	m := o.keep()
	for i := range line {
		line[i] = 'x'
	}
	assert.Equal(t, json.RawMessage(`"note"`), m["event"])
	assert.Equal(t, json.RawMessage(`"free-form"`), m["text"])
	assert.Len(t, m["event"], cap(m["event"]))
}

// Lines built from JSON fragments, most of them well-formed, some not.
func TestScanMatchesEncodingJSONOnGeneratedLines(t *testing.T) {
	fragments := []string{`{`, `}`, `[`, `]`, `,`, `:`, ` `, "\t", `"a"`, `"b"`, `"é"`, `"\n"`, `"\u00e9"`,
		`"\"`, `1`, `-2.5e3`, `0`, `01`, `true`, `null`, `fals`, `"`, "\xff"}
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		if rapid.Bool().Draw(t, "well-formed") {
			b.WriteString(genValue(t, 0))
		} else {
			for range rapid.IntRange(0, 20).Draw(t, "n") {
				b.WriteString(rapid.SampledFrom(fragments).Draw(t, "fragment"))
			}
		}
		checkAll(t, []byte(b.String()))
	})
}

func genValue(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth > 3 {
		kind %= 3
	}
	switch kind {
	case 0:
		return rapid.SampledFrom([]string{`"x"`, `"model-free"`, `""`, `"é"`, `"a\"b"`, `"\u0041"`}).Draw(t, "string")
	case 1:
		return rapid.SampledFrom([]string{`0`, `-1`, `12`, `1.5`, `2e10`, `-0.0E-1`}).Draw(t, "number")
	case 2:
		return rapid.SampledFrom([]string{`true`, `false`, `null`}).Draw(t, "literal")
	case 3, 4:
		var parts []string
		for range rapid.IntRange(0, 4).Draw(t, "members") {
			key := rapid.SampledFrom([]string{`"a"`, `"b"`, `"event"`, `"é"`, `"\u0061"`}).Draw(t, "key")
			parts = append(parts, key+rapid.SampledFrom([]string{":", " : "}).Draw(t, "colon")+genValue(t, depth+1))
		}
		return "{" + strings.Join(parts, rapid.SampledFrom([]string{",", ", "}).Draw(t, "comma")) + "}"
	default:
		var parts []string
		for range rapid.IntRange(0, 4).Draw(t, "elements") {
			parts = append(parts, genValue(t, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

func FuzzScan(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAll(t, data)
	})
}
