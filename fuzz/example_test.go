package fuzz_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
)

func builtin(name string) play.Impl {
	im, ok := examples.Lookup(name)
	if !ok {
		panic("no implementation " + name)
	}
	return play.Impl{Name: im.Name, New: im.New}
}

// A campaign against a weak implementation: runs are generated from the
// campaign seed, played and judged in order, and the campaign stops at the
// first failing run. The outcome is the same for any number of workers.
func ExampleCampaign() {
	sum, err := fuzz.Campaign(context.Background(), fuzz.Config{
		Impl: builtin("weak-no-send"), Seed: 3, Runs: 200, Workers: 2})
	if err != nil {
		panic(err)
	}
	cx := sum.Failure
	fmt.Println("outcome:", sum.Outcome())
	fmt.Println("first failing run:", cx.Index, "of", sum.Runs, "played")
	fmt.Println("violated:", strings.Join(cx.Invariants()[:2], ", "), "and", len(cx.Invariants())-2, "more")
	// Output:
	// outcome: counterexample
	// first failing run: 0 of 1 played
	// violated: L0.reply, L2.approval-latency and 3 more
}

// A shrink: the smallest bundle on which the implementation still violates
// the same invariant while the reference, as control, passes it. The
// shrunk bundle names where it came from in meta.origin.
func ExampleShrink() {
	pubs, err := scenarios.Published()
	if err != nil {
		panic(err)
	}
	var govern *scenarios.Bundle
	for _, p := range pubs {
		if p.Name == "l2-govern" {
			govern = p.Bundle.Clone()
		}
	}
	ref := builtin(examples.ReferenceName)
	s, err := fuzz.Shrink(govern, fuzz.ShrinkRequest{Impl: builtin("weak-send-without-approval"), Control: &ref})
	if err != nil {
		panic(err)
	}
	o := s.Bundle.Meta.Origin
	fmt.Println("still violates:", s.Invariant)
	fmt.Printf("events: %d -> %d\n", s.Stats.EventsBefore, s.Stats.EventsAfter)
	fmt.Println("origin:", o.Kind, o.Impl, o.Invariant)
	// Output:
	// still violates: L2.approval-binding
	// events: 21 -> 1
	// origin: shrunk weak-send-without-approval L2.approval-binding
}
