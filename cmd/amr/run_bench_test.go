package main

import (
	"bytes"
	"syscall"
	"testing"
)

// BenchmarkRunCommand is `amr run` as a user runs it, less the process's
// start: the command tree built, the published suite loaded and validated,
// every scenario played five times against the reference and judged by both
// oracles and the guard, the table printed. cpu-ms/op is the process's CPU
// time per command (garbage collection included), which a busy machine
// does not distort as it does ns/op.
func BenchmarkRunCommand(b *testing.B) {
	b.ReportAllocs()
	cpu := cpuSeconds()
	for i := 0; i < b.N; i++ {
		root := newRoot()
		var out, errOut bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errOut)
		root.SetArgs([]string{"run"})
		if err := root.Execute(); err != nil {
			b.Fatalf("amr run: %v\n%s", err, errOut.String())
		}
	}
	if used := cpuSeconds() - cpu; used > 0 {
		b.ReportMetric(1000*used/float64(b.N), "cpu-ms/op")
	}
}

// cpuSeconds is the CPU time the process has used, user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
