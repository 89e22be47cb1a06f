package checker

import "slices"

// groupBy lists the items that keep holds for by key, each key's items in
// their order in items. A run's indexes have many keys of one or two items
// each: the lists are cut from one array, at their exact size, instead of
// grown one append at a time.
func groupBy[T any](items []T, key func(T) string, keep func(T) bool) map[string][]T {
	count := make(map[string]int, len(items))
	n := 0
	for _, x := range items {
		if keep == nil || keep(x) {
			count[key(x)]++
			n++
		}
	}
	out := make(map[string][]T, len(count))
	if n == 0 {
		return out
	}
	all := make([]T, 0, n)
	for _, x := range items {
		if keep != nil && !keep(x) {
			continue
		}
		k := key(x)
		l, ok := out[k]
		if !ok {
			// The key's room: its count, from the end of what is taken.
			c := count[k]
			l = all[len(all) : len(all) : len(all)+c]
			all = all[:len(all)+c]
		}
		out[k] = append(l, x)
	}
	return out
}

// sortStable sorts s stably by less, a strict weak order. The stable order
// is the only one, so it is sort.SliceStable's, without its reflection and
// its closure over indexes.
func sortStable[T any](s []T, less func(a, b T) bool) {
	slices.SortStableFunc(s, func(a, b T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
}
