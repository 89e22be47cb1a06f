package jcs

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// Each Append function writes what Marshal writes for the same Go value,
// or steps aside where Marshal rejects it.
func TestAppendMatchesMarshal(t *testing.T) {
	t.Run("string", rapid.MakeCheck(func(t *rapid.T) {
		s := rapid.OneOf(genString(), rapid.String(),
			rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) }),
			rapid.SampledFrom([]string{"\xff", "a\xc3", "\xed\xa0\x80z", "<&>\u2028", "\x00\x7f"})).Draw(t, "s")
		want, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	}))
	t.Run("int", rapid.MakeCheck(func(t *rapid.T) {
		n := rapid.OneOf(rapid.Int64(), rapid.Int64Range(-1<<54, 1<<54),
			rapid.SampledFrom([]int64{0, -1, 1 << 53, -(1 << 53), 1<<53 + 1, -(1<<53 + 1), 999999999999999, 1e15})).Draw(t, "n")
		want, err := Marshal(n)
		got, ok := AppendInt(nil, n)
		if ok != (n <= maxExactInt && n >= -maxExactInt) {
			t.Fatalf("AppendInt(%d) reported %v", n, ok)
		}
		if ok && (err != nil || string(got) != string(want)) {
			t.Fatalf("AppendInt(%d) = %s, Marshal gives %s, %v", n, got, want, err)
		}
	}))
	t.Run("raw", rapid.MakeCheck(func(t *rapid.T) {
		var raw string
		if rapid.Bool().Draw(t, "text") {
			raw = render(t, genJSON(3).Draw(t, "value"))
		} else {
			raw = rapid.SampledFrom([]string{`{"a":1,"a":2}`, `1e400`, `12345678901234567890`, `{`, `"\xff"`, `[1,]`,
				` "<&>" `, `{"b":[],"a":{"d":1,"c":2}}`, `9007199254740993`, `-0`, `"\u2028"`, `tru`, ``, `1 2`}).Draw(t, "odd")
		}
		want, wantErr := Marshal(json.RawMessage(raw))
		got, err := AppendRaw(nil, []byte(raw))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("AppendRaw(%q): error %v, Marshal's %v", raw, err, wantErr)
		}
		if err == nil && string(got) != string(want) {
			t.Fatalf("AppendRaw(%q) = %s, want %s", raw, got, want)
		}
	}))
}
