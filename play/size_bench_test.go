package play_test

import (
	"fmt"
	"testing"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/bigbundle"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
)

// The cost of one run against its size: the benchmarks play and judge the
// generated bundles of every size up to 10^4 messages (10^5 is measured
// with amr run and amr check on bigbundle's output: see docs/performance.md).
// A linear harness shows ns/op growing tenfold per row. The *Size
// benchmarks play the spread shape (two messages a tick), whose snapshot
// versions the implementation writes grow with the square of the run; the
// *Burst ones the burst shape (a fixed number of ticks), where everything
// the implementation writes grows with the run.
var benchSizes = []int{10, 100, 1_000, 10_000}

// BenchmarkPlaySize plays and judges one run of the reference.
func BenchmarkPlaySize(b *testing.B) { benchPlay(b, bigbundle.Generate) }

// BenchmarkPlayBurst is BenchmarkPlaySize on the burst shape.
func BenchmarkPlayBurst(b *testing.B) { benchPlay(b, bigbundle.GenerateBurst) }

func benchPlay(b *testing.B, generate func(int) *scenarios.Bundle) {
	for _, n := range benchSizes {
		bundle := generate(n)
		b.Run(fmt.Sprintf("msgs=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := play.Play(bundle, builtin(b, "reference"), seeds.Seeds{}, play.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if r.Failed() || r.Invalid() {
					b.Fatalf("the reference fails its own bundle: %v", r.Invariants())
				}
			}
		})
	}
}

// BenchmarkRunSize plays one run of the reference on the engine alone, as
// amr run does before it judges: the implementation's and the engine's
// share of BenchmarkPlaySize.
func BenchmarkRunSize(b *testing.B) { benchRun(b, bigbundle.Generate) }

// BenchmarkRunBurst is BenchmarkRunSize on the burst shape.
func BenchmarkRunBurst(b *testing.B) { benchRun(b, bigbundle.GenerateBurst) }

func benchRun(b *testing.B, generate func(int) *scenarios.Bundle) {
	for _, n := range benchSizes {
		bundle := generate(n)
		impl := builtin(b, "reference")
		b.Run(fmt.Sprintf("msgs=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := sim.Run(bundle, impl.New, sim.Options{Seed: 1, Impl: impl.Name}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJudgeSize judges one recorded run, with and without its run log,
// as amr check does. Each size plays its run only when one of its rows is
// selected, so -bench 'JudgeSize/msgs=1000/' does not pay for 10^4.
func BenchmarkJudgeSize(b *testing.B) { benchJudge(b, bigbundle.Generate) }

// BenchmarkJudgeBurst is BenchmarkJudgeSize on the burst shape.
func BenchmarkJudgeBurst(b *testing.B) { benchJudge(b, bigbundle.GenerateBurst) }

func benchJudge(b *testing.B, generate func(int) *scenarios.Bundle) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("msgs=%d", n), func(b *testing.B) {
			bundle := generate(n)
			impl := builtin(b, "reference")
			res, err := sim.Run(bundle, impl.New, sim.Options{Seed: 1, Impl: impl.Name})
			if err != nil {
				b.Fatal(err)
			}
			files := res.Files.Files()
			b.Run("log", func(b *testing.B) {
				for b.Loop() {
					play.Judge(bundle, files, res.Log)
				}
			})
			b.Run("nolog", func(b *testing.B) {
				for b.Loop() {
					checker.Check(checker.Input{Bundle: bundle, Files: files})
				}
			})
		})
	}
}
