package sim

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/amr-bench/amr/internal/lazyset"
)

// The stub builds the object a json_schema request or a tool call asks for
// from the schema itself, deterministically:
//
//   - a value the bundle gives (a reply rule's json, a JSON reply) is kept
//     wherever the schema accepts it, member by member;
//   - else the schema's const, the first enum value it accepts, its default;
//   - a string named for the reply (reply, text, content, body, message,
//     answer, response, draft, output, result, summary) gets the reply's
//     text; one named for the call (call_id, model_call_id, origin) the
//     call's id; anchor the anchor; sender, from, to, recipient, reply_to,
//     email the sender; participants the participants. When no member is
//     named for the reply, the first string member that is free gets it,
//     so the reply always reaches the caller;
//   - a string with a format gets a fixed value of that format; other
//     strings are empty, padded with "." to a minLength and cut to a
//     maxLength; a pattern is met by the first of those values that
//     matches it;
//   - numbers are their lower bound (or 0, or the upper bound when 0 is
//     above it), rounded up to a multipleOf; booleans are false; null is
//     null;
//   - an array has minItems items, at least one when the schema allows
//     it; an object has every member its schema lists.
//
// The result is checked against the schema; when the stub could not meet
// it, the call's log line says so (an ignored feature).

type generator struct {
	doc   *schemaDoc
	reply string
	fill  fill
	// anywhere lets the first free string member take the reply.
	anywhere bool
	placed   bool
	// named is set once a member named for the reply was generated: the
	// reply went where the schema's author meant it, even if cut short.
	named bool
}

// maxGenDepth bounds recursion through a schema that refers to itself:
// below it only required members are generated.
const maxGenDepth = 8

var replyNames = lazyset.Of("reply", "text", "content", "body", "message", "answer", "response", "draft",
	"output", "result", "summary")
var callNames = lazyset.Of("callid", "modelcallid", "origin", "callids")
var senderNames = lazyset.Of("sender", "from", "to", "recipient", "replyto", "email")

// generate builds a value for schema s. cand, when has is set, is the
// value the bundle gave, kept where the schema accepts it.
func generate(doc *schemaDoc, s any, reply string, f fill, cand any, has bool) any {
	g := &generator{doc: doc, reply: reply, fill: f}
	v := g.gen(s, "", cand, has, 0)
	if reply != "" && !g.named && !containsString(v, reply) {
		g = &generator{doc: doc, reply: reply, fill: f, anywhere: true}
		v = g.gen(s, "", cand, has, 0)
	}
	return v
}

func containsString(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, s)
	case []any:
		for _, e := range x {
			if containsString(e, s) {
				return true
			}
		}
	case *object:
		for _, k := range x.keys {
			if containsString(x.vals[k], s) {
				return true
			}
		}
	}
	return false
}

func (g *generator) accepts(s, v any) bool { return g.doc.validate(s, v, "") == nil }

func (g *generator) gen(s any, name string, cand any, has bool, depth int) any {
	s, err := g.doc.resolve(s)
	if err != nil {
		return cand
	}
	switch x := s.(type) {
	case bool:
		if has || !x {
			return cand
		}
		return g.str(newObject(), name, nil, false)
	case *object:
		if has && g.accepts(x, cand) {
			if containsString(cand, g.reply) {
				g.placed = true
			}
			return cand
		}
		return g.genObjectSchema(x, name, cand, has, depth)
	}
	return cand
}

func (g *generator) genObjectSchema(s *object, name string, cand any, has bool, depth int) any {
	if c, ok := s.get("const"); ok {
		return c
	}
	if e, ok := s.get("enum"); ok {
		return g.pickEnum(s, e)
	}
	if all, ok := s.get("allOf"); ok {
		return g.gen(g.mergeAll(s, all), name, cand, has, depth+1)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches, ok := s.get(key); ok {
			return g.pickBranch(s, key, branches, name, cand, has, depth)
		}
	}
	if def, ok := s.get("default"); ok && !has && g.accepts(s, def) {
		return def
	}
	switch g.chooseType(s, cand, has) {
	case "object":
		return g.obj(s, cand, depth)
	case "array":
		return g.arr(s, name, cand, has, depth)
	case "string":
		return g.str(s, name, cand, has)
	case "integer":
		return g.num(s, true)
	case "number":
		return g.num(s, false)
	case "boolean":
		return false
	}
	return nil
}

func (g *generator) pickEnum(s *object, e any) any {
	list, _ := e.([]any)
	for _, v := range list {
		if g.accepts(s, v) {
			return v
		}
	}
	if len(list) > 0 {
		return list[0]
	}
	return nil
}

// without copies an object schema less some keywords.
func without(s *object, drop ...string) *object {
	out := newObject()
	if s == nil {
		return out
	}
	for _, k := range s.keys {
		skip := false
		for _, d := range drop {
			if k == d {
				skip = true
			}
		}
		if !skip {
			out.set(k, s.vals[k])
		}
	}
	return out
}

// mergeAll folds allOf's schemas into one: members and required lists
// joined, a member both give must meet both; other keywords are kept from
// the first that gives them.
func (g *generator) mergeAll(s *object, all any) *object {
	out := without(s, "allOf")
	list, _ := all.([]any)
	for _, sub := range list {
		r, err := g.doc.resolve(sub)
		if o, ok := r.(*object); ok && err == nil {
			out = merge(out, o)
		}
	}
	return out
}

func merge(a, b *object) *object {
	out := without(a)
	for _, k := range b.keys {
		bv := b.vals[k]
		av, has := out.get(k)
		switch {
		case !has:
			out.set(k, bv)
		case k == "properties":
			ap, _ := av.(*object)
			bp, _ := bv.(*object)
			props := without(ap)
			if bp == nil {
				break
			}
			for _, pk := range bp.keys {
				if old, ok := props.get(pk); ok {
					both := newObject()
					both.set("allOf", []any{old, bp.vals[pk]})
					props.set(pk, both)
				} else {
					props.set(pk, bp.vals[pk])
				}
			}
			out.set(k, props)
		case k == "required":
			al, _ := av.([]any)
			bl, _ := bv.([]any)
			out.set(k, append(append([]any{}, al...), bl...))
		}
	}
	return out
}

// pickBranch generates from the first branch of anyOf/oneOf whose value
// the whole schema accepts.
func (g *generator) pickBranch(s *object, key string, branches any, name string, cand any, has bool, depth int) any {
	list, _ := branches.([]any)
	rest := without(s, key)
	var first any
	for i, b := range list {
		r, err := g.doc.resolve(b)
		if err != nil {
			continue
		}
		var sub any = r
		if o, ok := r.(*object); ok {
			sub = merge(rest, o)
		}
		saved := g.placed
		v := g.gen(sub, name, cand, has, depth+1)
		if g.accepts(s, v) {
			return v
		}
		g.placed = saved
		if i == 0 {
			first = v
		}
	}
	return first
}

func schemaTypes(s *object) []string {
	var types []string
	switch t := s.at("type").(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			if str, ok := e.(string); ok {
				types = append(types, str)
			}
		}
	}
	return types
}

func (g *generator) chooseType(s *object, cand any, has bool) string {
	types := schemaTypes(s)
	if len(types) == 0 {
		types = inferTypes(s)
	}
	if has {
		got := jsonType(cand)
		for _, t := range types {
			if t == got || (t == "integer" && isInteger(cand)) {
				return t
			}
		}
	}
	for _, t := range types {
		if t != "null" {
			return t
		}
	}
	if len(types) > 0 {
		return types[0]
	}
	return "string"
}

func inferTypes(s *object) []string {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := s.get(k); ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "minProperties", "maxProperties"):
		return []string{"object"}
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems"):
		return []string{"array"}
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return []string{"number"}
	}
	return []string{"string"}
}

func (g *generator) obj(s *object, cand any, depth int) any {
	out := newObject()
	co, _ := cand.(*object)
	propsV, _ := s.get("properties")
	props, _ := propsV.(*object)
	required := map[string]bool{}
	reqV, _ := s.get("required")
	reqList, _ := reqV.([]any)
	for _, r := range reqList {
		if n, ok := r.(string); ok {
			required[n] = true
		}
	}
	additional, hasAdditional := s.get("additionalProperties")
	if props != nil {
		for _, k := range props.keys {
			cv, has := co.get(k)
			if depth >= maxGenDepth && !required[k] && !has {
				continue
			}
			out.set(k, g.gen(props.vals[k], k, cv, has, depth+1))
		}
	}
	for _, r := range reqList {
		k, _ := r.(string)
		if _, done := out.get(k); done {
			continue
		}
		var sub any = true
		if hasAdditional && additional != false {
			sub = additional
		}
		cv, has := co.get(k)
		out.set(k, g.gen(sub, k, cv, has, depth+1))
	}
	// Members the bundle gave beyond the schema's, where the schema lets
	// an object have them.
	if co != nil && additional != false {
		for _, k := range co.keys {
			if _, done := out.get(k); done {
				continue
			}
			if !hasAdditional || g.accepts(additional, co.vals[k]) {
				out.set(k, co.vals[k])
			}
		}
	}
	return out
}

func (g *generator) arr(s *object, name string, cand any, has bool, depth int) any {
	prefixV, _ := s.get("prefixItems")
	prefix, _ := prefixV.([]any)
	items, hasItems := s.get("items")
	cl, _ := cand.([]any)
	n := len(cl)
	if !has || cand == nil {
		n = 1
	}
	if min, ok := numberOf(s, "minItems"); ok && float64(n) < min {
		n = int(min)
	}
	if max, ok := numberOf(s, "maxItems"); ok && float64(n) > max {
		n = int(math.Max(max, 0))
	}
	if !hasItems && len(prefix) == 0 && n > 0 && (!has || len(cl) == 0) {
		if min, ok := numberOf(s, "minItems"); !ok || min == 0 {
			n = 0 // nothing says what an item is: none is the honest value
		}
	}
	unique := s.at("uniqueItems") == true
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		var sub any = true
		switch {
		case i < len(prefix):
			sub = prefix[i]
		case hasItems:
			sub = items
		}
		var cv any
		hasCV := i < len(cl)
		if hasCV {
			cv = cl[i]
		}
		v := g.gen(sub, name, cv, hasCV, depth+1)
		if unique {
			v = distinct(out, v, i)
		}
		out = append(out, v)
	}
	return out
}

// distinct makes the i-th item of a uniqueItems array differ from those
// before it where its type allows.
func distinct(prev []any, v any, i int) any {
	dup := func(x any) bool {
		for _, p := range prev {
			if jsonEqual(p, x) {
				return true
			}
		}
		return false
	}
	if !dup(v) {
		return v
	}
	switch x := v.(type) {
	case string:
		return x + " " + strconv.Itoa(i+1)
	case json.Number:
		f, _ := x.Float64()
		return json.Number(strconv.FormatFloat(f+float64(i), 'f', -1, 64))
	}
	return v
}

var formatValues = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"date-time": "1970-01-01T00:00:00Z", "date": "1970-01-01", "time": "00:00:00Z",
		"email": "amr-stub@example.com", "idn-email": "amr-stub@example.com",
		"uri": "http://127.0.0.1/", "url": "http://127.0.0.1/", "iri": "http://127.0.0.1/",
		"uri-reference": "/", "uuid": "00000000-0000-4000-8000-000000000000", "hostname": "localhost",
		"ipv4": "127.0.0.1", "ipv6": "::1", "duration": "PT0S",
	}
})

// namedValue is the value a member's name asks for.
func (g *generator) namedValue(name string) (string, bool) {
	n := normName(name)
	switch {
	case replyNames()[n]:
		return g.reply, true
	case callNames()[n]:
		return g.fill.callID, true
	case n == "anchor":
		return g.fill.anchor, true
	case senderNames()[n]:
		return g.fill.sender, true
	case n == "participants":
		return g.fill.participants, true
	}
	return "", false
}

func (g *generator) str(s *object, name string, cand any, has bool) any {
	var options []string
	if c, ok := cand.(string); ok && has {
		options = append(options, c)
	}
	format, _ := s.at("format").(string)
	named, isNamed := g.namedValue(name)
	if isNamed && replyNames()[normName(name)] {
		g.named = true
	}
	if fv, ok := formatValues()[format]; ok {
		if strings.Contains(format, "email") && strings.Contains(g.fill.sender, "@") {
			options = append(options, g.fill.sender)
		}
		options = append(options, fv)
	}
	if isNamed {
		options = append(options, named)
	}
	if g.anywhere && !g.placed && g.reply != "" {
		options = append(options, g.reply)
	}
	options = append(options, "", g.fill.callID, g.fill.anchor)
	for _, o := range options {
		v := fitLength(s, o)
		if g.accepts(s, v) {
			if g.reply != "" && strings.Contains(v, g.reply) {
				g.placed = true
			}
			return v
		}
	}
	return fitLength(s, options[0])
}

// fitLength pads a string with "." to the schema's minLength and cuts it
// to its maxLength.
func fitLength(s *object, v string) string {
	if min, ok := numberOf(s, "minLength"); ok {
		for float64(utf8.RuneCountInString(v)) < min {
			v += "."
		}
	}
	if max, ok := numberOf(s, "maxLength"); ok && float64(utf8.RuneCountInString(v)) > max {
		r := []rune(v)
		v = string(r[:int(math.Max(max, 0))])
	}
	return v
}

func (g *generator) num(s *object, integer bool) any {
	lo, hasLo := numberOf(s, "minimum")
	loEx := false
	if ex, ok := numberOf(s, "exclusiveMinimum"); ok && (!hasLo || ex >= lo) {
		lo, hasLo, loEx = ex, true, true
	}
	hi, hasHi := numberOf(s, "maximum")
	hiEx := false
	if ex, ok := numberOf(s, "exclusiveMaximum"); ok && (!hasHi || ex <= hi) {
		hi, hasHi, hiEx = ex, true, true
	}
	v := 0.0
	switch {
	case hasLo && !loEx:
		v = lo
	case hasLo && integer:
		v = math.Floor(lo) + 1
	case hasLo && hasHi:
		v = (lo + hi) / 2
	case hasLo:
		v = lo + 1
	case hasHi && !hiEx && hi < 0:
		v = hi
	case hasHi && hiEx && hi <= 0:
		v = math.Ceil(hi) - 1
	}
	if integer {
		v = math.Ceil(v)
	}
	if m, ok := numberOf(s, "multipleOf"); ok && m > 0 {
		v = math.Ceil(v/m) * m
	}
	if integer {
		return json.Number(strconv.FormatInt(int64(v), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'f', -1, 64))
}
