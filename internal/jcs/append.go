package jcs

import (
	"strconv"
	"unicode/utf8"
)

// The Append functions write canonical forms of Go values straight to a
// buffer, so a caller that knows its types can skip the render and re-parse
// of Marshal. Each writes exactly what Marshal would write for the same
// value, or reports that it cannot and leaves the value to Marshal.

// AppendString appends the canonical form of a Go string as Marshal renders
// it: encoding/json replaces each byte that is not part of valid UTF-8 by
// U+FFFD, and the canonical form writes every other character as it is but
// for the quote, the backslash and the control characters.
func AppendString(out []byte, s string) []byte {
	if plainASCII(s) {
		out = append(out, '"')
		out = append(out, s...)
		return append(out, '"')
	}
	if utf8.ValidString(s) {
		return appendString(out, s)
	}
	valid := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			valid = utf8.AppendRune(valid, utf8.RuneError)
		} else {
			valid = append(valid, s[i:i+size]...)
		}
		i += size
	}
	return appendString(out, string(valid))
}

// plainASCII reports whether s is printable ASCII without a quote or a
// backslash: its own canonical form between quotes.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// maxExactInt is 2^53: every integer up to it in magnitude is a double
// exactly, and its canonical form is its decimal digits.
const maxExactInt = 1 << 53

// AppendInt appends the canonical form of an integer and reports true, or
// reports false for an integer beyond 2^53 in magnitude, which Marshal
// rejects or rewrites and whose handling it owns.
func AppendInt(out []byte, n int64) ([]byte, bool) {
	if n > maxExactInt || n < -maxExactInt {
		return out, false
	}
	return strconv.AppendInt(out, n, 10), true
}

// AppendRaw appends the canonical form of a JSON text held as a
// json.RawMessage field, as Marshal writes it: integers held exact. Any
// text that is not strict JSON (or that the canonical form cannot hold)
// gets an error; the caller then leaves the whole value to Marshal, whose
// error it is to report.
func AppendRaw(out []byte, raw []byte) ([]byte, error) {
	return appendCanonical(out, raw, true)
}
