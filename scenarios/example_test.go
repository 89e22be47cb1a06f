package scenarios_test

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
)

// Loading a bundle: a directory (bundle.json beside one file per schedule)
// or a single JSON file read the same. Load checks the shape only; what the
// bundle means is Validate's.
func ExampleLoad() {
	b, _, err := scenarios.Load("l0-respond")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Meta.Name, "top level", b.Meta.TopLevel, "horizon", b.Meta.Horizon)
	for _, d := range b.Inbox {
		fmt.Printf("tick %d: %s from %s: %q\n", d.At, d.ID, d.From, d.Subject)
	}
	fmt.Println("visited ticks:", len(scenarios.TimelineOf(b)))
	// Output:
	// l0-respond top level 0 horizon 30
	// tick 1: m1 from alice@example.com: "Where is my order?"
	// visited ticks: 31
}

// Validating a bundle: every problem comes back at once, located at its
// file and line, errors and warnings apart. A published bundle is clean; a
// horizon past the limit and a delivery after the horizon are not.
func ExampleValidate() {
	b, src, err := scenarios.Load("l0-respond")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("problems:", len(scenarios.Validate(b, src)))

	b.Meta.Horizon = scenarios.MaxHorizon + 1
	b.Inbox[0].At = scenarios.MaxHorizon + 2
	for _, p := range scenarios.Validate(b, src).Errors() {
		fmt.Println(p)
	}
	// Output:
	// problems: 0
	// l0-respond/bundle.json:8: meta.horizon: horizon 100001 is outside 1..100000
	// l0-respond/inbox.jsonl:1: inbox[0].at: tick 100002 is outside 0..100001 (meta.horizon)
}
