package scenarios

import "strconv"

// rulesLayout lays out rules.json by hand, indented as json.Encoder with
// SetIndent("", "  ") writes it, when it can be sure of the same bytes:
// every string plain printable ASCII without a quote or backslash (written
// as it is by any encoder), no unknown condition. ok turns false otherwise,
// and the caller encodes through encoding/json. The reflection of
// json.Encoder, then the scan of json.Indent, were most of the cost of a
// campaign's rules.json, which is new for every generated bundle.
type rulesLayout struct {
	out []byte
	ok  bool
}

// newline starts a line at the given depth of nesting.
func (l *rulesLayout) newline(depth int) {
	l.out = append(l.out, '\n')
	for range depth {
		l.out = append(l.out, ' ', ' ')
	}
}

func (l *rulesLayout) rules(rules []Rule) {
	if rules == nil {
		l.out = append(l.out, "null"...)
		return
	}
	if len(rules) == 0 {
		l.out = append(l.out, "[]"...)
		return
	}
	l.out = append(l.out, '[')
	for i := range rules {
		if i > 0 {
			l.out = append(l.out, ',')
		}
		l.newline(1)
		l.rule(&rules[i])
		if !l.ok {
			return
		}
	}
	l.newline(0)
	l.out = append(l.out, ']')
}

func (l *rulesLayout) rule(r *Rule) {
	if len(r.When.Unknown) > 0 || !plainASCII(r.ID) {
		l.ok = false
		return
	}
	l.out = append(l.out, '{')
	l.newline(2)
	l.out = append(l.out, `"id": `...)
	l.out = appendPlain(l.out, r.ID)
	l.out = append(l.out, ',')
	l.newline(2)
	l.out = append(l.out, `"admit": `...)
	l.out = strconv.AppendBool(l.out, r.Admit)
	l.out = append(l.out, ',')
	l.newline(2)
	l.out = append(l.out, `"when": `...)
	l.conditions(&r.When)
	if len(r.Overrides) > 0 {
		l.out = append(l.out, ',')
		l.newline(2)
		l.out = append(l.out, `"overrides": `...)
		l.strings(r.Overrides, 2)
	}
	l.newline(1)
	l.out = append(l.out, '}')
}

func (l *rulesLayout) conditions(c *Conditions) {
	const depth = 3
	l.out = append(l.out, '{')
	first := true
	key := func(k string) {
		if !first {
			l.out = append(l.out, ',')
		}
		first = false
		l.newline(depth)
		l.out = append(l.out, '"')
		l.out = append(l.out, k...)
		l.out = append(l.out, '"', ':', ' ')
	}
	str := func(k string, v *string) {
		if v == nil {
			return
		}
		if !plainASCII(*v) {
			l.ok = false
			return
		}
		key(k)
		l.out = appendPlain(l.out, *v)
	}
	num := func(k string, v *int) {
		if v != nil {
			key(k)
			l.out = strconv.AppendInt(l.out, int64(*v), 10)
		}
	}
	str("subject_contains", c.SubjectContains)
	str("body_contains", c.BodyContains)
	if c.FromIn != nil {
		key("from_in")
		l.strings(*c.FromIn, depth)
	}
	str("posture", c.Posture)
	num("thread_length_min", c.ThreadLengthMin)
	num("thread_length_max", c.ThreadLengthMax)
	num("sender_history_min", c.SenderHistoryMin)
	num("sender_history_max", c.SenderHistoryMax)
	if !first {
		l.newline(depth - 1)
	}
	l.out = append(l.out, '}')
}

// strings writes a list at the given depth as encoding/json does, a nil
// one as null.
func (l *rulesLayout) strings(list []string, depth int) {
	if list == nil {
		l.out = append(l.out, "null"...)
		return
	}
	if len(list) == 0 {
		l.out = append(l.out, "[]"...)
		return
	}
	l.out = append(l.out, '[')
	for i, s := range list {
		if !plainASCII(s) {
			l.ok = false
			return
		}
		if i > 0 {
			l.out = append(l.out, ',')
		}
		l.newline(depth + 1)
		l.out = appendPlain(l.out, s)
	}
	l.newline(depth)
	l.out = append(l.out, ']')
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

// encodeRulesFast is encodeRules by hand where rulesLayout can be.
func encodeRulesFast(rules []Rule) ([]byte, bool) {
	l := rulesLayout{out: make([]byte, 0, 160*len(rules)+8), ok: true}
	l.rules(rules)
	if !l.ok {
		return nil, false
	}
	return append(l.out, '\n'), true
}
