package scenarios_test

import (
	"fmt"

	"github.com/amr-bench/amr/scenarios"
)

// A bundle's hash is taken over its canonical bytes, so the directory form
// and the single-JSON form of one bundle have one hash, and so does any
// reformatting of either (rules.json aside: its bytes are what the
// implementation is given).
func ExampleBundle_Hash() {
	b, _, err := scenarios.Load("l0-respond")
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := b.Hash()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h)

	c := b.Clone()
	c.Meta.Horizon++
	h2, _ := c.Hash()
	fmt.Println(h2 == h)
	// Output:
	// sha256:67dcfd2d0826069ca2f5ce8663dd87ef2969341f9ac32da79e306f5ce74d401f
	// false
}
