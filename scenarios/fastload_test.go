package scenarios

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A document and the Go type the loader reads it into.
type fastDoc struct {
	name string
	data []byte
	into func() any // a new pointer to decode into
}

// fastDocs are the documents the equivalence below starts from: every file
// of every published bundle, each bundle's single-JSON form, and the base
// bundle's.
func fastDocs(t testing.TB) []fastDoc {
	t.Helper()
	newOf := func(v any) func() any {
		typ := reflect.TypeOf(v)
		return func() any { return reflect.New(typ).Interface() }
	}
	byFile := map[string]func() any{
		FileBundle: newOf(struct {
			Format string   `json:"format"`
			Meta   Meta     `json:"meta"`
			Fleet  []string `json:"fleet"`
		}{}),
		FileMode: newOf(Mode{}), FileRules: newOf([]Rule{}), FileModel: newOf(Model{}),
		FileInbox: newOf(Delivery{}), FileApprovals: newOf(Approval{}), FileSignals: newOf(Signal{}), FileFaults: newOf(Fault{}),
	}
	single := func(name string, b *Bundle) fastDoc {
		data, err := b.MarshalIndent()
		require.NoError(t, err)
		return fastDoc{name: name + ".json", data: data, into: newOf(Bundle{})}
	}
	docs := []fastDoc{single("base", baseBundle())}
	pubs, err := Published()
	require.NoError(t, err)
	for _, p := range pubs {
		docs = append(docs, single(p.Name, p.Bundle))
		for name, into := range byFile {
			data, err := fs.ReadFile(published, p.Name+"/"+name)
			if err != nil {
				continue
			}
			if strings.HasSuffix(name, ".jsonl") {
				for i, line := range bytes.Split(data, []byte("\n")) {
					if len(bytes.TrimSpace(line)) > 0 {
						docs = append(docs, fastDoc{name: p.Name + "/" + name + ":" + string(rune('0'+i%10)), data: line, into: into})
					}
				}
				continue
			}
			docs = append(docs, fastDoc{name: p.Name + "/" + name, data: data, into: into})
		}
	}
	return docs
}

// decodeBoth reads a document with the loader (decodeStrict) and with the
// positional reader alone, and requires the same problems, positions and
// value.
func decodeBoth(t require.TestingT, d fastDoc, data []byte) Problems {
	fastSrc, slowSrc := &Source{pos: map[string]Pos{}}, &Source{pos: map[string]Pos{}}
	fastInto, slowInto := d.into(), d.into()
	typ := reflect.TypeOf(fastInto).Elem()
	fast := decodeStrict("f", data, 3, "x", typ, fastSrc, fastInto)
	slow := depthProblems("f", data, 3, "x")
	if slow == nil {
		slow = decodePositional("f", data, 3, "x", typ, slowSrc, slowInto)
	}
	require.Equal(t, slow, fast, "problems")
	require.Equal(t, slowSrc.pos, fastSrc.pos, "positions")
	if len(slow) == 0 {
		require.Equal(t, slowInto, fastInto, "decoded value")
	}
	return fast
}

// Every published document reads the same both ways, with nothing to
// report, and takes the one-pass reader's way.
func TestFastLoadPublishedAsPositional(t *testing.T) {
	for _, d := range fastDocs(t) {
		require.Empty(t, decodeBoth(t, d, d.data), d.name)
		src := &Source{pos: map[string]Pos{}}
		assert.True(t, fastIndex("f", d.data, 1, "", reflect.TypeOf(d.into()).Elem(), src), "%s: not read in one pass", d.name)
	}
}

// What the positional reader reports, the one-pass reader must not pass,
// and what it passes, the one-pass reader passes too, so the fast way is the
// common one and not a detour. Every document here is valid JSON.
func TestFastLoadSendsBackExactlyWhatHasAProblem(t *testing.T) {
	delivery := reflect.TypeOf(Delivery{})
	rule := reflect.TypeOf([]Rule{})
	cases := []struct {
		name    string
		typ     reflect.Type
		doc     string
		problem bool
	}{
		{"duplicate key", delivery, `{"id":"m1","id":"m2"}`, true},
		{"duplicate key in a rules condition", rule, `[{"id":"r","admit":true,"when":{"x":1,"x":2}}]`, true},
		{"unknown field", delivery, `{"id":"m1","idd":"m2"}`, true},
		{"string where a whole number is expected", delivery, `{"at":"1"}`, true},
		{"fraction where a whole number is expected", delivery, `{"at":1.5}`, true},
		{"exponent where a whole number is expected", delivery, `{"at":1e2}`, true},
		{"whole number out of range", delivery, `{"at":99999999999999999999}`, true},
		{"null where a whole number is expected", delivery, `{"at":null}`, true},
		{"number where a string is expected", delivery, `{"id":1}`, true},
		{"list where an object is expected", delivery, `[]`, true},
		{"object where a list is expected", rule, `{}`, true},
		{"wrong type in a known condition", rule, `[{"id":"r","when":{"posture":3}}]`, true},
		{"escaped key that is an unknown field", delivery, `{"\u0069dd":"m"}`, true},
		{"escaped key", delivery, `{"\u0069d":"m1"}`, false},
		{"unknown condition key", rule, `[{"id":"r","admit":true,"when":{"mood":{"a":[1,2]}}}]`, false},
		{"null list", rule, `null`, false},
		{"negative whole number", delivery, `{"at":-3}`, false},
		{"spread over lines", delivery, "{\n  \"id\" :\n \"m1\" ,\n\t\"at\": 2\r\n}\n", false},
		{"escapes in a string", delivery, `{"body":"a \"quoted\" \\ line\n"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.True(t, json.Valid([]byte(c.doc)))
			src := &Source{pos: map[string]Pos{}}
			assert.Equal(t, !c.problem, fastIndex("f", []byte(c.doc), 1, "", c.typ, src), "read in one pass")
			if !c.problem {
				d := fastDoc{data: []byte(c.doc), into: func() any { return reflect.New(c.typ).Interface() }}
				require.Empty(t, decodeBoth(t, d, d.data))
				return
			}
			slow := decodePositional("f", []byte(c.doc), 1, "", c.typ, &Source{pos: map[string]Pos{}}, reflect.New(c.typ).Interface())
			assert.NotEmpty(t, slow, "the positional reader finds nothing wrong either")
		})
	}
}

// fastEdits are the fragments the property below splices into documents:
// what makes a document wrong in each way the loader reports, and what
// leaves it right in ways the one-pass reader must follow.
var fastEdits = []string{
	`"x":1,`, `"id":"a",`, `"at":7,`, `"body":"\u00e9\n",`, `"\u0069d":"b",`, `"when":{"mood":1},`,
	`null`, `1e400`, `99999999999999999999`, `-1`, `1.5`, `0`, `"s"`, `true`, `[]`, `{}`, `[1,"a",null]`,
	`"\uD800"`, "\xff", "\"\xff\":1,", `{`, `}`, `[`, `]`, `,`, `:`, `"`, "\n", "  ", "\r\n", `\`,
	`"rules_json":"[]",`, `"subject_contains":`, `"posture":"maintenance",`, `"fleet":[],`,
}

// fastValues replace a member's value, so a wrong type lands where a type
// is checked rather than where it breaks the syntax.
var fastValues = []string{`null`, `1e400`, `99999999999999999999`, `-1`, `1.5`, `0`, `"s"`, `true`, `[]`, `{}`,
	`[1,"a",null]`, `{"x":1}`, `{"x":1,"x":2}`, `"\u00e9"`, `"\uD800"`, "\"\xff\"", `2147483648`, `-9223372036854775809`}

// replaceValue puts value in place of the scalar after the first ':' at or
// after at (the data unchanged when there is none).
func replaceValue(data []byte, at int, value string) []byte {
	i := bytes.IndexByte(data[at:], ':')
	if i < 0 {
		return data
	}
	start := at + i + 1
	end := start
	for end < len(data) && !bytes.ContainsRune([]byte(",}]\n"), rune(data[end])) {
		end++
	}
	return append(data[:start:start], append([]byte(value), data[end:]...)...)
}

// The loader and the positional reader agree on every document: the
// published ones and any edit of them, whether it breaks them or not.
func TestFastLoadAgreesWithPositionalOnEdits(t *testing.T) {
	docs := fastDocs(t)
	rapid.Check(t, func(rt *rapid.T) {
		d := docs[rapid.IntRange(0, len(docs)-1).Draw(rt, "doc")]
		data := append([]byte(nil), d.data...)
		for n := rapid.IntRange(1, 4).Draw(rt, "edits"); n > 0; n-- {
			at := rapid.IntRange(0, len(data)).Draw(rt, "at")
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 3:
				data = replaceValue(data, at, rapid.SampledFrom(fastValues).Draw(rt, "value"))
			case 0:
				end := min(len(data), at+rapid.IntRange(1, 12).Draw(rt, "span"))
				data = append(data[:at:at], data[end:]...)
			case 1:
				end := min(len(data), at+rapid.IntRange(1, 40).Draw(rt, "span"))
				data = append(data[:end:end], append(append([]byte(nil), data[at:end]...), data[end:]...)...)
			default:
				frag := rapid.SampledFrom(fastEdits).Draw(rt, "fragment")
				data = append(data[:at:at], append([]byte(frag), data[at:]...)...)
			}
		}
		decodeBoth(rt, d, data)
	})
}

// FuzzFastLoad: any bytes, read as a whole bundle, give the same problems,
// positions and bundle both ways.
func FuzzFastLoad(f *testing.F) {
	for _, d := range fastDocs(f) {
		if strings.HasSuffix(d.name, ".json") && !strings.Contains(d.name, "/") {
			f.Add(d.data)
		}
	}
	addHostile(f)
	bundle := fastDoc{into: func() any { return new(Bundle) }}
	f.Fuzz(func(t *testing.T, data []byte) { decodeBoth(t, bundle, data) })
}

// A published bundle's positions name files in the repository, both the
// positions recorded while loading and those Locate falls back to.
func TestPublishedPositionsAreRepositoryPaths(t *testing.T) {
	pubs, err := Published()
	require.NoError(t, err)
	for _, p := range pubs {
		if len(p.Bundle.Inbox) < 2 {
			continue
		}
		dir := "scenarios/" + p.Name
		assert.Equal(t, Pos{File: dir + "/" + FileInbox, Line: 2}, p.Source.Locate("inbox[1].at"), p.Name)
		assert.Equal(t, Pos{File: dir + "/" + FileBundle, Line: 1}, p.Source.Locate(""), p.Name)
		assert.Equal(t, filepath.Join(dir, FileSignals), p.Source.Locate("signals[99].at").File, p.Name)
	}
}

// jsonText draws a JSON text of any shape: odd whitespace, escapes, empty
// and nested containers, every number form, repeated keys now and then.
func jsonText(t *rapid.T, depth int) string {
	ws := func() string {
		return rapid.SampledFrom([]string{"", "", " ", "\n", "\t", "\r\n", " \n  "}).Draw(t, "ws")
	}
	str := func() string {
		return `"` + rapid.SampledFrom([]string{"", "a", "id", "at", `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, "é", `x\ny`, "\xff", `\u0069d`}).Draw(t, "str") + `"`
	}
	kind := rapid.IntRange(0, 5).Draw(t, "kind")
	if depth <= 0 {
		kind = rapid.IntRange(0, 3).Draw(t, "leaf")
	}
	switch kind {
	case 0:
		return str()
	case 1:
		return rapid.SampledFrom([]string{"0", "-0", "7", "-12", "1.5", "1e2", "1E+2", "2e-3", "99999999999999999999"}).Draw(t, "num")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "lit")
	case 3, 4:
		n := rapid.IntRange(0, 3).Draw(t, "n")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + jsonText(t, depth-1) + ws()
		}
		return "[" + ws() + strings.Join(parts, ",") + "]"
	}
	n := rapid.IntRange(0, 3).Draw(t, "n")
	parts := make([]string, n)
	for i := range parts {
		parts[i] = ws() + str() + ws() + ":" + ws() + jsonText(t, depth-1) + ws()
	}
	return "{" + ws() + strings.Join(parts, ",") + "}"
}

// On any JSON text, read as any value or as a bundle, the one pass never
// panics and ends where the positional reader ends.
func TestFastLoadAgreesOnAnyJSON(t *testing.T) {
	docs := []fastDoc{
		{name: "any", into: func() any { return new(any) }},
		{name: "bundle", into: func() any { return new(Bundle) }},
		{name: "raw list", into: func() any { return new([]json.RawMessage) }},
	}
	rapid.Check(t, func(rt *rapid.T) {
		text := jsonText(rt, 4)
		require.True(rt, json.Valid([]byte(text)), text)
		for _, d := range docs {
			decodeBoth(rt, d, []byte(text))
		}
	})
}
