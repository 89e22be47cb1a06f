package play_test

import (
	"fmt"
	"strings"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
)

// One judged play: a published scenario played once against a weak
// implementation, with the seed 'amr run --runs 1' gives its first run.
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

	r, err := play.Play(bundle, impl, play.Seeds{Run: 1}, play.Options{})
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
