//go:build !unix

package suite_test

func cpuSeconds() float64 { return 0 }
