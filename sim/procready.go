package sim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Readiness handshakes: how a process says it has booted (ProcessSpec.Ready).
const (
	// ReadyStdout: the process prints a line "ready" on its stdout.
	ReadyStdout = "stdout"
	// ReadyFile: the process creates the file AMR_READY_FILE names.
	ReadyFile = "file"
)

// DefaultReadyTimeout bounds the wall-clock wait for a handshake.
const DefaultReadyTimeout = 30 * time.Second

// Environment of a process started with a readiness handshake.
const (
	EnvReady     = "AMR_READY"      // stdout or file: the handshake the harness waits for
	EnvReadyFile = "AMR_READY_FILE" // the file to create, with the file handshake
)

// ReadyFileName is the handshake file, in the run directory beside the
// sandbox: outside it, so making it is no write to the sandbox.
const ReadyFileName = "ready"

// readyLine reports whether a line of stdout is the handshake.
func readyLine(line []byte) bool { return string(bytes.TrimSpace(line)) == "ready" }

// watchReady copies a quiescence process's stdout to the log and signals
// the first "ready" line; the line is copied too.
func watchReady(r *os.File, w io.Writer, ready chan<- struct{}) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	signalled := false
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if !signalled && err == nil && readyLine(line) {
				signalled = true
				close(ready)
			}
			_, _ = w.Write(line)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// readyPath is where the file handshake is made.
func (d *procDriver) readyPath() string { return filepath.Join(d.workdir, ReadyFileName) }

// readyEnv is the handshake's part of the environment.
func (d *procDriver) readyEnv() []string {
	switch d.spec.Ready {
	case ReadyStdout:
		return []string{EnvReady + "=" + ReadyStdout}
	case ReadyFile:
		return []string{EnvReady + "=" + ReadyFile, EnvReadyFile + "=" + d.readyPath()}
	}
	return nil
}

// awaitReady holds the clock after an instance starts until it says it
// is ready, it ends, or the bounded wait is over; the run log records
// which. Nothing of the harness moves meanwhile: the clock, the tick's
// inputs and the tick's work all wait.
func (d *procDriver) awaitReady(p *proc) {
	if d.spec.Ready == "" {
		return
	}
	start := time.Now()
	var detail string
	switch d.waitReady(p) {
	case readyCame:
		d.lived = true
		d.stderr.note("instance %d ready after %s", d.instances, time.Since(start).Round(time.Millisecond))
		detail = fmt.Sprintf("instance %d ready", d.instances)
	case readyEnded:
		detail = fmt.Sprintf("instance %d ended before it was ready", d.instances)
	case readyTimedOut:
		detail = fmt.Sprintf("instance %d not ready within %s; the clock goes on", d.instances, d.spec.ReadyTimeout)
		d.event(ProcReady, detail, nil)
	default:
		return
	}
	d.e.log(sandbox.LogRecord{Kind: sandbox.LogReady, Detail: detail})
}

// How a wait for the handshake ended.
const (
	readyCame = iota
	readyEnded
	readyTimedOut
	readyCancelled
)

func (d *procDriver) waitReady(p *proc) int {
	timer := time.NewTimer(d.spec.ReadyTimeout)
	defer timer.Stop()
	tick := time.NewTicker(d.spec.Poll)
	defer tick.Stop()
	for {
		if d.spec.Ready == ReadyFile {
			if _, err := os.Lstat(d.readyPath()); err == nil {
				return readyCame
			}
		}
		select {
		case <-p.ready:
			return readyCame
		case <-p.done:
			return readyEnded
		case <-timer.C:
			return readyTimedOut
		case <-d.ctx.Done():
			return readyCancelled
		case held := <-d.gate.requests():
			// A model call while booting goes on: the armed crash is
			// looked for once the instance is ready.
			answer(held, true)
		case <-tick.C:
		}
	}
}
