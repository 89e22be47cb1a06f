package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func sampleMutants(t *testing.T) []mutant {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sample.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sample.go")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := listMutants([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// Every operator reaches the sample: conditions, answers, constants and
// phases, in source order, inside function literals too.
func TestOperatorsListEveryKindOfMutant(t *testing.T) {
	var ops []string
	for _, m := range sampleMutants(t) {
		ops = append(ops, m.op)
	}
	want := []string{
		"4->5", "4->3", // const attempts
		"drop phase p.a", "drop phase p.b", "swap phases p.a,p.b",
		"negate", "&&->||", ">->>=", "1->2", "1->0", // the if
		"return true->false",
		"0->1", "0->-1", // case 0
		"return false->true",
		"return negated", "==->!=",
		"negate", "<-><=", "2->3", "2->1", // the if of a literal
		"return false->true", "return true->false", // the literal's own answers
	}
	if !slices.Equal(ops, want) {
		t.Fatalf("operators:\n got %q\nwant %q", ops, want)
	}
}

// Each mutant's source parses and differs from the original, and the
// listing leaves the parsed file as it was (every undo restores).
func TestEveryMutantIsItsOwnValidSource(t *testing.T) {
	ms := sampleMutants(t)
	seen := map[string]string{}
	for _, m := range ms {
		if _, err := parser.ParseFile(token.NewFileSet(), "m.go", m.src, 0); err != nil {
			t.Errorf("%s does not parse: %v", m, err)
		}
		if prev, dup := seen[string(m.src)]; dup {
			t.Errorf("%s makes the same source as %s", m, prev)
		}
		seen[string(m.src)] = m.String()
	}
	again := sampleMutants(t)
	for i := range ms {
		if !bytes.Equal(ms[i].src, again[i].src) {
			t.Errorf("%s: a second listing makes other source", ms[i])
		}
	}
}

func TestJudgedFilesKeyTheCache(t *testing.T) {
	for name, want := range map[string]bool{
		"tools/mutate/main.go":             false,
		"tools/mutate/judge/main.go":       true,
		"docs/fuzz.md":                     false,
		"examples/plan.go":                 true,
		"scenarios/l0-respond/bundle.json": true,
		"examples/plan_test.go":            false,
		"faults/testdata/x.json":           false,
	} {
		if got := judgedFile(name); got != want {
			t.Errorf("judgedFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSurvivorsAreToldApartFromTheReference(t *testing.T) {
	base := verdict{Outcome: "survived", Digest: "d0", Unattributed: 5}
	cases := []struct {
		v    verdict
		want string
	}{
		{verdict{Outcome: "survived", Digest: "d0", Unattributed: 5}, "same"},
		{verdict{Outcome: "survived", Digest: "d1", Unattributed: 5}, "survived"},
		{verdict{Outcome: "survived", Digest: "d1", Unattributed: 6}, "costly"},
		{verdict{Outcome: "killed", Digest: "d1", Unattributed: 9}, "killed"},
	}
	for _, c := range cases {
		if got := classify(c.v, base).Outcome; got != c.want {
			t.Errorf("%+v: %s, want %s", c.v, got, c.want)
		}
	}
}
