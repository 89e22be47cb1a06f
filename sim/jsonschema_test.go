package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func mustJSON(t require.TestingT, s string) any {
	v, err := parseJSON([]byte(s))
	require.NoError(t, err, s)
	return v
}

func TestSchemaValidatorBothWays(t *testing.T) {
	for _, c := range []struct {
		schema, ok, bad, why string
	}{
		{`{"type":"string","minLength":2,"maxLength":3}`, `"ab"`, `"a"`, "shorter"},
		{`{"type":"string","pattern":"^ORD-[0-9]+$"}`, `"ORD-12"`, `"ord-12"`, "does not match"},
		{`{"type":"integer","minimum":1,"maximum":5}`, `3`, `6`, "more than"},
		{`{"type":"integer"}`, `3.0`, `3.5`, "type integer"},
		{`{"type":"number","exclusiveMinimum":0,"multipleOf":0.5}`, `1.5`, `0`, "not more than"},
		{`{"type":["string","null"]}`, `null`, `1`, "type string or null"},
		{`{"type":"string","nullable":true}`, `null`, `true`, "type"},
		{`{"enum":["a",1,null]}`, `1`, `"b"`, "one of"},
		{`{"const":{"a":[1]}}`, `{"a":[1.0]}`, `{"a":[2]}`, "must be"},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			`{"a":"x"}`, `{"a":"x","b":1}`, `no member "b"`},
		{`{"type":"object","required":["a"]}`, `{"a":null}`, `{}`, `"a" is missing`},
		{`{"type":"object","additionalProperties":{"type":"integer"}}`, `{"x":1}`, `{"x":"1"}`, "type integer"},
		{`{"type":"object","minProperties":1,"maxProperties":1}`, `{"x":1}`, `{}`, "fewer than"},
		{`{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}`, `["a"]`, `[]`, "fewer than"},
		{`{"type":"array","uniqueItems":true}`, `[1,2]`, `[1,1]`, "equal"},
		{`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a",1]`, `[1,"a"]`, "type string"},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1`, `true`, "none of anyOf"},
		{`{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `1.5`, `1`, "2 of oneOf"},
		{`{"allOf":[{"type":"integer"},{"minimum":3}]}`, `3`, `2`, "less than"},
		{`{"not":{"type":"null"}}`, `0`, `null`, "under not"},
		{`{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/s"}}}`, `{"a":"x"}`, `{"a":1}`, "type string"},
		{`{"type":"object","properties":{"next":{"$ref":"#"}}}`, `{"next":{"next":{}}}`, `{"next":{"next":1}}`, "type object"},
		{`false`, ``, `1`, "accepts nothing"},
	} {
		t.Run(c.schema, func(t *testing.T) {
			doc := &schemaDoc{root: mustJSON(t, c.schema)}
			if c.ok != "" {
				assert.NoError(t, doc.validate(doc.root, mustJSON(t, c.ok), "$"))
			}
			err := doc.validate(doc.root, mustJSON(t, c.bad), "$")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.why)
		})
	}
}

func TestGeneratedValuesFollowTheMapping(t *testing.T) {
	f := fill{anchor: "ORD-1", callID: "call-0007", sender: "carol@example.com", participants: "carol@example.com"}
	reply := "Order ORD-1 ships."
	for _, c := range []struct {
		name, schema, want string
	}{
		{"named members", `{"type":"object","properties":{"text":{"type":"string"},"call_id":{"type":"string"},"anchor":{"type":"string"},"to":{"type":"string"},"ok":{"type":"boolean"},"n":{"type":"integer","minimum":2}},"required":["text"]}`,
			`{"text":"Order ORD-1 ships.","call_id":"call-0007","anchor":"ORD-1","to":"carol@example.com","ok":false,"n":2}`},
		{"first free string takes the reply", `{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"note":{"type":"string"},"extra":{"type":"string"}}}`,
			`{"verdict":"approve","note":"Order ORD-1 ships.","extra":""}`},
		{"a bare string schema", `{"type":"string"}`, `"Order ORD-1 ships."`},
		{"default and const", `{"type":"object","properties":{"lang":{"type":"string","default":"en"},"v":{"const":2}}}`,
			`{"lang":"en","v":2}`},
		{"formats", `{"type":"object","properties":{"email":{"type":"string","format":"email"},"when":{"type":"string","format":"date-time"}}}`,
			`{"email":"carol@example.com","when":"1970-01-01T00:00:00Z"}`},
		{"lengths", `{"type":"object","properties":{"reply":{"type":"string","maxLength":5},"code":{"type":"string","minLength":3}}}`,
			`{"reply":"Order","code":"..."}`},
		{"pattern met by a value at hand", `{"type":"object","properties":{"ref":{"type":"string","pattern":"^ORD-"}}}`,
			`{"ref":"ORD-1"}`},
		{"arrays", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["late","lost"]}},"ids":{"type":"array","items":{"type":"integer"},"minItems":2,"uniqueItems":true}}}`,
			`{"tags":["late"],"ids":[0,1]}`},
		{"numbers in bounds", `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0,"maximum":1},"b":{"type":"integer","maximum":-3},"c":{"type":"integer","minimum":1,"multipleOf":5}}}`,
			`{"a":0.5,"b":-3,"c":5}`},
		{"nullable union picks the other type", `{"type":"object","properties":{"reply":{"type":["null","string"]}}}`,
			`{"reply":"Order ORD-1 ships."}`},
		{"anyOf takes the first branch that works", `{"anyOf":[{"type":"integer","minimum":5,"maximum":1},{"type":"object","properties":{"reply":{"type":"string"}}}]}`,
			`{"reply":"Order ORD-1 ships."}`},
		{"allOf merges", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}]}`,
			`{"a":"Order ORD-1 ships.","b":0}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := &schemaDoc{root: mustJSON(t, c.schema)}
			v := generate(doc, doc.root, reply, f, nil, false)
			assert.NoError(t, doc.validate(doc.root, v, "$"))
			assert.JSONEq(t, c.want, jsonText(v))
		})
	}
}

func TestGeneratedValuesStopAtRecursion(t *testing.T) {
	doc := &schemaDoc{root: mustJSON(t, `{"$defs":{"node":{"type":"object","properties":{"reply":{"type":"string"},"child":{"$ref":"#/$defs/node"}},"required":["reply"]}},"$ref":"#/$defs/node"}`)}
	v := generate(doc, doc.root, "r", fill{}, nil, false)
	require.NoError(t, doc.validate(doc.root, v, "$"))
	depth := 0
	for o, ok := v.(*object); ok; o, ok = o.at("child").(*object) {
		depth++
	}
	assert.Equal(t, maxGenDepth+1, depth, "optional members stop at the depth bound")
}

func TestGeneratedValuesKeepWhatTheBundleGives(t *testing.T) {
	schema := `{"type":"object","properties":{"verdict":{"enum":["approve","reject"]},"reason":{"type":"string"},"score":{"type":"integer","minimum":1}},"required":["verdict","reason","score"],"additionalProperties":false}`
	doc := &schemaDoc{root: mustJSON(t, schema)}
	// The bundle's verdict is kept; its score breaks the schema and is
	// rebuilt; its extra member is dropped because the schema forbids it.
	cand := mustJSON(t, `{"verdict":"reject","score":0,"note":"x"}`)
	v := generate(doc, doc.root, "looks wrong", fill{}, cand, true)
	assert.JSONEq(t, `{"verdict":"reject","reason":"looks wrong","score":1}`, jsonText(v))
}

// A schema drawn from the part of JSON Schema the generator knows always
// gets a value it accepts.
func TestGeneratedValuesAreAccepted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		schema := drawSchema(t, 0)
		doc := &schemaDoc{root: mustJSON(t, schema)}
		v := generate(doc, doc.root, rapid.StringMatching(`[a-zA-Z .]{0,12}`).Draw(t, "reply"),
			fill{anchor: "A-1", callID: "call-0001", sender: "s@example.com"}, nil, false)
		if err := doc.validate(doc.root, v, "$"); err != nil {
			t.Fatalf("schema %s\nvalue %s\n%v", schema, jsonText(v), err)
		}
		// The same inputs give the same bytes.
		again := generate(doc, doc.root, "", fill{}, nil, false)
		if jsonText(again) != jsonText(generate(doc, doc.root, "", fill{}, nil, false)) {
			t.Fatal("not deterministic")
		}
	})
}

func drawSchema(t *rapid.T, depth int) string {
	kinds := []string{"string", "integer", "number", "boolean", "null", "enum", "nullable"}
	if depth < 3 {
		kinds = append(kinds, "object", "array", "anyOf")
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "string":
		min := rapid.IntRange(0, 4).Draw(t, "minLength")
		max := min + rapid.IntRange(0, 20).Draw(t, "extra")
		format := rapid.SampledFrom([]string{"", "email", "date-time", "uuid"}).Draw(t, "format")
		s := fmt.Sprintf(`{"type":"string","minLength":%d,"maxLength":%d`, min, max)
		if format != "" {
			s += fmt.Sprintf(`,"format":%q`, format)
		}
		return s + "}"
	case "integer":
		lo := rapid.IntRange(-50, 50).Draw(t, "lo")
		hi := lo + rapid.IntRange(0, 30).Draw(t, "span")
		return fmt.Sprintf(`{"type":"integer","minimum":%d,"maximum":%d}`, lo, hi)
	case "number":
		lo := rapid.IntRange(-50, 50).Draw(t, "lo")
		return fmt.Sprintf(`{"type":"number","exclusiveMinimum":%d,"exclusiveMaximum":%d}`, lo, lo+rapid.IntRange(1, 9).Draw(t, "span"))
	case "boolean":
		return `{"type":"boolean"}`
	case "null":
		return `{"type":"null"}`
	case "enum":
		return `{"enum":["x","y",3]}`
	case "nullable":
		return `{"type":["null","string"]}`
	case "array":
		min := rapid.IntRange(0, 3).Draw(t, "minItems")
		return fmt.Sprintf(`{"type":"array","items":%s,"minItems":%d,"maxItems":%d}`, drawSchema(t, depth+1), min, min+2)
	case "anyOf":
		return fmt.Sprintf(`{"anyOf":[%s,%s]}`, drawSchema(t, depth+1), drawSchema(t, depth+1))
	}
	n := rapid.IntRange(0, 4).Draw(t, "members")
	var props, req []string
	for i := 0; i < n; i++ {
		name := rapid.SampledFrom([]string{"reply", "text", "call_id", "anchor", "to", "note", "count", "flag"}).Draw(t, "name")
		name = fmt.Sprintf("%s%d", name, i)
		if i == 0 {
			name = strings.TrimSuffix(name, "0")
		}
		props = append(props, fmt.Sprintf("%q:%s", name, drawSchema(t, depth+1)))
		if rapid.Bool().Draw(t, "required") {
			req = append(req, fmt.Sprintf("%q", name))
		}
	}
	return fmt.Sprintf(`{"type":"object","properties":{%s},"required":[%s],"additionalProperties":false}`,
		strings.Join(props, ","), strings.Join(req, ","))
}

func TestUnknownKeywordsAreNamed(t *testing.T) {
	s := mustJSON(t, `{"type":"object","title":"t","properties":{"a":{"type":"string","if":{},"then":{}}},"propertyNames":{"pattern":"x"}}`)
	assert.Equal(t, []string{"if", "propertyNames", "then"}, unknownKeywords(s))
}
