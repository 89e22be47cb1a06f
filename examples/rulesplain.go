package examples

// parsePlainRules reads rules.json without encoding/json when it is in the
// plain form the harness writes: a list of objects whose members are
// exactly id, admit, when and overrides, each at most once, with strings
// of printable ASCII and no escapes, whole numbers without a fraction or
// an exponent, and conditions the rules language defines. For such bytes
// it returns what parseRules returns through encoding/json (a test holds
// the two together); for anything else it reports false, and the caller
// decodes the file as before. A generated run's rules.json is new bytes,
// so its decode through reflection was paid once in every run.
func parsePlainRules(data []byte) ([]rule, bool) {
	p := plainJSON{data: data}
	p.space()
	if !p.take('[') {
		return nil, false
	}
	rules := []rule{}
	p.space()
	if p.take(']') {
		return rules, p.end()
	}
	for {
		r, ok := p.rule()
		if !ok {
			return nil, false
		}
		rules = append(rules, r)
		p.space()
		if p.take(']') {
			return rules, p.end()
		}
		if !p.take(',') {
			return nil, false
		}
		p.space()
	}
}

// plainJSON is a reader of the plain form; every method that reports
// false leaves it somewhere the caller gives up from.
type plainJSON struct {
	data []byte
	i    int
}

func (p *plainJSON) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *plainJSON) take(c byte) bool {
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

// word takes a literal (true, false, null); what follows it is checked by
// the caller, which wants a separator or a closing bracket next.
func (p *plainJSON) word(w string) bool {
	if len(p.data)-p.i >= len(w) && string(p.data[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// end reports whether only white space is left.
func (p *plainJSON) end() bool {
	p.space()
	return p.i == len(p.data)
}

// str takes a string of printable ASCII without a quote or a backslash,
// which decodes to its bytes as they are.
func (p *plainJSON) str() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c == '"' {
			s := string(p.data[start:p.i])
			p.i++
			return s, true
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			return "", false
		}
		p.i++
	}
	return "", false
}

// num takes a whole number of at most 18 digits, with no leading zero,
// fraction or exponent: one that fits an int as encoding/json reads it.
func (p *plainJSON) num() (int, bool) {
	neg := p.take('-')
	start := p.i
	n := 0
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		n = n*10 + int(p.data[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || digits > 18 || digits > 1 && p.data[start] == '0' {
		return 0, false
	}
	if p.i < len(p.data) {
		if c := p.data[p.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// members reads an object's members, calling member with each key once
// the colon after it is read; member reads the value. A key seen twice
// gives up: encoding/json keeps the last, which the plain form leaves to it.
func (p *plainJSON) members(member func(key string) bool) bool {
	if !p.take('{') {
		return false
	}
	p.space()
	if p.take('}') {
		return true
	}
	var seen []string
	for {
		key, ok := p.str()
		if !ok {
			return false
		}
		for _, k := range seen {
			if k == key {
				return false
			}
		}
		seen = append(seen, key)
		p.space()
		if !p.take(':') {
			return false
		}
		p.space()
		if !member(key) {
			return false
		}
		p.space()
		if p.take('}') {
			return true
		}
		if !p.take(',') {
			return false
		}
		p.space()
	}
}

// strs takes a list of plain strings; an empty list is an empty slice, not
// nil, as encoding/json makes it.
func (p *plainJSON) strs() ([]string, bool) {
	if !p.take('[') {
		return nil, false
	}
	out := []string{}
	p.space()
	if p.take(']') {
		return out, true
	}
	for {
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		p.space()
		if p.take(']') {
			return out, true
		}
		if !p.take(',') {
			return nil, false
		}
		p.space()
	}
}

func (p *plainJSON) rule() (rule, bool) {
	var r rule
	ok := p.members(func(key string) bool {
		var ok bool
		switch key {
		case "id":
			r.id, ok = p.str()
		case "admit":
			switch {
			case p.word("true"):
				r.admit, ok = true, true
			case p.word("false"):
				ok = true
			}
		case "when":
			if p.word("null") {
				return true
			}
			r.when, ok = p.conditions()
		case "overrides":
			if p.word("null") {
				return true
			}
			r.overrides, ok = p.strs()
		}
		return ok
	})
	return r, ok
}

// conditions reads a when object whose every key the rules language
// defines; null leaves a condition absent.
func (p *plainJSON) conditions() (conditions, bool) {
	var c conditions
	ok := p.members(func(key string) bool {
		if p.word("null") {
			return known(key)
		}
		switch key {
		case "subject_contains":
			return p.strInto(&c.subjectContains)
		case "body_contains":
			return p.strInto(&c.bodyContains)
		case "posture":
			return p.strInto(&c.posture)
		case "from_in":
			list, ok := p.strs()
			c.fromIn = &list
			return ok
		case "thread_length_min":
			return p.numInto(&c.threadMin)
		case "thread_length_max":
			return p.numInto(&c.threadMax)
		case "sender_history_min":
			return p.numInto(&c.historyMin)
		case "sender_history_max":
			return p.numInto(&c.historyMax)
		}
		return false
	})
	return c, ok
}

// known reports whether the rules language defines a condition key.
func known(key string) bool {
	switch key {
	case "subject_contains", "body_contains", "posture", "from_in",
		"thread_length_min", "thread_length_max", "sender_history_min", "sender_history_max":
		return true
	}
	return false
}

func (p *plainJSON) strInto(dst **string) bool {
	s, ok := p.str()
	*dst = &s
	return ok
}

func (p *plainJSON) numInto(dst **int) bool {
	n, ok := p.num()
	*dst = &n
	return ok
}
