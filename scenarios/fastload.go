package scenarios

import (
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
)

// The loader's strict reading (decodeStrict) walks every token with
// encoding/json's Decoder, builds a generic copy of the document and walks
// it again beside the Go type: sound, and most of what loading a bundle
// costs. A document that is well formed and has nothing to report is read
// here in one pass over its bytes instead: the same field positions
// recorded, the same checks made (duplicate keys, unknown fields, JSON
// types, whole numbers in range). Any doubt at all sends it back to the
// positional reader, so every problem is still found and worded by one
// reader only (D165).

// fastIndex walks data, which json.Valid accepts, recording into src the
// line of every field path exactly as the positional reader does, and
// reports whether the document decodes into t with nothing to report. On
// false, src may hold positions of this document: the positional reader
// records the same ones again, so its result is unchanged.
func fastIndex(file string, data []byte, firstLine int, base string, t reflect.Type, src *Source) bool {
	s := &fastScan{data: data, line: firstLine, file: file, src: src, ok: true}
	s.value(base, t, true, false)
	return s.ok
}

// fastScan is one pass over a valid JSON document.
type fastScan struct {
	data []byte
	i    int
	line int
	file string
	src  *Source
	// ok turns false at the first thing the positional reader would report
	// (or that this reader does not model); the walk goes on recording
	// positions, so a false walk leaves what a full one would.
	ok bool
}

func (s *fastScan) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.i++
	}
}

// value reads one value at path. typed is false inside what any JSON value
// may fill (a json.RawMessage, an interface, an unknown condition key):
// positions and duplicate keys only. set is whether path's position is
// already recorded (an object member's key line), as the positional reader
// records a value's line only where none is.
func (s *fastScan) value(path string, t reflect.Type, typed, set bool) {
	s.space()
	if !set {
		if _, seen := s.src.pos[path]; !seen {
			s.src.pos[path] = Pos{File: s.file, Line: s.line}
		}
	}
	nullable := false
	if typed {
		if t == rawMessageType {
			typed = false
		} else {
			for t.Kind() == reflect.Pointer {
				t, nullable = t.Elem(), true
			}
		}
	}
	c := s.data[s.i]
	if typed && !s.fits(c, t, nullable) {
		s.ok = false
		typed = false
	}
	if typed && t.Kind() == reflect.Interface {
		typed = false
	}
	switch c {
	case '{':
		s.object(path, t, typed)
	case '[':
		s.array(path, t, typed)
	case '"':
		s.skipString()
	default:
		s.i += scalarLen(s.data[s.i:])
	}
}

// fits is typeMismatch's "" for the value starting with c.
func (s *fastScan) fits(c byte, t reflect.Type, nullable bool) bool {
	k := t.Kind()
	if k == reflect.Interface {
		return true
	}
	switch c {
	case 'n':
		return nullable || k == reflect.Slice || k == reflect.Map
	case '"':
		return k == reflect.String
	case 't', 'f':
		return k == reflect.Bool
	case '{':
		return k == reflect.Struct || k == reflect.Map
	case '[':
		return k == reflect.Slice
	}
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		text := s.data[s.i : s.i+scalarLen(s.data[s.i:])]
		_, err := strconv.ParseInt(string(text), 10, t.Bits())
		return err == nil
	case reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func (s *fastScan) object(path string, t reflect.Type, typed bool) {
	s.i++ // {
	var seen map[string]bool
	for {
		s.space()
		if s.data[s.i] == '}' {
			s.i++
			return
		}
		if s.data[s.i] == ',' {
			s.i++
			s.space()
		}
		key := s.key()
		child := joinPath(path, key)
		if seen == nil {
			seen = map[string]bool{}
		}
		if seen[key] {
			s.ok = false // a duplicate key: the positional reader words it
		}
		seen[key] = true
		s.src.pos[child] = Pos{File: s.file, Line: s.line}
		s.space()
		s.i++ // :
		ft, childTyped := s.member(t, typed, key)
		s.value(child, ft, childTyped, true)
	}
}

// member is the type a member's value is checked against, as checkFields
// finds it.
func (s *fastScan) member(t reflect.Type, typed bool, key string) (reflect.Type, bool) {
	if !typed {
		return nil, false
	}
	switch {
	case t == conditionsType:
		if ft := conditionTypes()[key]; ft != nil {
			return ft, true
		}
		return nil, false // an unknown condition never matches: allowed
	case t.Kind() == reflect.Map:
		return t.Elem(), true
	}
	ft := cachedFields(t)[key]
	if ft == nil {
		s.ok = false // an unknown field
		return nil, false
	}
	return ft, true
}

func (s *fastScan) array(path string, t reflect.Type, typed bool) {
	s.i++ // [
	var elem reflect.Type
	if typed {
		elem = t.Elem()
	}
	for n := 0; ; n++ {
		s.space()
		if s.data[s.i] == ']' {
			s.i++
			return
		}
		if s.data[s.i] == ',' {
			s.i++
		}
		s.value(path+"["+strconv.Itoa(n)+"]", elem, typed, false)
	}
}

// key reads an object key as the Decoder hands it over: unescaped, with
// bytes that are not UTF-8 replaced.
func (s *fastScan) key() string {
	start := s.i
	plain := true
	s.i++
	for s.data[s.i] != '"' {
		c := s.data[s.i]
		if c == '\\' {
			plain = false
			s.i++
		} else if c >= 0x80 {
			plain = false
		}
		s.i++
	}
	s.i++
	raw := s.data[start:s.i]
	if plain {
		return string(raw[1 : len(raw)-1])
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		s.ok = false
	}
	return k
}

func (s *fastScan) skipString() {
	s.i++
	for s.data[s.i] != '"' {
		if s.data[s.i] == '\\' {
			s.i++
		}
		s.i++
	}
	s.i++
}

// scalarLen is the length of the number or literal data starts with.
func scalarLen(data []byte) int {
	n := 0
	for n < len(data) {
		switch data[n] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return n
		}
		n++
	}
	return n
}

// fieldsByType caches jsonFields: a published bundle asks for the fields
// of the same few types thousands of times.
var fieldsByType sync.Map // reflect.Type -> map[string]reflect.Type

func cachedFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldsByType.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	f := jsonFields(t)
	fieldsByType.Store(t, f)
	return f
}
