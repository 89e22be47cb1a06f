package examples_test

import (
	"fmt"
	"strings"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
)

// A weak implementation names what must catch it: the invariants its
// defect trips and the published scenario that exercises it.
func ExampleLookup() {
	im, ok := examples.Lookup("weak-no-send")
	fmt.Println(ok, im.Kind, im.Scenario, strings.Join(im.Targets, ","))
	fmt.Println(im.Description)
	// Output:
	// true weak l0-respond L0.reply
	// drafts replies but never sends them
}

// The reference is the first entry of the registry; every other is weak,
// or costly when only a diagnostic flags it.
func ExampleAll() {
	kinds := map[string]int{}
	all := examples.All()
	for _, im := range all {
		kinds[im.ShownKind()]++
	}
	fmt.Println(all[0].Name)
	fmt.Println(kinds[examples.KindReference], "reference,", kinds[examples.KindCostly], "costly")
	// Output:
	// reference
	// 1 reference, 1 costly
}

// The reference, played on a published scenario and judged.
func ExampleReference() {
	pubs, err := scenarios.Published()
	if err != nil {
		panic(err)
	}
	for _, p := range pubs {
		if p.Name != "l1-multiturn-crash" {
			continue
		}
		impl := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
		r, err := play.Play(p.Bundle, impl, seeds.Seeds{}, play.Options{})
		if err != nil {
			panic(err)
		}
		levels := r.Verdict().Levels
		fmt.Println(strings.Join(levels[:p.Bundle.Meta.TopLevel+1], " "), len(r.Invariants()))
	}
	// Output: pass pass 0
}
