package checker

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	prev := MinLevel
	for _, inv := range Invariants() {
		assert.False(t, seen[inv.ID], "duplicate id %s", inv.ID)
		seen[inv.ID] = true
		require.Regexp(t, `^L[0-6]\.[a-z]+(-[a-z]+)*$`, inv.ID)
		level, _ := strconv.Atoi(inv.ID[1:2])
		assert.Equal(t, level, inv.Level, inv.ID)
		assert.GreaterOrEqual(t, inv.Level, prev, "catalogue is ordered by level")
		prev = inv.Level
		assert.Contains(t, []string{KindSafety, KindLiveness, KindContract}, inv.Kind, inv.ID)
		assert.NotEmpty(t, inv.Summary, inv.ID)
		assert.Contains(t, inv.Spec, "§", inv.ID)
		got, ok := Lookup(inv.ID)
		assert.True(t, ok)
		assert.Equal(t, inv, got)
	}
	_, ok := Lookup("L9.nothing")
	assert.False(t, ok)
}

var idPattern = regexp.MustCompile(`"(L[0-6]\.[a-z-]+)"`)

// idsIn returns the invariant ids quoted in the package's files whose names
// satisfy keep.
func idsIn(t *testing.T, keep func(name string) bool) map[string]bool {
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	out := map[string]bool{}
	for _, name := range names {
		if !keep(name) {
			continue
		}
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, m := range idPattern.FindAllStringSubmatch(string(data), -1) {
			out[m[1]] = true
		}
	}
	return out
}

// Every id the checks emit is in the catalogue, and every catalogue entry is
// emitted by some check and exercised by some test.
func TestCatalogueMatchesTheChecks(t *testing.T) {
	isTest := func(n string) bool { return strings.HasSuffix(n, "_test.go") }
	emitted := idsIn(t, func(n string) bool { return !isTest(n) && n != "invariants.go" })
	tested := idsIn(t, isTest)
	var catalogued []string
	for _, inv := range Invariants() {
		catalogued = append(catalogued, inv.ID)
		assert.True(t, emitted[inv.ID], "%s is never emitted", inv.ID)
		assert.True(t, tested[inv.ID], "%s has no test", inv.ID)
	}
	for id := range emitted {
		assert.Contains(t, catalogued, id)
	}
}

// docs/invariants.md lists every invariant with its spec bullet and test.
func TestInvariantsDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "invariants.md"))
	require.NoError(t, err)
	doc := string(data)
	var missing []string
	for _, inv := range Invariants() {
		if !strings.Contains(doc, "`"+inv.ID+"`") {
			missing = append(missing, inv.ID)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "not in docs/invariants.md")
}
