package sandbox

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The parsers read every line of every file many times in a run, so the
// common line is decoded here without reflection. The fast path accepts only
// what it can decode exactly as encoding/json does: well-formed JSON with
// plain keys, each given once. On anything else it gives up, and the line is
// decoded by encoding/json, which then decides what the line is.

// maxScanDepth bounds the nesting the fast path follows.
const maxScanDepth = 64

// field is one member of a JSON object: its key, and its value's exact
// bytes.
type field struct {
	key []byte
	val json.RawMessage
}

// decodeObject decodes a line that should hold one JSON object into an
// object, as json.Unmarshal into a map[string]json.RawMessage does. It
// reports false when the line is not a JSON object. A fast-path object's
// fields are kept in buf, which it returns for the next line, and alias
// line.
func decodeObject(line []byte, buf []field) (object, []field, bool) {
	if fs, ok := scanObject(line, buf[:0]); ok {
		return object{fields: fs}, fs, true
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return object{}, buf, false
	}
	return object{m: m}, buf, true
}

// decodeObjects decodes a JSON list of objects, as json.Unmarshal into a
// []map[string]json.RawMessage does. The objects may alias data.
func decodeObjects(data []byte) ([]object, error) {
	if items, ok := scanObjects(data); ok {
		return items, nil
	}
	var maps []map[string]json.RawMessage
	if err := json.Unmarshal(data, &maps); err != nil {
		return nil, err
	}
	var items []object
	for _, m := range maps {
		items = append(items, object{m: m})
	}
	return items, nil
}

// DecodeString decodes a JSON value into a string, exactly as
// json.Unmarshal into a string does, without reflection for a plain
// string literal: for free-form fields such as AuditRecord.Fields.
func DecodeString(raw []byte) (string, error) {
	if s, ok := plainString(raw); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// plainString returns the string a JSON string literal without escapes
// holds: its bytes, when they are valid UTF-8.
func plainString(raw []byte) (string, bool) {
	in, ok := plainBytes(raw)
	if !ok {
		return "", false
	}
	return intern(in), true
}

// plainBytes is plainString's bytes, in raw.
func plainBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	in := raw[1 : len(raw)-1]
	i := 0
	for i < len(in) && quietByte[in[i]] {
		i++
	}
	// An ASCII prefix is valid UTF-8: only the rest needs the full look.
	for _, c := range in[i:] {
		if c == '\\' || c == '"' || c < 0x20 {
			return nil, false
		}
	}
	if !utf8.Valid(in[i:]) {
		return nil, false
	}
	return in, true
}

// intern returns b as a string, without allocating one when b is a word
// the files are made of: a field name or one of the values the spec fixes.
// Every line of every log spells them again, and a string each was the
// parsers' most frequent allocation.
func intern(b []byte) string {
	if len(b) > 19 {
		return string(b)
	}
	switch string(b) {
	case "event":
		return "event"
	case "at":
		return "at"
	case "work_id":
		return "work_id"
	case "message_id":
		return "message_id"
	case "rules_hash":
		return "rules_hash"
	case "rule_id":
		return "rule_id"
	case "posture":
		return "posture"
	case "agent_id":
		return "agent_id"
	case "outcome":
		return "outcome"
	case "reason":
		return "reason"
	case "signal_id":
		return "signal_id"
	case "draft_id":
		return "draft_id"
	case "approval_id":
		return "approval_id"
	case "effect_id":
		return "effect_id"
	case "conversation_id":
		return "conversation_id"
	case "content_hash":
		return "content_hash"
	case "declared_at":
		return "declared_at"
	case "decision":
		return "decision"
	case "decided_at":
		return "decided_at"
	case "admission":
		return "admission"
	case "claim":
		return "claim"
	case "resolution":
		return "resolution"
	case "claimed":
		return "claimed"
	case "won":
		return "won"
	case "stood_down":
		return "stood_down"
	case "completed":
		return "completed"
	case "abandoned":
		return "abandoned"
	case "normal":
		return "normal"
	case "approve":
		return "approve"
	case "reject":
		return "reject"
	case "maintenance":
		return "maintenance"
	case "operator_escalation":
		return "operator_escalation"
	}
	return string(b)
}

// scanObject reads data when it is exactly one well-formed JSON object
// with plain keys, each given once, and surrounding whitespace. Its fields
// are appended to dst.
func scanObject(data []byte, dst []field) ([]field, bool) {
	i := skipSpace(data, 0)
	fs, end, ok := scanFields(data, i, dst)
	if !ok || skipSpace(data, end) != len(data) {
		return nil, false
	}
	return fs, true
}

// scanObjects reads data when it is exactly one JSON list whose elements
// are all objects scanObject accepts.
func scanObjects(data []byte) ([]object, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	items := []object{}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return items, skipSpace(data, i+1) == len(data)
	}
	// Room for a few fields per object, so the list is read in one go.
	all := make([]field, 0, 4*bytes.Count(data[i:], []byte("{")))
	for {
		start := len(all)
		fs, end, ok := scanFields(data, i, all)
		if !ok {
			return nil, false
		}
		all = fs
		items = append(items, object{fields: all[start:]})
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			// Appending may have moved earlier objects' fields: point
			// each object at the final storage.
			n := 0
			for k := range items {
				m := len(items[k].fields)
				items[k].fields = all[n : n+m : n+m]
				n += m
			}
			return items, skipSpace(data, i+1) == len(data)
		default:
			return nil, false
		}
	}
}

// scanFields reads the object starting at data[i], appending its members
// to dst, and returns where it ends.
func scanFields(data []byte, i int, dst []field) ([]field, int, bool) {
	if i >= len(data) || data[i] != '{' {
		return nil, 0, false
	}
	first := len(dst)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return dst, i + 1, true
	}
	for {
		end, plain := scanString(data, i)
		if end < 0 || !plain {
			return nil, 0, false
		}
		key := data[i+1 : end-1]
		for _, f := range dst[first:] {
			if string(f.key) == string(key) {
				return nil, 0, false
			}
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, 0, false
		}
		i = skipSpace(data, i+1)
		end = scanValue(data, i, 1)
		if end < 0 {
			return nil, 0, false
		}
		dst = append(dst, field{key: key, val: data[i:end:end]})
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, 0, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return dst, i + 1, true
		default:
			return nil, 0, false
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString checks the string literal starting at data[i] and returns the
// index just past it, or -1 when it is not well-formed. plain reports a
// literal of printable ASCII without escapes.
func scanString(data []byte, i int) (end int, plain bool) {
	if i >= len(data) || data[i] != '"' {
		return -1, false
	}
	plain = true
	for j := i + 1; j < len(data); j++ {
		// Runs of bytes that stand for themselves are skipped in one tight loop.
		for j < len(data) && quietByte[data[j]] {
			j++
		}
		if j >= len(data) {
			break
		}
		c := data[j]
		switch {
		case c == '"':
			return j + 1, plain
		case c < 0x20:
			return -1, false
		case c >= 0x80:
			plain = false
		case c == '\\':
			plain = false
			j++
			if j >= len(data) {
				return -1, false
			}
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(data) {
					return -1, false
				}
				for _, h := range data[j+1 : j+5] {
					if !isHex(h) {
						return -1, false
					}
				}
				j += 4
			default:
				return -1, false
			}
		}
	}
	return -1, false
}

// quietByte marks the bytes that stand for themselves in a plain string
// literal: 0x20 to 0x7f but the quote and the backslash.
var quietByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanValue checks the JSON value starting at data[i] and returns the index
// just past it, or -1 when it is not well-formed or nests too deep.
func scanValue(data []byte, i, depth int) int {
	if i >= len(data) || depth > maxScanDepth {
		return -1
	}
	switch c := data[i]; {
	case c == '"':
		end, _ := scanString(data, i)
		return end
	case c == '{':
		return scanComposite(data, i, depth, '}', true)
	case c == '[':
		return scanComposite(data, i, depth, ']', false)
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	case c == '-' || isDigit(c):
		return scanNumber(data, i)
	}
	return -1
}

// scanComposite checks an object (keyed) or a list starting at data[i].
func scanComposite(data []byte, i, depth int, closing byte, keyed bool) int {
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == closing {
		return i + 1
	}
	for {
		if keyed {
			end, _ := scanString(data, i)
			if end < 0 {
				return -1
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return -1
			}
			i = skipSpace(data, i+1)
		}
		end := scanValue(data, i, depth+1)
		if end < 0 {
			return -1
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case closing:
			return i + 1
		default:
			return -1
		}
	}
}

func scanLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanNumber checks a number of JSON's grammar: an optional minus, an
// integer without leading zeros, an optional fraction and exponent.
func scanNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case isDigit(data[i]):
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i
}

// decodeBool decodes a JSON value into a bool, as json.Unmarshal does.
func decodeBool(raw []byte, b *bool) error {
	switch string(raw) {
	case "true":
		*b = true
		return nil
	case "false":
		*b = false
		return nil
	}
	return json.Unmarshal(raw, b)
}

// decodeOrigin decodes a draft's origin, as json.Unmarshal does: a plain
// string, or a list of plain strings, is read here; anything else by
// Origin's UnmarshalJSON.
func decodeOrigin(raw []byte, o *Origin) error {
	if s, ok := plainString(raw); ok && s != "" {
		if s == ModelFree {
			*o = Origin{ModelFree: true}
		} else {
			*o = Origin{CallIDs: []string{s}}
		}
		return nil
	}
	if ids, ok := plainStrings(raw); ok {
		*o = Origin{CallIDs: ids}
		return nil
	}
	return json.Unmarshal(raw, o)
}

// plainStrings reads a non-empty JSON list of plain strings.
func plainStrings(raw []byte) ([]string, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var out []string
	i := skipSpace(raw, 1)
	for {
		end, _ := scanString(raw, i)
		if end < 0 {
			return nil, false
		}
		s, ok := plainString(raw[i:end])
		if !ok {
			return nil, false
		}
		out = append(out, s)
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			if i+1 != len(raw) {
				return nil, false
			}
			return out, true
		default:
			return nil, false
		}
	}
}
