// Command bigbundle writes a generated bundle of N messages in the
// directory form (the single-JSON form of 10^5 messages is past the
// loader's bound on one file), for measuring amr run and amr check by hand:
//
//	go run ./internal/bigbundle/cmd/bigbundle 10000 /tmp/big-10000
//	go run ./internal/bigbundle/cmd/bigbundle -burst 10000 /tmp/burst-10000
//
// Without -burst the messages arrive two a tick (bigbundle.Generate); with
// it over a fixed number of ticks (bigbundle.GenerateBurst).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/amr-bench/amr/internal/bigbundle"
	"github.com/amr-bench/amr/scenarios"
)

func main() {
	burst := flag.Bool("burst", false, fmt.Sprintf("arrivals over %d ticks instead of two a tick", bigbundle.BurstTicks))
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: bigbundle [-burst] N DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	n, err := strconv.Atoi(flag.Arg(0))
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "bigbundle: N must be a positive number, got %q\n", flag.Arg(0))
		os.Exit(2)
	}
	generate := bigbundle.Generate
	if *burst {
		generate = bigbundle.GenerateBurst
	}
	if err := scenarios.SaveDir(generate(n), flag.Arg(1)); err != nil {
		fmt.Fprintln(os.Stderr, "bigbundle:", err)
		os.Exit(1)
	}
}
