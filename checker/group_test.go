package checker

import (
	"sort"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

// groupBy gives the lists a map of appends gives, and no list can grow
// into its neighbour's items.
func TestGroupByMatchesAppend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := rapid.SliceOf(rapid.IntRange(0, 40)).Draw(t, "items")
		key := func(x int) string { return strconv.Itoa(x % 7) }
		keep := func(x int) bool { return x%5 != 0 }
		want := map[string][]int{}
		for _, x := range items {
			if keep(x) {
				want[key(x)] = append(want[key(x)], x)
			}
		}
		got := groupBy(items, key, keep)
		if len(got) != len(want) {
			t.Fatalf("%d keys, want %d", len(got), len(want))
		}
		for k, w := range want {
			g := got[k]
			if len(g) != len(w) || cap(g) != len(w) {
				t.Fatalf("key %s: %v (cap %d), want %v", k, g, cap(g), w)
			}
			for i := range w {
				if g[i] != w[i] {
					t.Fatalf("key %s: %v, want %v", k, g, w)
				}
			}
		}
		all := groupBy(items, key, nil)
		n := 0
		for _, l := range all {
			n += len(l)
		}
		if n != len(items) {
			t.Fatalf("without keep: %d items, want %d", n, len(items))
		}
	})
}

// tickCounts holds one count per implementation log.
func TestTickCountsHoldEveryImplLog(t *testing.T) {
	if got, want := len(tickCounts{}.n), len(sandbox.ImplLogs); got != want {
		t.Fatalf("tickCounts holds %d counts, sandbox.ImplLogs has %d logs", got, want)
	}
	for k, name := range sandbox.ImplLogs {
		if implIndex(name) != k {
			t.Fatalf("implIndex(%s) = %d, want %d", name, implIndex(name), k)
		}
	}
}

// sortStable puts items in sort.SliceStable's order, ties and all.
func TestSortStableMatchesSliceStable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type item struct{ key, at int }
		keys := rapid.SliceOf(rapid.IntRange(0, 6)).Draw(t, "keys")
		var a []item
		for i, k := range keys {
			a = append(a, item{k, i})
		}
		b := append([]item(nil), a...)
		sort.SliceStable(a, func(i, j int) bool { return a[i].key < a[j].key })
		sortStable(b, func(x, y item) bool { return x.key < y.key })
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("at %d: %v, want %v", i, b, a)
			}
		}
	})
}
