//go:build !linux || !(amd64 || arm64)

package sim

import (
	"os/exec"
	"runtime"
	"syscall"
)

// EnvNoTrace, set to any non-empty value, makes the harness act as if the
// kernel refused tracing.
const EnvNoTrace = "AMR_NO_TRACE"

const traceSupported = false

// traceRefused: exact cuts need Linux on amd64 or arm64.
func traceRefused() string {
	return "exact cuts need Linux on amd64 or arm64, this is " + runtime.GOOS + "/" + runtime.GOARCH
}

type traceStop struct {
	exit       bool
	call       string
	path, from string
	n, line    int
	reply      chan traceVerdict
}

type traceVerdict struct {
	kill  bool
	short int
}

type tracer struct {
	stops      chan *traceStop
	leaderDone chan struct{}
	done       chan struct{}
}

func startTraced(*exec.Cmd, string, bool) (*tracer, error) { panic("sim: no tracing on this platform") }
func (t *tracer) arm()                                     {}
func (t *tracer) disarm()                                  {}
func (t *tracer) exitStatus() syscall.WaitStatus           { return 0 }
