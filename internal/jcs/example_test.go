package jcs_test

import (
	"fmt"

	"github.com/amr-bench/amr/internal/jcs"
)

// Two spellings of one JSON value have one canonical form.
func ExampleCanonicalize() {
	a, _ := jcs.Canonicalize([]byte(`{ "b": 1.50, "a": [true, "\u0041"] }`))
	b, _ := jcs.Canonicalize([]byte(`{"a":[true,"A"],"b":15e-1}`))
	fmt.Println(string(a))
	fmt.Println(string(a) == string(b))
	// Output:
	// {"a":[true,"A"],"b":1.5}
	// true
}

// Marshal refuses an integer a double cannot hold, which two values could
// otherwise share a canonical form through.
func ExampleMarshal() {
	_, err := jcs.Marshal(map[string]uint64{"seed": 1<<53 + 1})
	fmt.Println(err != nil)
	data, _ := jcs.Marshal(map[string]string{"seed": "9007199254740993"})
	fmt.Println(string(data))
	// Output:
	// true
	// {"seed":"9007199254740993"}
}
