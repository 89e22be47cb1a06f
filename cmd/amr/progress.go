package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/suite"
)

// runProgress writes amr run's progress on stderr: a line per run, and
// for the regimes whose ticks cost wall-clock time a line per tick, which
// on a terminal overwrites itself. Never stdout: a report, --json or not,
// stays what it is.
type runProgress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	started  time.Time
	partial  bool // a tick line is on screen without its newline
}

// slowRegime reports whether an implementation's ticks cost wall-clock
// time enough to show each: a quiescence or one-shot process.
func slowRegime(p *sim.ProcessSpec) bool {
	return p != nil && p.Regime != sim.RegimeStep
}

func (p *runProgress) report(e suite.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	run := fmt.Sprintf("%s run %d/%d", e.Scenario, e.Run, e.Runs)
	switch {
	case e.Done:
		verdict := "pass"
		switch {
		case e.Skipped:
			verdict = "skipped (in the ledger)"
		case !e.Passed:
			verdict = "FAIL"
		}
		p.line(fmt.Sprintf("%s: %s (%s)", run, verdict, time.Since(p.started).Round(10*time.Millisecond)), true)
	case e.Horizon > 0:
		p.line(fmt.Sprintf("%s: tick %d/%d", run, e.Tick, e.Horizon), false)
	default:
		p.started = time.Now()
		if !p.terminal {
			p.line(run+": started", true)
		}
	}
}

// line writes one line; a tick line on a terminal stays open, to be
// overwritten by the next.
func (p *runProgress) line(s string, final bool) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", s)
		p.partial = !final
		if final {
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintln(p.w, s)
}

// finish ends a tick line left open.
func (p *runProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.partial {
		fmt.Fprint(p.w, "\r\033[K")
		p.partial = false
	}
}
