package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// Rule is one admission rule of rules.json. See docs/rules.md for the
// semantics; Admitted implements them.
type Rule struct {
	ID        string     `json:"id"`
	Admit     bool       `json:"admit"`
	When      Conditions `json:"when"`
	Overrides []string   `json:"overrides,omitempty"`
}

// Conditions are the tests a message must pass for a rule to match. Every
// present condition must hold. Unknown keys are kept (so a bundle round-trips
// unchanged) and never match.
type Conditions struct {
	SubjectContains  *string                    `json:"subject_contains,omitempty"`
	BodyContains     *string                    `json:"body_contains,omitempty"`
	FromIn           *[]string                  `json:"from_in,omitempty"`
	Posture          *string                    `json:"posture,omitempty"`
	ThreadLengthMin  *int                       `json:"thread_length_min,omitempty"`
	ThreadLengthMax  *int                       `json:"thread_length_max,omitempty"`
	SenderHistoryMin *int                       `json:"sender_history_min,omitempty"`
	SenderHistoryMax *int                       `json:"sender_history_max,omitempty"`
	Unknown          map[string]json.RawMessage `json:"-"`
}

// KnownConditions lists the condition keys amr understands.
var KnownConditions = []string{
	"subject_contains", "body_contains", "from_in", "posture",
	"thread_length_min", "thread_length_max", "sender_history_min", "sender_history_max",
}

type conditionFields struct {
	SubjectContains  *string   `json:"subject_contains,omitempty"`
	BodyContains     *string   `json:"body_contains,omitempty"`
	FromIn           *[]string `json:"from_in,omitempty"`
	Posture          *string   `json:"posture,omitempty"`
	ThreadLengthMin  *int      `json:"thread_length_min,omitempty"`
	ThreadLengthMax  *int      `json:"thread_length_max,omitempty"`
	SenderHistoryMin *int      `json:"sender_history_min,omitempty"`
	SenderHistoryMax *int      `json:"sender_history_max,omitempty"`
}

// UnmarshalJSON keeps unknown keys aside instead of dropping them. Keys are
// matched exactly, so "Subject_Contains" is an unknown key, not a spelling
// of subject_contains. Unknown values are kept in a canonical form (compact,
// object keys sorted, no HTML escaping), so a bundle reads back equal
// however it was reformatted or re-encoded.
func (c *Conditions) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	*c = Conditions{}
	for _, k := range keys {
		v := raw[k]
		var err error
		switch k {
		case "subject_contains":
			c.SubjectContains, err = decodeCondition[string](v)
		case "body_contains":
			c.BodyContains, err = decodeCondition[string](v)
		case "from_in":
			c.FromIn, err = decodeCondition[[]string](v)
		case "posture":
			c.Posture, err = decodeCondition[string](v)
		case "thread_length_min":
			c.ThreadLengthMin, err = decodeCondition[int](v)
		case "thread_length_max":
			c.ThreadLengthMax, err = decodeCondition[int](v)
		case "sender_history_min":
			c.SenderHistoryMin, err = decodeCondition[int](v)
		case "sender_history_max":
			c.SenderHistoryMax, err = decodeCondition[int](v)
		default:
			var canon json.RawMessage
			if canon, err = canonicalJSON(v); err == nil {
				if c.Unknown == nil {
					c.Unknown = map[string]json.RawMessage{}
				}
				c.Unknown[k] = canon
			}
		}
		if err != nil {
			return fmt.Errorf("condition %q: %w", k, err)
		}
	}
	return nil
}

// canonicalJSON re-encodes a JSON value: compact, object keys sorted,
// numbers as written, strings with the fewest escapes.
func canonicalJSON(raw []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// decodeCondition reads one known condition; null means absent.
func decodeCondition[T any](raw json.RawMessage) (*T, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// MarshalJSON writes known keys first, then unknown keys in sorted order.
func (c Conditions) MarshalJSON() ([]byte, error) {
	f := conditionFields{
		SubjectContains: c.SubjectContains, BodyContains: c.BodyContains, FromIn: c.FromIn,
		Posture: c.Posture, ThreadLengthMin: c.ThreadLengthMin, ThreadLengthMax: c.ThreadLengthMax,
		SenderHistoryMin: c.SenderHistoryMin, SenderHistoryMax: c.SenderHistoryMax,
	}
	known, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	if len(c.Unknown) == 0 {
		return known, nil
	}
	keys := make([]string, 0, len(c.Unknown))
	for k := range c.Unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(known[:len(known)-1])
	first := len(known) == 2
	for _, k := range keys {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Unknown[k]); err != nil {
			return nil, fmt.Errorf("condition %q: %w", k, err)
		}
		buf.Write(compact.Bytes())
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Facts are what a rule may look at for one message: the message itself, the
// posture in force, and counts over what was delivered before it.
type Facts struct {
	Subject string
	Body    string
	From    string
	Posture string
	// ThreadLength counts the distinct messages of the message's conversation
	// delivered so far, this one included.
	ThreadLength int
	// SenderHistory counts the distinct messages from the same sender
	// delivered before this one, in any conversation.
	SenderHistory int
}

// Matches reports whether every condition holds for the facts. Unknown
// condition keys never match.
func (c Conditions) Matches(f Facts) bool {
	if len(c.Unknown) > 0 {
		return false
	}
	if c.SubjectContains != nil && !containsFolded(f.Subject, *c.SubjectContains) {
		return false
	}
	if c.BodyContains != nil && !containsFolded(f.Body, *c.BodyContains) {
		return false
	}
	if c.FromIn != nil && !contains(*c.FromIn, f.From) {
		return false
	}
	if c.Posture != nil && *c.Posture != f.Posture {
		return false
	}
	if c.ThreadLengthMin != nil && f.ThreadLength < *c.ThreadLengthMin {
		return false
	}
	if c.ThreadLengthMax != nil && f.ThreadLength > *c.ThreadLengthMax {
		return false
	}
	if c.SenderHistoryMin != nil && f.SenderHistory < *c.SenderHistoryMin {
		return false
	}
	if c.SenderHistoryMax != nil && f.SenderHistory > *c.SenderHistoryMax {
		return false
	}
	return true
}

// containsFolded reports whether strings.ToLower(s) contains
// strings.ToLower(sub). For ASCII, the common case, it compares in place;
// any other byte takes ToLower itself, whose Unicode cases (a character
// whose lower case has another length) a comparison in place would miss.
func containsFolded(s, sub string) bool {
	if !isASCII(s) || !isASCII(sub) {
		return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
	}
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if equalFoldASCII(s[i:i+n], sub) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// equalFoldASCII compares two ASCII strings of one length, A-Z as a-z.
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// engaged reports whether a rule takes part under the posture: it has no
// posture condition or its posture condition matches.
func (r Rule) engaged(posture string) bool {
	return r.When.Posture == nil || *r.When.Posture == posture
}

// Admitted applies a rule set to one message: a rule is engaged when it has
// no posture condition or the posture matches; engaged rules' overrides
// switch off the rules they name; the message is admitted when an engaged,
// not-overridden rule with admit true matches all its conditions. It returns
// the admitting rule's id.
func Admitted(rules []Rule, f Facts) (string, bool) {
	var off map[string]bool // most rule sets override nothing: no map
	for i := range rules {
		if r := &rules[i]; r.engaged(f.Posture) {
			for _, o := range r.Overrides {
				if off == nil {
					off = map[string]bool{}
				}
				off[o] = true
			}
		}
	}
	for i := range rules {
		if r := &rules[i]; r.Admit && r.engaged(f.Posture) && !off[r.ID] && r.When.Matches(f) {
			return r.ID, true
		}
	}
	return "", false
}

// RulesBytes is the exact content the harness writes to a sandbox's
// rules.json for a rule set: an indented JSON array with a trailing newline.
// The same rules give the same bytes whichever form the bundle was loaded
// from, so rules_hash does not depend on how a person formatted the file.
func RulesBytes(rules []Rule) []byte {
	if rules == nil {
		rules = []Rule{}
	}
	if data, ok := encodeRulesFast(rules); ok {
		// Laid out by hand it costs less than the memo's compare.
		return data
	}
	if last := lastEncoded.Load(); last != nil && reflect.DeepEqual(last.rules, rules) {
		return bytes.Clone(last.data)
	}
	data := encodeRulesSlow(rules)
	lastEncoded.Store(&encodedRules{rules: cloneRules(rules), data: bytes.Clone(data)})
	return data
}

// encodedRules is a rule set, a copy of its own, and its RulesBytes.
type encodedRules struct {
	rules []Rule
	data  []byte
}

// lastEncoded is the last rule set encoded through encoding/json. A suite
// writes a bundle's rules.json and judges it in every one of its runs, and
// the encoder's reflection cost more than comparing the rules: equal rules
// encode to the same bytes. Runs of other bundles at once only make it miss.
var lastEncoded atomic.Pointer[encodedRules]

// cloneRules copies rules deep, nil slices and maps kept nil, so the copy
// is equal to them (reflect.DeepEqual) and shares nothing a caller may
// change.
func cloneRules(rules []Rule) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = Rule{ID: r.ID, Admit: r.Admit, When: cloneConditions(r.When), Overrides: slices.Clone(r.Overrides)}
	}
	return out
}

func cloneConditions(c Conditions) Conditions {
	out := Conditions{SubjectContains: clonePtr(c.SubjectContains), BodyContains: clonePtr(c.BodyContains),
		Posture: clonePtr(c.Posture), ThreadLengthMin: clonePtr(c.ThreadLengthMin), ThreadLengthMax: clonePtr(c.ThreadLengthMax),
		SenderHistoryMin: clonePtr(c.SenderHistoryMin), SenderHistoryMax: clonePtr(c.SenderHistoryMax)}
	if c.FromIn != nil {
		from := slices.Clone(*c.FromIn)
		out.FromIn = &from
	}
	if c.Unknown != nil {
		out.Unknown = make(map[string]json.RawMessage, len(c.Unknown))
		for k, v := range c.Unknown {
			out.Unknown[k] = bytes.Clone(v)
		}
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// encodeRules is RulesBytes without the memo.
func encodeRules(rules []Rule) []byte {
	if data, ok := encodeRulesFast(rules); ok {
		return data
	}
	return encodeRulesSlow(rules)
}

// encodeRulesSlow is encodeRules through encoding/json, for every rule set.
func encodeRulesSlow(rules []Rule) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rules); err != nil {
		panic(fmt.Sprintf("scenarios: rules do not marshal: %v", err))
	}
	return buf.Bytes()
}

// RulesHash is the spec's rules_hash: the sha256 hex of the rules.json bytes.
func RulesHash(rulesJSON []byte) string {
	sum := sha256.Sum256(rulesJSON)
	return hex.EncodeToString(sum[:])
}
