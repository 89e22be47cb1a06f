package sandbox

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/amr-bench/amr/seeds"
)

// A run log of a large run is hundreds of thousands of records, and making
// each through encoding/json (the members marshalled back to an object,
// then decoded by reflection) was most of what reading it cost. fastLogRecord
// makes the record from the members the fast path read, for the spellings
// the harness writes: each key exactly a field's name, strings, whole
// numbers that fit, lists and maps of those. Anything else (another key or a
// key's other case, null, a fraction or exponent, a surrogate escape,
// invalid UTF-8, a duplicate key in a map, a full state copy) it declines,
// and the record is made by encoding/json as before, so the record and
// every error are what they were.

// fastLogRecord is the record encoding/json makes of o's members, or false
// when it cannot be sure of it.
func fastLogRecord(o *object) (LogRecord, bool) {
	var r LogRecord
	if o.m != nil {
		return r, false
	}
	d := logDecoder{owned: o.owned}
	// encoding/json makes an embedded pointer's struct for any of its keys,
	// an empty value's too, so these do the same.
	st := func() *LogStartInfo {
		if r.LogStartInfo == nil {
			r.LogStartInfo = new(LogStartInfo)
		}
		return r.LogStartInfo
	}
	rw := func() *LogRewriteInfo {
		if r.LogRewriteInfo == nil {
			r.LogRewriteInfo = new(LogRewriteInfo)
		}
		return r.LogRewriteInfo
	}
	for _, f := range o.fields {
		v := f.val
		ok := true
		switch string(f.key) {
		case "kind":
			r.Kind, ok = d.str(v)
		case "tick":
			r.Tick, ok = d.num(v)
		case "bundle":
			st().Bundle, ok = d.str(v)
		case "bundle_hash":
			st().BundleHash, ok = d.str(v)
		case "impl":
			st().Impl, ok = d.str(v)
		case "campaign_seed":
			st().Campaign, ok = d.seed(v)
		case "run_seed":
			st().Run, ok = d.seed(v)
		case "engine_seed":
			st().Engine, ok = d.seed(v)
		case "params":
			st().Params, ok = d.strMap(v)
		case "id":
			r.ID, ok = d.str(v)
		case "ref":
			r.Ref, ok = d.str(v)
		case "draft_id":
			r.DraftID, ok = d.str(v)
		case "content_hash":
			r.ContentHash, ok = d.str(v)
		case "decision":
			r.Decision, ok = d.str(v)
		case "forge":
			r.Forge, ok = d.str(v)
		case "signal_type":
			r.SignalType, ok = d.str(v)
		case "target":
			r.Target, ok = d.str(v)
		case "posture":
			r.Posture, ok = d.str(v)
		case "rules_hash":
			r.RulesHash, ok = d.str(v)
		case "to":
			r.To, ok = d.num(v)
		case "line":
			r.Line, ok = d.num(v)
		case "scheduled":
			r.Scheduled, ok = d.numPtr(v)
		case "stamped":
			r.Stamped, ok = d.numPtr(v)
		case "after_writes":
			r.AfterWrites, ok = d.num(v)
		case "writes_to":
			r.WritesTo, ok = d.str(v)
		case "written":
			r.Written, ok = d.num(v)
		case "down":
			r.Down, ok = d.num(v)
		case "torn":
			r.Torn, ok = d.str(v)
		case "torn_text":
			r.TornText, ok = d.str(v)
		case "file":
			rw().File, ok = d.str(v)
		case "lost":
			rw().Lost, ok = d.strList(v)
		case "fresh":
			rw().Fresh, ok = d.num(v)
		case "kept":
			rw().Kept, ok = d.num(v)
		case "writes":
			r.Writes, ok = d.strList(v)
		case "lines":
			r.Lines, ok = d.numMap(v)
		case "forced":
			r.Forced, ok = d.boolean(v)
		case "steps":
			r.Steps, ok = d.num(v)
		case "state_edit":
			r.StateEdit, ok = d.stateEdit(v)
		case "detail":
			r.Detail, ok = d.str(v)
		default:
			// state (a full copy, which encoding/json keeps compacted and
			// escaped its own way) and any key the harness does not write.
			return LogRecord{}, false
		}
		if !ok {
			return LogRecord{}, false
		}
	}
	return r, true
}

// logDecoder reads the values of one line's members.
type logDecoder struct {
	owned bool // the line's bytes are frozen: a plain string may alias them
}

// whole says a cursor reader that ended at i read all of v, nothing after
// it but white space.
func whole(v []byte, i int, ok bool) bool {
	return ok && skipSpace(v, i) == len(v)
}

func (d logDecoder) str(v []byte) (string, bool) {
	s, i, ok := d.strAt(v, 0)
	return s, whole(v, i, ok)
}

func (d logDecoder) num(v []byte) (int, bool) {
	n, i, ok := numAt(v, 0)
	return n, whole(v, i, ok)
}

func (d logDecoder) numPtr(v []byte) (*int, bool) {
	n, ok := d.num(v)
	if !ok {
		return nil, false
	}
	return &n, true
}

func (d logDecoder) boolean(v []byte) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// seed is what the seed's own decoder makes of the value; null, which
// encoding/json handles before it, is declined.
func (d logDecoder) seed(v []byte) (*seeds.Seed, bool) {
	if len(v) == 0 || v[0] == 'n' {
		return nil, false
	}
	s := new(seeds.Seed)
	if err := s.UnmarshalJSON(v); err != nil {
		return nil, false
	}
	return s, true
}

func (d logDecoder) strList(v []byte) ([]string, bool) {
	out := []string{}
	i, ok := listAt(v, 0, func(i int) (int, bool) {
		s, j, ok := d.strAt(v, i)
		out = append(out, s)
		return j, ok
	})
	return out, whole(v, i, ok)
}

func (d logDecoder) strMap(v []byte) (map[string]string, bool) {
	return mapAt(d, v, d.strAt)
}

func (d logDecoder) numMap(v []byte) (map[string]int, bool) {
	return mapAt(d, v, numAt)
}

// mapAt reads the object v as a map whose values valueAt reads; a key met
// twice declines the line.
func mapAt[T any](d logDecoder, v []byte, valueAt func([]byte, int) (T, int, bool)) (map[string]T, bool) {
	m := map[string]T{}
	i, ok := membersAt(v, 0, d, func(k string, i int) (int, bool) {
		if _, dup := m[k]; dup {
			return i, false
		}
		x, j, ok := valueAt(v, i)
		m[k] = x
		return j, ok
	})
	return m, whole(v, i, ok)
}

// stateEdit reads {"hunks":[{"at":..,"del":..,"text":..}],"hash":..},
// each key at most once and in its exact case.
func (d logDecoder) stateEdit(v []byte) (*StateEdit, bool) {
	e := &StateEdit{}
	var seenHunks, seenHash bool
	i, ok := membersAt(v, 0, d, func(k string, i int) (int, bool) {
		switch {
		case k == "hash" && !seenHash:
			seenHash = true
			s, j, ok := d.strAt(v, i)
			e.Hash = s
			return j, ok
		case k == "hunks" && !seenHunks:
			seenHunks = true
			if j := skipSpace(v, i); len(v)-j >= 4 && string(v[j:j+4]) == "null" {
				// an edit with no hunks, as json.Marshal spells a nil list
				return j + 4, true
			}
			e.Hunks = []Hunk{}
			return listAt(v, i, func(i int) (int, bool) {
				h, j, ok := d.hunkAt(v, i)
				e.Hunks = append(e.Hunks, h)
				return j, ok
			})
		}
		return i, false
	})
	return e, whole(v, i, ok)
}

func (d logDecoder) hunkAt(v []byte, i int) (Hunk, int, bool) {
	var h Hunk
	var seenAt, seenDel, seenText bool
	i, ok := membersAt(v, i, d, func(k string, i int) (int, bool) {
		var ok bool
		switch {
		case k == "at" && !seenAt:
			seenAt = true
			h.At, i, ok = numAt(v, i)
		case k == "del" && !seenDel:
			seenDel = true
			h.Del, i, ok = numAt(v, i)
		case k == "text" && !seenText:
			seenText = true
			h.Text, i, ok = d.strAt(v, i)
		}
		return i, ok
	})
	return h, i, ok
}

// listAt reads a JSON array from v[i] (after white space), calling item at
// each element's first byte; item returns where the element ends.
func listAt(v []byte, i int, item func(int) (int, bool)) (int, bool) {
	i = skipSpace(v, i)
	if i >= len(v) || v[i] != '[' {
		return i, false
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return i + 1, true
	}
	for {
		j, ok := item(skipSpace(v, i))
		if !ok {
			return j, false
		}
		i = skipSpace(v, j)
		if i >= len(v) {
			return i, false
		}
		switch v[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// membersAt reads a JSON object from v[i] (after white space), calling
// member with each key and its value's first byte; member returns where
// the value ends.
func membersAt(v []byte, i int, d logDecoder, member func(string, int) (int, bool)) (int, bool) {
	i = skipSpace(v, i)
	if i >= len(v) || v[i] != '{' {
		return i, false
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return i + 1, true
	}
	for {
		k, j, ok := d.strAt(v, i)
		if !ok {
			return j, false
		}
		i = skipSpace(v, j)
		if i >= len(v) || v[i] != ':' {
			return i, false
		}
		if j, ok = member(k, skipSpace(v, i+1)); !ok {
			return j, false
		}
		i = skipSpace(v, j)
		if i >= len(v) {
			return i, false
		}
		switch v[i] {
		case ',':
			i = skipSpace(v, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// numAt reads a JSON number at v[i] that is a whole number in an int, as
// encoding/json reads one into an int; a fraction or exponent is declined.
func numAt(v []byte, i int) (int, int, bool) {
	start := i
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := i
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == digits || v[digits] == '0' && i-digits > 1 {
		return 0, i, false
	}
	if i < len(v) && (v[i] == '.' || v[i] == 'e' || v[i] == 'E') {
		return 0, i, false
	}
	n, err := strconv.ParseInt(string(v[start:i]), 10, 0)
	if err != nil {
		return 0, i, false
	}
	return int(n), i, true
}

// strAt reads a JSON string at v[i], as encoding/json decodes one; it
// declines a \u escape of a surrogate, a control byte and invalid UTF-8,
// which encoding/json reads its own way.
func (d logDecoder) strAt(v []byte, i int) (string, int, bool) {
	if i >= len(v) || v[i] != '"' {
		return "", i, false
	}
	i++
	start := i
	ascii := true
	for i < len(v) && v[i] != '"' && v[i] != '\\' {
		c := v[i]
		if c < 0x20 {
			return "", i, false
		}
		if c >= 0x80 {
			ascii = false
		}
		i++
	}
	if i >= len(v) {
		return "", i, false
	}
	if v[i] == '"' {
		in := v[start:i]
		if !ascii && !utf8.Valid(in) {
			return "", i, false
		}
		if len(in) == 0 {
			return "", i + 1, true
		}
		if d.owned {
			return unsafe.String(unsafe.SliceData(in), len(in)), i + 1, true
		}
		return intern(in), i + 1, true
	}
	// The decoded text is never longer than its escaped form: sized to
	// that, the buffer is allocated once and becomes the string.
	end := i
	for end < len(v) && v[end] != '"' {
		if v[end] == '\\' {
			end++
		}
		end++
	}
	out := append(make([]byte, 0, min(end, len(v))-start), v[start:i]...)
	for {
		if i >= len(v) {
			return "", i, false
		}
		c := v[i]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(out) {
				return "", i, false
			}
			return unsafe.String(unsafe.SliceData(out), len(out)), i + 1, true
		case c < 0x20:
			return "", i, false
		case c == '\\':
			if i+1 >= len(v) {
				return "", i, false
			}
			switch v[i+1] {
			case '"', '\\', '/':
				out = append(out, v[i+1])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				if i+6 > len(v) {
					return "", i, false
				}
				r, err := strconv.ParseUint(string(v[i+2:i+6]), 16, 32)
				if err != nil || r >= 0xD800 && r < 0xE000 {
					return "", i, false
				}
				out = utf8.AppendRune(out, rune(r))
				i += 6
				continue
			default:
				return "", i, false
			}
			i += 2
		default:
			if c >= 0x80 {
				ascii = false
			}
			out = append(out, c)
			i++
		}
	}
}
