package checker_test

import (
	"testing"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/sim/sandbox"
)

// BenchmarkCheckGenerated judges the artifacts of generated campaign runs
// of the reference, the checker's share of a campaign: one op is one run,
// judged from a parse of its own (the history oracle and coverage would
// share it).
func BenchmarkCheckGenerated(b *testing.B) {
	ref := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	const runs = 100
	ins := make([]checker.Input, 0, runs)
	for i := 0; i < runs; i++ {
		r, err := fuzz.PlayGenerated(1, i, faults.DefaultPreset, ref, 0)
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, checker.Input{Bundle: r.Bundle, Files: r.Result.Files.Files(), Log: r.Result.Log})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		in := ins[i%runs]
		in.Parsed = &sandbox.Parsed{}
		if v := checker.Check(in); len(v.Violations) > 0 {
			b.Fatalf("run %d: %v", i%runs, v.Violations[0])
		}
	}
}
