// Command bigbundle writes a generated bundle of N messages in the
// directory form (the single-JSON form of 10^5 messages is past the
// loader's bound on one file), for measuring amr run and amr check by hand:
//
//	go run ./internal/bigbundle/cmd/bigbundle 10000 /tmp/big-10000
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/amr-bench/amr/internal/bigbundle"
	"github.com/amr-bench/amr/scenarios"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: bigbundle N DIR")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "bigbundle: N must be a positive number, got %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := scenarios.SaveDir(bigbundle.Generate(n), os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "bigbundle:", err)
		os.Exit(1)
	}
}
