package scenarios

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// appendRulesFast lays out the compact JSON of a rule set by hand, as
// encoding/json writes it, when it can be sure of the same bytes: every
// string plain printable ASCII without a quote or backslash (written as it
// is by any encoder), no unknown condition. It reports false otherwise, and
// the caller encodes through encoding/json. The reflection of
// json.Encoder was most of the cost of a campaign's rules.json, which is new
// for every generated bundle.
func appendRulesFast(out []byte, rules []Rule) ([]byte, bool) {
	if rules == nil {
		return append(out, "null"...), true
	}
	out = append(out, '[')
	for i := range rules {
		if i > 0 {
			out = append(out, ',')
		}
		var ok bool
		if out, ok = appendRuleFast(out, &rules[i]); !ok {
			return nil, false
		}
	}
	return append(out, ']'), true
}

func appendRuleFast(out []byte, r *Rule) ([]byte, bool) {
	if len(r.When.Unknown) > 0 || !plainASCII(r.ID) {
		return nil, false
	}
	out = append(out, `{"id":"`...)
	out = append(out, r.ID...)
	out = append(out, `","admit":`...)
	out = strconv.AppendBool(out, r.Admit)
	out = append(out, `,"when":`...)
	var ok bool
	if out, ok = appendConditionsFast(out, &r.When); !ok {
		return nil, false
	}
	if len(r.Overrides) > 0 {
		out = append(out, `,"overrides":`...)
		if out, ok = appendStringsFast(out, r.Overrides); !ok {
			return nil, false
		}
	}
	return append(out, '}'), true
}

func appendConditionsFast(out []byte, c *Conditions) ([]byte, bool) {
	out = append(out, '{')
	first := true
	key := func(k string) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
	}
	for _, s := range []struct {
		k string
		v *string
	}{{"subject_contains", c.SubjectContains}, {"body_contains", c.BodyContains}} {
		if s.v != nil {
			if !plainASCII(*s.v) {
				return nil, false
			}
			key(s.k)
			out = appendPlain(out, *s.v)
		}
	}
	if c.FromIn != nil {
		key("from_in")
		var ok bool
		if out, ok = appendStringsFast(out, *c.FromIn); !ok {
			return nil, false
		}
	}
	if c.Posture != nil {
		if !plainASCII(*c.Posture) {
			return nil, false
		}
		key("posture")
		out = appendPlain(out, *c.Posture)
	}
	for _, n := range []struct {
		k string
		v *int
	}{{"thread_length_min", c.ThreadLengthMin}, {"thread_length_max", c.ThreadLengthMax},
		{"sender_history_min", c.SenderHistoryMin}, {"sender_history_max", c.SenderHistoryMax}} {
		if n.v != nil {
			key(n.k)
			out = strconv.AppendInt(out, int64(*n.v), 10)
		}
	}
	return append(out, '}'), true
}

// appendStringsFast writes a list as encoding/json does, a nil one as null.
func appendStringsFast(out []byte, list []string) ([]byte, bool) {
	if list == nil {
		return append(out, "null"...), true
	}
	out = append(out, '[')
	for i, s := range list {
		if !plainASCII(s) {
			return nil, false
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = appendPlain(out, s)
	}
	return append(out, ']'), true
}

func appendPlain(out []byte, s string) []byte {
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}

// plainASCII reports whether encoding/json writes s between its quotes
// byte for byte, whatever its HTML escaping: printable ASCII but for the
// quote, the backslash and the three characters HTML escaping would touch.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// encodeRulesFast is encodeRules by hand where appendRulesFast can be.
func encodeRulesFast(rules []Rule) ([]byte, bool) {
	compact, ok := appendRulesFast(make([]byte, 0, 64*len(rules)+2), rules)
	if !ok {
		return nil, false
	}
	var buf bytes.Buffer
	buf.Grow(2 * len(compact))
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		return nil, false
	}
	buf.WriteByte('\n')
	return buf.Bytes(), true
}
