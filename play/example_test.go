package play_test

import (
	"fmt"
	"strings"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
)

// One judged play: a published scenario played once against a weak
// implementation, with no seed given: it plays scored run 1 of the run seed
// the bundle's name gives, as 'amr run --runs 1' does.
// Both oracles judge the artifacts; the guard compares their answers.
func ExamplePlay() {
	pubs, err := scenarios.Published()
	if err != nil {
		panic(err)
	}
	var bundle *scenarios.Bundle
	for _, p := range pubs {
		if p.Name == "l0-respond" {
			bundle = p.Bundle
		}
	}
	im, _ := examples.Lookup("weak-no-send")
	impl := play.Impl{Name: im.Name, New: im.New}

	r, err := play.Play(bundle, impl, seeds.Seeds{}, play.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("oracles agree:", r.Judgement.Guard.Agree)
	levels := r.Verdict().Levels
	fmt.Println("levels:", strings.Join(levels[:bundle.Meta.TopLevel+1], " "))
	fmt.Println("violated:", strings.Join(r.Invariants(), ", "))
	// Output:
	// oracles agree: true
	// levels: fail
	// violated: L0.reply
}
