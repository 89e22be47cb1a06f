//go:build !unix

package fuzz

func cpuSeconds() float64      { return 0 }
func childCPUSeconds() float64 { return 0 }
