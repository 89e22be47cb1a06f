package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The stub answers a json_schema request, and a tool call's arguments, with
// a value the schema accepts. It understands the part of JSON Schema that
// structured outputs use: type (one or a list), enum, const, properties,
// required, additionalProperties, items, prefixItems, min/maxItems,
// uniqueItems, min/maxLength, pattern, format (a fixed value per format),
// minimum, maximum, exclusive bounds, multipleOf, min/maxProperties, anyOf,
// oneOf, allOf, not, nullable and $ref into the same document. Keywords
// that only describe (title, description, examples, ...) are read and left
// alone; any other keyword is reported, since the value may not honour it.

// schemaDoc is a schema with the document its $refs point into.
type schemaDoc struct {
	root any
}

// describing keywords: they constrain nothing. This table and the next are
// built at their first use, not at every start of amr.
var describingKeywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"$schema": true, "$id": true, "$anchor": true, "$comment": true, "$defs": true, "definitions": true,
		"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
		"readOnly": true, "writeOnly": true, "format": true, "contentMediaType": true, "contentEncoding": true,
		"strict": true, "name": true,
	}
})

var checkedKeywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"type": true, "enum": true, "const": true, "properties": true, "required": true,
		"additionalProperties": true, "items": true, "prefixItems": true, "minItems": true, "maxItems": true,
		"uniqueItems": true, "minLength": true, "maxLength": true, "pattern": true, "minimum": true,
		"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
		"minProperties": true, "maxProperties": true, "anyOf": true, "oneOf": true, "allOf": true, "not": true,
		"$ref": true, "nullable": true,
	}
})

// unknownKeywords lists, sorted, the keywords anywhere in a schema that the
// stub neither checks nor knows to be descriptive.
func unknownKeywords(s any) []string {
	found := map[string]bool{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 64 {
			return
		}
		switch x := v.(type) {
		case *object:
			for _, k := range x.keys {
				if !describingKeywords()[k] && !checkedKeywords()[k] {
					found[k] = true
				}
				switch k {
				case "properties", "$defs", "definitions":
					if m, ok := x.vals[k].(*object); ok {
						for _, pk := range m.keys {
							walk(m.vals[pk], depth+1)
						}
					}
				case "items", "additionalProperties", "not":
					walk(x.vals[k], depth+1)
				case "anyOf", "oneOf", "allOf", "prefixItems":
					if list, ok := x.vals[k].([]any); ok {
						for _, e := range list {
							walk(e, depth+1)
						}
					}
				}
			}
		}
	}
	walk(s, 0)
	out := make([]string, 0, len(found))
	for k := range found {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// resolve follows $ref within the document ("#", "#/$defs/x", any JSON
// pointer into the root).
func (d *schemaDoc) resolve(s any) (any, error) {
	for i := 0; i < 32; i++ {
		o, ok := s.(*object)
		if !ok {
			return s, nil
		}
		ref, ok := o.get("$ref")
		if !ok {
			return s, nil
		}
		r, _ := ref.(string)
		target, err := d.pointer(r)
		if err != nil {
			return nil, err
		}
		s = target
	}
	return nil, fmt.Errorf("$ref chain too long")
}

func (d *schemaDoc) pointer(ref string) (any, error) {
	if ref == "#" {
		return d.root, nil
	}
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only references into the same schema (#/...) are followed", ref)
	}
	cur := d.root
	for _, part := range strings.Split(path, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case *object:
			v, ok := x.get(part)
			if !ok {
				return nil, fmt.Errorf("$ref %q: no %q", ref, part)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("$ref %q: no item %q", ref, part)
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("$ref %q: %q is not inside an object", ref, part)
		}
	}
	return cur, nil
}

// validate reports the first way v breaks schema s, or nil. path names
// where in the value.
func (d *schemaDoc) validate(s, v any, path string) error {
	return d.check(s, v, path, 0)
}

func (d *schemaDoc) check(s, v any, path string, depth int) error {
	if depth > 64 {
		return fmt.Errorf("%s: the schema nests too deeply", path)
	}
	s, err := d.resolve(s)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	switch x := s.(type) {
	case bool:
		if !x {
			return fmt.Errorf("%s: the schema false accepts nothing", path)
		}
		return nil
	case *object:
		return d.checkObject(x, v, path, depth)
	case nil:
		return nil
	}
	return fmt.Errorf("%s: the schema is not an object or a boolean", path)
}

func (d *schemaDoc) checkObject(s *object, v any, path string, depth int) error {
	if err := checkType(s, v, path); err != nil {
		return err
	}
	if c, ok := s.get("const"); ok && !jsonEqual(c, v) {
		return fmt.Errorf("%s: must be %s", path, jsonText(c))
	}
	if e, ok := s.get("enum"); ok {
		list, _ := e.([]any)
		found := false
		for _, x := range list {
			if jsonEqual(x, v) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s: must be one of %s", path, jsonText(e))
		}
	}
	for _, check := range []func(*object, any, string) error{checkString, checkNumber} {
		if err := check(s, v, path); err != nil {
			return err
		}
	}
	if err := d.checkArray(s, v, path, depth); err != nil {
		return err
	}
	if err := d.checkMembers(s, v, path, depth); err != nil {
		return err
	}
	return d.checkCombinators(s, v, path, depth)
}

func checkType(s *object, v any, path string) error {
	t, ok := s.get("type")
	if !ok {
		return nil
	}
	var types []string
	switch x := t.(type) {
	case string:
		types = []string{x}
	case []any:
		for _, e := range x {
			if str, ok := e.(string); ok {
				types = append(types, str)
			}
		}
	}
	if n, _ := s.get("nullable"); n == true {
		types = append(types, "null")
	}
	got := jsonType(v)
	for _, want := range types {
		if want == got || (want == "integer" && isInteger(v)) {
			return nil
		}
	}
	return fmt.Errorf("%s: must be of type %s, not %s", path, strings.Join(types, " or "), got)
}

func numberOf(s *object, key string) (float64, bool) {
	v, ok := s.get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func checkString(s *object, v any, path string) error {
	str, ok := v.(string)
	if !ok {
		return nil
	}
	n := float64(utf8.RuneCountInString(str))
	if min, ok := numberOf(s, "minLength"); ok && n < min {
		return fmt.Errorf("%s: shorter than %v characters", path, min)
	}
	if max, ok := numberOf(s, "maxLength"); ok && n > max {
		return fmt.Errorf("%s: longer than %v characters", path, max)
	}
	if p, ok := s.get("pattern"); ok {
		ps, _ := p.(string)
		re, err := regexp.Compile(ps)
		if err != nil {
			return fmt.Errorf("%s: the pattern %q cannot be checked: %v", path, ps, err)
		}
		if !re.MatchString(str) {
			return fmt.Errorf("%s: does not match %q", path, ps)
		}
	}
	return nil
}

func checkNumber(s *object, v any, path string) error {
	num, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, err := num.Float64()
	if err != nil {
		return fmt.Errorf("%s: not a number", path)
	}
	if min, ok := numberOf(s, "minimum"); ok && f < min {
		return fmt.Errorf("%s: less than %v", path, min)
	}
	if max, ok := numberOf(s, "maximum"); ok && f > max {
		return fmt.Errorf("%s: more than %v", path, max)
	}
	if min, ok := numberOf(s, "exclusiveMinimum"); ok && f <= min {
		return fmt.Errorf("%s: not more than %v", path, min)
	}
	if max, ok := numberOf(s, "exclusiveMaximum"); ok && f >= max {
		return fmt.Errorf("%s: not less than %v", path, max)
	}
	if m, ok := numberOf(s, "multipleOf"); ok && m > 0 {
		q := f / m
		if math.Abs(q-math.Round(q)) > 1e-9 {
			return fmt.Errorf("%s: not a multiple of %v", path, m)
		}
	}
	return nil
}

func (d *schemaDoc) checkArray(s *object, v any, path string, depth int) error {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	if min, ok := numberOf(s, "minItems"); ok && float64(len(list)) < min {
		return fmt.Errorf("%s: fewer than %v items", path, min)
	}
	if max, ok := numberOf(s, "maxItems"); ok && float64(len(list)) > max {
		return fmt.Errorf("%s: more than %v items", path, max)
	}
	if u, _ := s.get("uniqueItems"); u == true {
		for i := range list {
			for j := i + 1; j < len(list); j++ {
				if jsonEqual(list[i], list[j]) {
					return fmt.Errorf("%s: items %d and %d are equal", path, i, j)
				}
			}
		}
	}
	prefix, _ := s.get("prefixItems")
	pl, _ := prefix.([]any)
	items, hasItems := s.get("items")
	for i, e := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		var err error
		switch {
		case i < len(pl):
			err = d.check(pl[i], e, p, depth+1)
		case hasItems:
			err = d.check(items, e, p, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *schemaDoc) checkMembers(s *object, v any, path string, depth int) error {
	o, ok := v.(*object)
	if !ok {
		return nil
	}
	if min, ok := numberOf(s, "minProperties"); ok && float64(len(o.keys)) < min {
		return fmt.Errorf("%s: fewer than %v members", path, min)
	}
	if max, ok := numberOf(s, "maxProperties"); ok && float64(len(o.keys)) > max {
		return fmt.Errorf("%s: more than %v members", path, max)
	}
	req, _ := s.get("required")
	reqList, _ := req.([]any)
	for _, r := range reqList {
		name, _ := r.(string)
		if _, ok := o.get(name); !ok {
			return fmt.Errorf("%s: the required member %q is missing", path, name)
		}
	}
	propsV, _ := s.get("properties")
	props, _ := propsV.(*object)
	additional, hasAdditional := s.get("additionalProperties")
	for _, k := range o.keys {
		p := path + "." + k
		if ps, ok := props.get(k); ok {
			if err := d.check(ps, o.vals[k], p, depth+1); err != nil {
				return err
			}
			continue
		}
		if hasAdditional {
			if err := d.check(additional, o.vals[k], p, depth+1); err != nil {
				if additional == false {
					return fmt.Errorf("%s: no member %q is allowed", path, k)
				}
				return err
			}
		}
	}
	return nil
}

func (d *schemaDoc) checkCombinators(s *object, v any, path string, depth int) error {
	if all, ok := s.get("allOf"); ok {
		list, _ := all.([]any)
		for _, sub := range list {
			if err := d.check(sub, v, path, depth+1); err != nil {
				return err
			}
		}
	}
	if anyV, ok := s.get("anyOf"); ok {
		list, _ := anyV.([]any)
		var first error
		matched := false
		for _, sub := range list {
			err := d.check(sub, v, path, depth+1)
			if err == nil {
				matched = true
				break
			}
			if first == nil {
				first = err
			}
		}
		if !matched {
			return fmt.Errorf("%s: matches none of anyOf (%v)", path, first)
		}
	}
	if one, ok := s.get("oneOf"); ok {
		list, _ := one.([]any)
		n := 0
		for _, sub := range list {
			if d.check(sub, v, path, depth+1) == nil {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf, not exactly one", path, n)
		}
	}
	if not, ok := s.get("not"); ok {
		if d.check(not, v, path, depth+1) == nil {
			return fmt.Errorf("%s: matches the schema under not", path)
		}
	}
	return nil
}
