package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/amr-bench/amr/sim"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM, to stop by
// itself (its context is cancelled) before amr stops it: every command
// stops within 2 s of the signal (D67).
const stopGrace = 1500 * time.Millisecond

// interrupts turns SIGINT and SIGTERM into a cancelled context for the
// running command and into an exit code that cannot be read as success:
// 128 plus the signal's number, 130 for SIGINT and 143 for SIGTERM.
type interrupts struct {
	sig atomic.Int32
	mu  sync.Mutex
	// cleanups undo what a command made that must not outlive it (a
	// temporary directory), in reverse order, when it is interrupted.
	cleanups []func()
}

var stops = &interrupts{}

// atInterrupt registers f to run if the command is interrupted, whether it
// stops by itself or is stopped; it returns a function that drops f again
// once the command no longer needs it.
func atInterrupt(f func()) (drop func()) {
	s := stops
	s.mu.Lock()
	defer s.mu.Unlock()
	i := len(s.cleanups)
	s.cleanups = append(s.cleanups, f)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if i < len(s.cleanups) {
			s.cleanups[i] = nil
		}
	}
}

// watch cancels cancel at the first signal; when the command has not
// returned stopGrace later, or a second signal comes, it stops amr
// itself. The returned function ends the watch.
func (s *interrupts) watch(cancel context.CancelFunc) (end func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-done:
			return
		}
		if n, ok := sig.(syscall.Signal); ok {
			s.sig.Store(int32(n))
		}
		cancel()
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
		case <-done:
			return
		}
		fmt.Fprintf(os.Stderr, "amr: %s: stopped without waiting for the command to finish\n", signalName(s.signal()))
		os.Exit(s.finish())
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// signal is the signal that interrupted the command, 0 when none did.
func (s *interrupts) signal() syscall.Signal { return syscall.Signal(s.sig.Load()) }

// finish leaves nothing of an interrupted command behind (processes,
// process runs' directories, registered cleanups) and returns its exit
// code. It runs once, whoever gets there first.
func (s *interrupts) finish() int {
	s.mu.Lock()
	fs := s.cleanups
	s.cleanups = nil
	s.mu.Unlock()
	sim.KillAll()
	sim.RemoveWorkdirs()
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i] != nil {
			fs[i]()
		}
	}
	return 128 + int(s.signal())
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	}
	return sig.String()
}
