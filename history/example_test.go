package history_test

import (
	"fmt"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
)

// The history oracle on one run: the engine plays l0-respond against an
// implementation that sends a draft id it never declared. Compile turns the
// sandbox and the run log into one ordered history of operations (here the
// implementation's), and Check judges it with invariants of its own,
// independent of the level checker: the send has no declared draft and no
// approval behind it, and since that send is no reply of the work item, the
// resolution and state.json that call it completed contradict the history.
func ExampleCompile() {
	pubs, err := scenarios.Published()
	if err != nil {
		panic(err)
	}
	var b *scenarios.Bundle
	for _, p := range pubs {
		if p.Name == "l0-respond" {
			b = p.Bundle
		}
	}
	im, _ := examples.Lookup("weak-undeclared-send")
	res, err := sim.Run(b, im.New, sim.Options{Seed: 1, Impl: im.Name})
	if err != nil {
		panic(err)
	}

	h := history.Compile(history.Input{Bundle: b, Files: res.Files.Files(), Log: res.Log})
	fmt.Println("ordering:", h.Ordering)
	for _, op := range h.Ops {
		if op.Actor == history.ActorImpl {
			fmt.Println(op.Tick, op.Type, op.Src())
		}
	}
	v := history.Check(h)
	for _, x := range v.Violations {
		fmt.Println(x.Invariant, x.Src)
	}
	// Output:
	// ordering: run-log
	// 1 admit audit.jsonl:1
	// 1 claim audit.jsonl:2
	// 1 draft drafts.jsonl:1
	// 2 send outbox.jsonl:1
	// 2 resolve audit.jsonl:4
	// 30 state state.json:1
	// H2.orphan-effect [outbox.jsonl:1]
	// H5.unauthorized-effect [outbox.jsonl:1]
	// H7.claim-contradiction [audit.jsonl:4]
	// H7.claim-contradiction [state.json:1]
}
