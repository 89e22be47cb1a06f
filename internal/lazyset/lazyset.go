// Package lazyset owns sets of names built at their first use. A package
// table built at init is paid by every start of amr, and most starts (an
// implementation under test among them) never read most tables.
package lazyset

import "sync"

// Of returns the set of names, built the first time it is called; the map
// is shared by every caller and must not be modified.
func Of(names ...string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	})
}
