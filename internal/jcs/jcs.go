// Package jcs is RFC 8785 canonical JSON: one byte sequence per JSON value,
// whatever the key order, whitespace or number spelling of the text it came
// from. The bundle hash, run receipts and the reserve set's commitments are
// all taken over these bytes, so a hash means the same on every machine.
package jcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, so a hostile document
// gets an error instead of exhausting the stack.
const maxDepth = 1000

// SyntaxError is a JSON document that cannot be canonicalized: it is not
// strict JSON, or it holds a value RFC 8785 cannot represent. Offset is the
// byte offset where the problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("canonical JSON: offset %d: %s", e.Offset, e.Msg)
}

// Canonicalize returns the RFC 8785 canonical form of a JSON document that
// came from outside: object keys sorted by UTF-16 code units, numbers in
// ECMAScript form, minimal string escaping, no whitespace. It validates
// strictly first and rejects what RFC 8259 and RFC 8785 do not allow:
// malformed numbers (+1, 01, .5, 1.), NaN and infinities, numbers beyond the
// double range, lone or reversed surrogates in escapes, invalid UTF-8,
// control characters in strings, duplicate keys and trailing data.
func Canonicalize(data []byte) ([]byte, error) {
	return canonicalize(data, false)
}

// Marshal returns the canonical form of a Go value: encoding/json renders
// it, and the result is canonicalized. Unlike Canonicalize it also rejects
// an integer whose canonical digits would differ from its own (most
// integers beyond 2^53 are not doubles): two such integers could share one
// canonical form, and a hash over it would not tell them apart.
func Marshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	return canonicalize(data, true)
}

func canonicalize(data []byte, exactInts bool) ([]byte, error) {
	return appendCanonical(nil, data, exactInts)
}

// appendCanonical appends the canonical form of the one JSON text data
// holds to out; on an error the result is nil.
func appendCanonical(out, data []byte, exactInts bool) ([]byte, error) {
	p := &parser{data: data, exactInts: exactInts}
	p.skipSpace()
	out, err := p.value(out, 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected data after the JSON value")
	}
	return out, nil
}

// parser reads strict JSON and writes the canonical form as it goes; only
// an object's members are held back, to be sorted before they are written.
type parser struct {
	data      []byte
	pos       int
	exactInts bool // reject integers the canonical form would rewrite
	// members is a stack of the members of the objects being read, the
	// innermost on top; scratch holds an object's values while they are
	// reordered.
	members []member
	scratch []byte
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value appends the canonical form of the value at p.pos to out.
func (p *parser) value(out []byte, depth int) ([]byte, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(out, depth+1)
	case c == '[':
		return p.array(out, depth+1)
	case c == '"':
		if end, ok := p.plainEnd(); ok {
			// Printable ASCII without escapes is its own canonical form.
			out = append(out, p.data[p.pos:end]...)
			p.pos = end
			return out, nil
		}
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return appendString(out, s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(out)
	case c == 't':
		return p.literal(out, "true")
	case c == 'f':
		return p.literal(out, "false")
	case c == 'n':
		return p.literal(out, "null")
	default:
		return nil, p.errorf("unexpected character %q", rune(c))
	}
}

func (p *parser) literal(out []byte, word string) ([]byte, error) {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return nil, p.errorf("invalid literal")
	}
	p.pos += len(word)
	return append(out, word...), nil
}

// member is one object member held back for sorting: its key, where the
// key began (for a duplicate's error), and where its canonical value lies in
// the output being written.
type member struct {
	key        string
	keyAt      int
	start, end int
	wide       bool // the key holds a character above U+FFFF
}

// object writes each member's canonical value straight to out and only
// then reorders the members, so a value is rendered once and no member
// holds its own copy. Nested objects use the same stack of members above
// this one's, and are done before this one reorders.
func (p *parser) object(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested deeper than %d", maxDepth)
	}
	p.pos++ // '{'
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return append(out, "{}"...), nil
	}
	base, start := len(p.members), len(out)
	defer func() { p.members = p.members[:base] }()
	var seen map[string]bool // only for a large object, where a scan would be quadratic
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("expected a string key")
		}
		keyAt := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if p.duplicate(base, key, &seen) {
			return nil, &SyntaxError{Offset: keyAt, Msg: fmt.Sprintf("duplicate key %q", key)}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		at := len(out)
		if out, err = p.value(out, depth); err != nil {
			return nil, err
		}
		p.members = append(p.members, member{key: key, keyAt: keyAt, start: at - start, end: len(out) - start,
			wide: hasWide(key)})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input in an object")
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		if p.data[p.pos] != ',' {
			return nil, p.errorf("expected ',' or '}' in an object")
		}
		p.pos++
	}
	members := p.members[base:]
	slices.SortFunc(members, compareKeys)
	p.scratch = append(p.scratch[:0], out[start:]...)
	out = append(out[:start], '{')
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendString(out, m.key)
		out = append(out, ':')
		out = append(out, p.scratch[m.start:m.end]...)
	}
	return append(out, '}'), nil
}

// duplicate reports whether the object begun at base already has the key.
// Most objects are small, where a scan beats building a set; from
// scanKeys members on, the set is built once and kept.
func (p *parser) duplicate(base int, key string, seen *map[string]bool) bool {
	have := p.members[base:]
	if len(have) < scanKeys {
		for _, m := range have {
			if m.key == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*len(have))
		for _, m := range have {
			(*seen)[m.key] = true
		}
	}
	if (*seen)[key] {
		return true
	}
	(*seen)[key] = true
	return false
}

const scanKeys = 16

// compareKeys orders keys by their UTF-16 code units (RFC 8785 §3.2.3).
// For valid UTF-8 that order is the byte order unless a character above
// U+FFFF (a surrogate pair in UTF-16) is involved, so only then are the
// units built.
func compareKeys(a, b member) int {
	if !a.wide && !b.wide {
		return strings.Compare(a.key, b.key)
	}
	return slices.Compare(utf16.Encode([]rune(a.key)), utf16.Encode([]rune(b.key)))
}

// hasWide reports whether s holds a character above U+FFFF: in UTF-8 its
// lead byte is 0xF0 or above.
func hasWide(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 {
			return true
		}
	}
	return false
}

func (p *parser) array(out []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested deeper than %d", maxDepth)
	}
	p.pos++ // '['
	out = append(out, '[')
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return append(out, ']'), nil
	}
	for first := true; ; first = false {
		if !first {
			out = append(out, ',')
		}
		p.skipSpace()
		var err error
		if out, err = p.value(out, depth); err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input in an array")
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return append(out, ']'), nil
		}
		if p.data[p.pos] != ',' {
			return nil, p.errorf("expected ',' or ']' in an array")
		}
		p.pos++
	}
}

// string reads a string token and returns its decoded value.
func (p *parser) string() (string, error) {
	if s, ok := p.plainString(); ok {
		return s, nil
	}
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.pos >= len(p.data) {
			return "", p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case c < 0x20:
			return "", p.errorf("control character %#02x in a string must be escaped", c)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errorf("invalid UTF-8")
			}
			b.WriteRune(r)
			p.pos += size
		}
	}
}

// plainString reads a string token of printable ASCII without escapes,
// the common case, as one slice of the input; otherwise it reads nothing.
func (p *parser) plainString() (string, bool) {
	end, ok := p.plainEnd()
	if !ok {
		return "", false
	}
	str := string(p.data[p.pos+1 : end-1])
	p.pos = end
	return str, true
}

// plainEnd is the offset just past the closing quote of the string token
// at p.pos when it is printable ASCII without escapes.
func (p *parser) plainEnd() (int, bool) {
	for i := p.pos + 1; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return 0, false
		}
	}
	return 0, false
}

// escape reads one escape sequence; a \u escape of a high surrogate must be
// followed by a \u escape of a low surrogate, and a low surrogate may not
// stand alone.
func (p *parser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errorf("unterminated escape")
	}
	c := p.data[p.pos+1]
	if r, ok := simpleEscape(c); ok {
		p.pos += 2
		return r, nil
	}
	if c != 'u' {
		return 0, p.errorf("invalid escape \\%c", rune(c))
	}
	r, err := p.hex4()
	if err != nil {
		return 0, err
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, p.errorf("lone low surrogate \\u%04x", r)
	case r >= 0xD800 && r <= 0xDBFF:
		if p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
			return 0, p.errorf("high surrogate \\u%04x not followed by a low surrogate", r)
		}
		lo, err := p.hex4()
		if err != nil {
			return 0, err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return 0, p.errorf("high surrogate \\u%04x followed by \\u%04x, not a low surrogate", r, lo)
		}
		return utf16.DecodeRune(r, lo), nil
	}
	return r, nil
}

func simpleEscape(c byte) (rune, bool) {
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 reads \uXXXX at p.pos.
func (p *parser) hex4() (rune, error) {
	if p.pos+6 > len(p.data) {
		return 0, p.errorf("short \\u escape")
	}
	var r rune
	for _, h := range p.data[p.pos+2 : p.pos+6] {
		var d byte
		switch {
		case h >= '0' && h <= '9':
			d = h - '0'
		case h >= 'a' && h <= 'f':
			d = h - 'a' + 10
		case h >= 'A' && h <= 'F':
			d = h - 'A' + 10
		default:
			return 0, p.errorf("invalid hex digit %q in a \\u escape", rune(h))
		}
		r = r<<4 | rune(d)
	}
	p.pos += 6
	return r, nil
}

// number reads a number with the RFC 8259 grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and appends its ECMAScript
// form.
func (p *parser) number(out []byte) ([]byte, error) {
	start := p.pos
	integral := true
	if p.peek() == '-' {
		p.pos++
	}
	switch c := p.peek(); {
	case c == '0':
		p.pos++
		if d := p.peek(); d >= '0' && d <= '9' {
			return nil, p.errorf("leading zero in a number")
		}
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return nil, p.errorf("invalid number")
	}
	if p.peek() == '.' {
		p.pos++
		integral = false
		if p.digits() == 0 {
			return nil, p.errorf("a number needs digits after '.'")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		integral = false
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.errorf("a number needs digits in its exponent")
		}
	}
	if integral && p.pos-start <= shortInt && !bytes.Equal(p.data[start:p.pos], []byte("-0")) {
		// Every integer of this many digits is a double exactly, and its
		// ECMAScript form is its own digits.
		return append(out, p.data[start:p.pos]...), nil
	}
	lit := string(p.data[start:p.pos])
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, &SyntaxError{Offset: start, Msg: fmt.Sprintf("number %s is outside the double range", lit)}
	}
	text := formatNumber(f)
	if p.exactInts && integral && f != 0 && text != lit {
		return nil, &SyntaxError{Offset: start, Msg: fmt.Sprintf("integer %s would change to %s in canonical form; carry it as a string", lit, text)}
	}
	return append(out, text...), nil
}

// shortInt is the longest integer literal (sign included) taken as it is:
// 15 digits stay below 2^53.
const shortInt = 15

func (p *parser) peek() byte {
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// formatNumber renders a finite double the way ECMAScript's
// Number.prototype.toString does (RFC 8785 §3.2.2.3): the shortest digits
// that round-trip, placed in plain or exponent notation by the position of
// the decimal point.
func formatNumber(f float64) string {
	if f == 0 {
		return "0" // both zeros
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits d1.d2d3...e±x: value = 0.d1d2d3... × 10^n.
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(sci, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n, k := x+1, len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	e := "e+"
	if n-1 < 0 {
		e = "e-"
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	return sign + m + e + strconv.Itoa(abs(n-1))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// appendString writes a string with the minimal escaping of RFC 8785
// §3.2.2.2: quote and backslash, the five short control escapes, \u00xx in
// lower case for the other control characters, everything else as UTF-8.
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			if c < 0x20 {
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				out = append(out, c)
			}
		}
	}
	return append(out, '"')
}
