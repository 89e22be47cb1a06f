//go:build !unix

package faults

func cpuSeconds() float64 { return 0 }
