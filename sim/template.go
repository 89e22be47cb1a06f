package sim

import (
	"encoding/json"
	"strings"
)

// fill is what a reply's placeholders stand for in one call.
type fill struct {
	anchor, callID, sender, participants string
}

func (f fill) replacer() *strings.Replacer {
	return strings.NewReplacer("{{anchor}}", f.anchor, "{{call_id}}", f.callID,
		"{{sender}}", f.sender, "{{participants}}", f.participants)
}

// renderTemplate fills a reply template. A template that is JSON text (an
// object or an array) stays valid JSON whatever the values hold: each
// string literal is filled on its own and written back escaped, and a
// literal whose text is itself JSON text is filled the same way one level
// down, so a placeholder is escaped once for every level of JSON it sits
// in. Bytes outside the literals that change are kept as written.
func renderTemplate(tmpl string, f fill) string {
	if isJSONTemplate(tmpl) {
		return renderJSONText(tmpl, f.replacer(), 0)
	}
	return f.replace(tmpl)
}

// replace is f.replacer().Replace(s) without building a replacer for every
// call, which was most of what drafting a reply cost: no placeholder is a
// prefix of another, so at any position at most one matches, and the
// replacer's leftmost, non-overlapping scan is this one.
func (f fill) replace(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	pairs := [...]struct{ old, new string }{
		{"{{anchor}}", f.anchor}, {"{{call_id}}", f.callID}, {"{{sender}}", f.sender}, {"{{participants}}", f.participants},
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		matched := false
		for _, p := range pairs {
			if strings.HasPrefix(s[i:], p.old) {
				b.WriteString(p.new)
				i += len(p.old)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// isJSONTemplate reports whether a template is a JSON object or array.
func isJSONTemplate(tmpl string) bool {
	t := strings.TrimSpace(tmpl)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return json.Valid([]byte(t))
}

// maxTemplateDepth bounds how many levels of JSON-in-a-string are filled;
// each level is a shorter text than the one around it, so this only stops
// a pathological template from costing much.
const maxTemplateDepth = 16

// renderJSONText fills the string literals of a valid JSON text.
func renderJSONText(text string, r *strings.Replacer, depth int) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] != '"' {
			b.WriteByte(text[i])
			i++
			continue
		}
		end := literalEnd(text, i)
		lit := text[i:end]
		b.WriteString(renderLiteral(lit, r, depth))
		i = end
	}
	return b.String()
}

// literalEnd returns the index just past the string literal starting at i.
func literalEnd(text string, i int) int {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(text)
}

func renderLiteral(lit string, r *strings.Replacer, depth int) string {
	var s string
	if err := json.Unmarshal([]byte(lit), &s); err != nil {
		return lit
	}
	out := s
	if depth < maxTemplateDepth && isJSONTemplate(s) {
		out = renderJSONText(s, r, depth+1)
	} else {
		out = r.Replace(s)
	}
	if out == s {
		return lit
	}
	enc, err := marshalCompact(out)
	if err != nil {
		return lit
	}
	return string(enc)
}
