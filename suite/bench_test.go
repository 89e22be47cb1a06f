package suite_test

import (
	"testing"

	"github.com/amr-bench/amr/suite"
)

// BenchmarkPublishedSuite runs every published scenario five times against
// the reference in memory, judged by the checker: one iteration is the whole
// suite as `amr run` scores it. cpu-ms/suite divides the CPU time the process
// used (garbage collection included) by the iterations, which a busy machine
// does not distort as it does ns/op.
func BenchmarkPublishedSuite(b *testing.B) {
	pubs := published(b)
	ref := impl(b, "reference")
	b.ReportAllocs()
	cpu := cpuSeconds()
	runs := 0
	for i := 0; i < b.N; i++ {
		for _, p := range pubs {
			rep, err := suite.Run(p.Bundle, ref, suite.Config{Runs: 5})
			if err != nil {
				b.Fatal(err)
			}
			runs += len(rep.Runs)
		}
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
	if used := cpuSeconds() - cpu; used > 0 {
		b.ReportMetric(1000*used/float64(b.N), "cpu-ms/suite")
	}
}
