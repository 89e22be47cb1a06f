package checker

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reading "cites a forged approval as authority" (spec §2 fault schedule,
// decision D9) from what an audit record says, at any depth, and never from
// its event name alone. A record cites forged approval X when X is a string
// value somewhere in it, unless the record says, where X sits, that X is not
// valid.

// validWords say that what they qualify holds as authority.
var validWords = map[string]bool{
	"valid": true, "authorized": true, "authorised": true, "accepted": true, "trusted": true, "verified": true,
	"authentic": true,
}

// invalidWords say that what they qualify does not. "reject" and "rejected"
// are left out on purpose: reject is an approval's own decision, so they may
// just as well describe a reject that the record relies on.
var invalidWords = map[string]bool{
	"invalid": true, "forged": true, "forgery": true, "dangling": true, "mismatch": true, "mismatched": true,
	"ignore": true, "ignored": true, "refuse": true, "refused": true, "deny": true, "denied": true,
	"discard": true, "discarded": true, "unauthorized": true, "unauthorised": true, "untrusted": true,
	"unverified": true,
}

// negators turn the word after them around: "not_valid", "non_authentic".
var negators = map[string]bool{"not": true, "non": true}

// verdictFields hold a string verdict, a code rather than prose. reason is
// not one: it explains the record's action in the implementation's own
// words, often in prose ("sent despite a hash mismatch"). decision may be
// an approval's own field copied into the record, but approve and reject
// are no vocabulary words, so such a copy says nothing.
var verdictFields = map[string]bool{
	"status": true, "verdict": true, "validity": true, "result": true, "disposition": true, "outcome": true,
	"decision": true,
}

// otherIDFields name things of other kinds (spec §2 field names): a value
// under one of them that is an id of that kind in the run is that id, even
// when it happens to be spelled like an approval id (a harness may number
// messages and approvals alike). A value that is no such id is read like any
// other: a forged approval id under draft_id names no draft, so it names the
// approval (D43). The record's event and the hash fields always name their
// own kind of thing.
var otherIDFields = map[string]bool{
	"event": true, "message_id": true, "work_id": true, "draft_id": true, "conversation_id": true,
	"agent_id": true, "effect_id": true, "signal_id": true, "call_id": true, "rules_hash": true, "content_hash": true,
}

// ownKindFields are the other-kind fields whose values are never read as
// approval ids.
var ownKindFields = map[string]bool{"event": true, "rules_hash": true, "content_hash": true}

// knownIDs holds, per other-kind field name, the ids of that kind the run
// has: the messages delivered, the work items, the drafts declared.
type knownIDs map[string]map[string]bool

func (k knownIDs) has(field, id string) bool { return k[field][id] }

// claim is what one place of a record says about validity.
type claim struct{ valid, invalid bool }

func (c claim) or(d claim) claim { return claim{c.valid || d.valid, c.invalid || d.invalid} }

// flip is the claim of a boolean field set to false.
func (c claim) flip() claim { return claim{valid: c.invalid, invalid: c.valid} }

// readPhrase reads a name or a short verdict such as "hash_mismatch",
// "isValid" or "NOT-AUTHORIZED", word by word.
func readPhrase(s string) claim {
	var c claim
	ws := words(s)
	for i, w := range ws {
		v, inv := validWords[w], invalidWords[w]
		if !v && !inv {
			continue
		}
		if i > 0 && negators[ws[i-1]] {
			v, inv = inv, v
		}
		c = c.or(claim{valid: v, invalid: inv})
	}
	return c
}

// words splits s into lower-case words at every character that is not a
// letter and where case changes: "approvalIgnored" and "XMLValid" give two.
func words(s string) []string {
	var out []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsUpper(prev) && nextLower {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// ownClaim is what an object says about validity by itself: its boolean
// fields named by a vocabulary word ("valid": false, "is_forged": true), its
// verdict fields ("status": "invalid") and, for the record, its event name.
func ownClaim(obj map[string]any, record bool) claim {
	var c claim
	for k, v := range obj {
		switch x := v.(type) {
		case bool:
			kc := readPhrase(k)
			if !x {
				kc = kc.flip()
			}
			c = c.or(kc)
		case string:
			if verdictFields[strings.ToLower(k)] || record && k == "event" {
				c = c.or(readPhrase(x))
			}
		}
	}
	return c
}

// citation is where a record names a forged approval as authority.
type citation struct {
	id   string
	path string // where in the record, e.g. "authority.id" or "because[0]"
}

// citeForged returns the first place, in key order, where a record cites a
// forged approval. Where X sits, the objects around it are read from the
// nearest outwards, each with the name of the member that leads to X: the
// first one that says anything decides, and one that says both valid and
// not valid makes a citation. Objects beside the path say nothing about X.
func citeForged(fields map[string]json.RawMessage, forged map[string]bool, known knownIDs) (citation, bool) {
	if !mayCite(fields, forged) {
		return citation{}, false
	}
	rec := map[string]any{}
	for k, raw := range fields {
		if k == "at" {
			continue // the envelope's tick
		}
		v, ok := decodeAny(raw)
		if ok {
			rec[k] = v
		}
	}
	w := citeWalk{forged: forged, known: known}
	w.object(rec, nil, true)
	return w.found, w.ok
}

// mayCite reports whether a record could hold a string equal to a forged
// id, without decoding it: only a field whose bytes hold the id, or that
// could spell it otherwise (an escape, or invalid UTF-8, which decodes to
// U+FFFD), can. Most records name no forged approval at all, and decoding
// every one of them was most of the check's cost.
func mayCite(fields map[string]json.RawMessage, forged map[string]bool) bool {
	for k, raw := range fields {
		if k == "at" {
			continue
		}
		if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			return true
		}
		for id := range forged {
			if bytes.Contains(raw, []byte(id)) {
				return true
			}
		}
	}
	return false
}

// lineMayCite is mayCite over the whole line: no member of a line that
// holds no forged id, no escape and only valid UTF-8 can, so most lines are
// passed over without reading their members.
func lineMayCite(line []byte, forged map[string]bool) bool {
	if bytes.IndexByte(line, '\\') >= 0 || !utf8.Valid(line) {
		return true
	}
	for id := range forged {
		if bytes.Contains(line, []byte(id)) {
			return true
		}
	}
	return false
}

// citeWalk visits a record depth first. around holds the claims of the
// objects enclosing the current value, innermost last, and path the steps to
// it; both are stacks whose slots the next sibling overwrites.
type citeWalk struct {
	forged map[string]bool
	known  knownIDs
	path   []string
	found  citation
	ok     bool
}

// object visits the members of obj in key order.
func (w *citeWalk) object(obj map[string]any, around []claim, record bool) {
	own := ownClaim(obj, record)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if w.ok {
			return
		}
		kind := strings.ToLower(k)
		if ownKindFields[kind] {
			continue
		}
		step := k
		if len(w.path) > 0 {
			step = "." + k
		}
		w.path = append(w.path, step)
		if otherIDFields[kind] {
			w.idValue(obj[k], kind, append(around, own.or(readPhrase(k))))
		} else {
			w.value(obj[k], append(around, own.or(readPhrase(k))))
		}
		w.path = w.path[:len(w.path)-1]
	}
}

func (w *citeWalk) value(v any, around []claim) {
	switch x := v.(type) {
	case string:
		if w.forged[x] && cites(around) {
			w.found, w.ok = citation{id: x, path: strings.Join(w.path, "")}, true
		}
	case map[string]any:
		w.object(x, around, false)
	case []any:
		for i, e := range x {
			if w.ok {
				return
			}
			w.path = append(w.path, "["+strconv.Itoa(i)+"]")
			w.value(e, around)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// idValue visits a value under a field naming another kind of id: a string
// that is an id of that kind is that id; anything else is read as usual.
func (w *citeWalk) idValue(v any, kind string, around []claim) {
	switch x := v.(type) {
	case string:
		if !w.known.has(kind, x) {
			w.value(x, around)
		}
	case []any:
		for i, e := range x {
			if w.ok {
				return
			}
			w.path = append(w.path, "["+strconv.Itoa(i)+"]")
			w.idValue(e, kind, around)
			w.path = w.path[:len(w.path)-1]
		}
	default:
		w.value(v, around)
	}
}

// cites decides from the claims around an occurrence, innermost last.
func cites(around []claim) bool {
	for i := len(around) - 1; i >= 0; i-- {
		c := around[i]
		switch {
		case c.valid:
			return true
		case c.invalid:
			return false
		}
	}
	return true
}

// decodeAny decodes one JSON value. Numbers are kept as json.Number, which
// no string case matches: an approval id is a string.
func decodeAny(raw json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}
