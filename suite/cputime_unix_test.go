//go:build unix

package suite_test

import "syscall"

// cpuSeconds is the CPU time the process has used, user and system, so the
// suite's cost can be read on a busy machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
