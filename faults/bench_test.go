package faults

import (
	"testing"

	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/seeds"
)

// BenchmarkGenerate draws a profile and a bundle on the default preset.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		seed := seeds.Run(1, i)
		p, err := DrawProfile(rng.Stream(seed, "profile"), DefaultPreset)
		if err != nil {
			b.Fatal(err)
		}
		Generate(rng.Stream(seed, "bundle"), p)
	}
}
