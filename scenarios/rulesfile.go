package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// The rules.json bytes of a bundle are part of what the implementation is
// given: rules_hash is their sha256 (spec §2), so they are kept exactly as
// the bundle gives them. A rule set carries its text only when the text is
// not RulesBytes of the rules; with no text, the harness writes RulesBytes.

// RulesFile returns the bytes the harness writes to the sandbox's rules.json
// at the start of a run.
func (b *Bundle) RulesFile() []byte { return rulesFile(b.Rules, b.RulesJSON) }

// RulesFile returns the bytes a rules fault writes to rules.json.
func (f *Fault) RulesFile() []byte { return rulesFile(f.Rules, f.RulesJSON) }

func rulesFile(rules []Rule, text string) []byte {
	if kept := RulesText(rules, text); kept != "" {
		return []byte(kept)
	}
	return RulesBytes(rules)
}

// RulesText returns the text a rule set keeps: text itself when it is a
// rules file that says exactly these rules and is not RulesBytes(rules),
// else "" (the re-encoding is written). A text that says other rules is an
// error Validate reports; until it is fixed the rules are what counts.
func RulesText(rules []Rule, text string) string {
	if text == "" || text == string(RulesBytes(rules)) {
		return ""
	}
	got, ps := decodeRulesText("rules_json", text)
	if len(ps) > 0 || !sameRules(got, rules) {
		return ""
	}
	return text
}

// WithRulesTexts returns a shallow copy of b in which only the rules texts
// RulesText keeps are left, so a rules text counts in the single-JSON form
// and in the bundle's hash exactly when it is what the harness writes.
func (b *Bundle) WithRulesTexts() *Bundle {
	c := *b
	c.RulesJSON = RulesText(b.Rules, b.RulesJSON)
	copied := false
	for i, f := range b.Faults {
		kept := ""
		if f.Kind == FaultRules {
			kept = RulesText(f.Rules, f.RulesJSON)
		}
		if kept == f.RulesJSON {
			continue
		}
		if !copied {
			c.Faults, copied = append([]Fault(nil), b.Faults...), true
		}
		c.Faults[i].RulesJSON = kept
	}
	return &c
}

// sameRules compares two rule sets by their encoding: two decodes of one
// text may differ in nil against empty lists, never in meaning.
func sameRules(a, b []Rule) bool { return bytes.Equal(RulesBytes(a), RulesBytes(b)) }

// decodeRulesText reads a rules text as strictly as the loader reads
// rules.json: syntax, types, unknown fields and duplicate keys are problems,
// located by line within the text and by field path under base.
func decodeRulesText(base, text string) ([]Rule, Problems) {
	if !utf8.ValidString(text) {
		return nil, Problems{{Pos: Pos{Line: invalidUTF8Line([]byte(text))}, Field: base, Msg: notUTF8}}
	}
	var rules []Rule
	src := &Source{pos: map[string]Pos{}}
	ps := decodeStrict("", []byte(text), 1, base, reflect.TypeOf(rules), src, &rules)
	return rules, ps
}

const notUTF8 = "not valid UTF-8: a rules file is a JSON text, which is UTF-8, and its bytes must survive both bundle forms"

// invalidUTF8Line is the 1-based line of the first byte that is not UTF-8.
func invalidUTF8Line(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[size:]
	}
	return line
}

// rulesSource is where one rule set and its text sit in a loaded bundle.
type rulesSource struct {
	rules *[]Rule
	text  *string
	path  string // "" for the initial rules, "faults[3]" for a fault's
}

func (r rulesSource) field(name string) string { return joinPath(r.path, name) }

// resolveRulesTexts reads the rules_json members of a loaded bundle: each is
// decoded strictly, a text given without rules becomes the source of the
// rules, and a text that is the default bytes is dropped so the bundle
// equals one written without it. A text that says other rules than its rules
// is left for Validate to report.
func resolveRulesTexts(b *Bundle, src *Source) Problems {
	sets := []rulesSource{{rules: &b.Rules, text: &b.RulesJSON}}
	for i := range b.Faults {
		sets = append(sets, rulesSource{rules: &b.Faults[i].Rules, text: &b.Faults[i].RulesJSON, path: fmt.Sprintf("faults[%d]", i)})
	}
	var probs Problems
	for _, s := range sets {
		probs = append(probs, s.resolve(src)...)
	}
	return probs
}

func (s rulesSource) resolve(src *Source) Problems {
	textField := s.field("rules_json")
	at, given := src.pos[textField]
	if !given {
		return nil
	}
	if *s.text == "" {
		return Problems{{Pos: at, Field: textField, Msg: "must not be empty: give the exact text of rules.json, or leave rules_json out"}}
	}
	rules, ps := decodeRulesText(textField, *s.text)
	if len(ps) > 0 {
		return locateInText(ps, at, *s.text)
	}
	if _, has := src.pos[s.field("rules")]; !has {
		*s.rules = rules
		src.pos[s.field("rules")] = at
	}
	if *s.text == string(RulesBytes(*s.rules)) {
		*s.text = ""
	}
	return nil
}

// locateInText moves problems found inside a rules text to the line of the
// member holding it, naming the line within the text when it has several.
func locateInText(ps Problems, at Pos, text string) Problems {
	multi := strings.Contains(strings.TrimRight(text, "\n"), "\n")
	for i := range ps {
		if multi && ps[i].Pos.Line > 0 {
			ps[i].Msg = fmt.Sprintf("line %d of the text: %s", ps[i].Pos.Line, ps[i].Msg)
		}
		ps[i].Pos = at
	}
	return ps
}

// rulesTexts checks, for Validate, that each rules text is a rules file
// saying the same rules as its set, whichever way the bundle was made.
func (v *validator) rulesTexts() {
	v.rulesText("", v.b.Rules, v.b.RulesJSON)
	for i, f := range v.b.Faults {
		if f.Kind == FaultRules {
			v.rulesText(fmt.Sprintf("faults[%d]", i), f.Rules, f.RulesJSON)
		}
	}
}

func (v *validator) rulesText(path string, rules []Rule, text string) {
	if text == "" {
		return
	}
	field := joinPath(path, "rules_json")
	got, ps := decodeRulesText(field, text)
	if len(ps) > 0 {
		v.ps = append(v.ps, locateInText(ps, v.src.Locate(field), text)...)
		return
	}
	if sameRules(got, rules) {
		return
	}
	v.errorf(field, "says other rules than %s (%s): give one of them, or make them agree", joinPath(path, "rules"), firstDifference(got, rules))
}

// firstDifference names the first rule where two rule sets part.
func firstDifference(text, rules []Rule) string {
	for i := 0; i < len(text) && i < len(rules); i++ {
		a, _ := json.Marshal(text[i])
		b, _ := json.Marshal(rules[i])
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("rule %d differs", i)
		}
	}
	return fmt.Sprintf("the text has %d rules, the set %d", len(text), len(rules))
}
