package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kinds of ProcessEvent: each is a moment a verdict of a process run must
// show, because what was judged depends on it.
const (
	ProcExit         = "exit"          // an instance ended by itself
	ProcCrash        = "crash"         // a crash fault killed the running instance
	ProcForced       = "forced"        // the clock advanced without the implementation being done
	ProcTimeout      = "timeout"       // a one-shot invocation was killed at its time limit
	ProcFailed       = "failed"        // one-shot invocations of a tick failed (exit code neither 0 nor 75)
	ProcHung         = "hung"          // killed as hung; down until a crash fault restarts it
	ProcRestart      = "restart"       // a crash fault restarted an implementation that was down
	ProcNotRestarted = "not-restarted" // the run ended with the implementation down, and why
	ProcOversize     = "oversize"      // killed for good: a file grew past the read bound
	ProcBound        = "sandbox-bound" // killed for good: the run directory grew past its bound
	ProcEscaped      = "escaped"       // processes outside the group, alive after the grace period, killed
	ProcReady        = "not-ready"     // the readiness handshake did not come within its wait
)

// ProcessEvent is one moment of a process run that its verdict shows.
type ProcessEvent struct {
	Tick     int    `json:"tick"`
	Instance int    `json:"instance,omitempty"`
	Kind     string `json:"kind"`
	Detail   string `json:"detail"`
	// Code is the exit code of an instance that exited (absent when a
	// signal ended it).
	Code *int `json:"code,omitempty"`
}

// ProcessFacts are what the processes of a run did: every instance that
// ended by itself and how, every kill, forced advance and hang, and the
// tail of the process's stderr. A verdict carries them, so a failure that
// followed from a process stopping is never read as the mechanism's.
type ProcessFacts struct {
	Regime    string         `json:"regime"`
	Instances int            `json:"instances"`
	Events    []ProcessEvent `json:"events"`
	// Hung is set when the implementation was killed as hung at any
	// point of the run: such a run never passes.
	Hung bool `json:"hung"`
	// Down says why the implementation was not running when the run
	// ended (empty when it was, or when it ended by itself).
	Down string `json:"down,omitempty"`
	// Cut is how the run landed its crashes after k writes (D105):
	// "trace", or "watch: " and why it could not trace; empty when it had
	// none.
	Cut string `json:"cut,omitempty"`
	// StderrTail is the end of stderr.log: its last lines, at most
	// stderrTailBytes.
	StderrTail string `json:"stderr_tail"`
}

// Count returns how many events of a kind the run had.
func (f *ProcessFacts) Count(kind string) int {
	n := 0
	for _, e := range f.Events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// Exited reports whether an instance ended by itself during the run.
func (f *ProcessFacts) Exited() bool { return f.Count(ProcExit) > 0 }

// KilledForGood reports whether the implementation was killed by the
// harness for a reason of its own (hung, a file or the run directory past
// its bound), not by a crash fault.
func (f *ProcessFacts) KilledForGood() bool {
	return f.Hung || f.Count(ProcOversize) > 0 || f.Count(ProcBound) > 0
}

// Outcome is the run's process outcome: "ok", or the first of "hung",
// "oversize", "sandbox-bound" and "exited" that the run had.
func (f *ProcessFacts) Outcome() string {
	switch {
	case f == nil:
		return ""
	case f.Hung:
		return ProcHung
	case f.Count(ProcOversize) > 0:
		return ProcOversize
	case f.Count(ProcBound) > 0:
		return ProcBound
	case f.Exited():
		return "exited"
	}
	return "ok"
}

// NotStartedError is a process run that never got going: the command
// could not be started, or its first instance ended by itself before it
// showed any sign of working. There is nothing to judge, and no level
// verdict: it is the harness's outcome, not the implementation's failure.
type NotStartedError struct {
	Reason string
	// StderrTail is the end of what the process wrote to stderr.
	StderrTail string
	// Ran is set when a process ran at all (it was not the start that
	// failed).
	Ran bool
}

func (e *NotStartedError) Error() string {
	msg := "the implementation did not start: " + e.Reason
	if e.StderrTail != "" {
		msg += "\n  its stderr ended with:\n" + indent(e.StderrTail, "    ")
	} else if e.Ran {
		msg += " (it wrote nothing to stderr)"
	}
	return msg
}

// stderrTailLines and stderrTailBytes bound the stderr tail a verdict
// carries.
const (
	stderrTailLines = 20
	stderrTailBytes = 2048
)

// tailOf returns the last lines of a log file, bounded, without the
// harness's own lines (the restarts they mark are events of their own).
func tailOf(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return tail([]byte(withoutNotes(string(data))))
}

func tail(data []byte) string {
	data = bytes.TrimRight(data, "\n")
	if len(data) > stderrTailBytes {
		data = data[len(data)-stderrTailBytes:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > stderrTailLines {
		lines = lines[len(lines)-stderrTailLines:]
	}
	return strings.Join(lines, "\n")
}

// withoutNotes drops the harness's own lines from a log tail.
func withoutNotes(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "[amr: ") && l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(s, "\n", "\n"+by)
}

// event records a moment of the run for its verdict.
func (d *procDriver) event(kind, detail string, code *int) {
	d.facts.Events = append(d.facts.Events, ProcessEvent{Tick: d.e.tick, Instance: d.instances, Kind: kind, Detail: detail, Code: code})
}

// notStarted gives up on a run whose process never got going; p is its
// last instance, when one ran, whose stderr is read to its end first.
func (d *procDriver) notStarted(reason string, p *proc) {
	if d.failedStart != nil {
		return
	}
	if p != nil {
		p.drained(200 * time.Millisecond)
	}
	d.failedStart = &NotStartedError{Reason: reason, StderrTail: tailOf(filepath.Join(d.workdir, StderrLog)), Ran: p != nil}
}

// finishFacts closes the facts when the run ends: an implementation still
// down says why it was not restarted.
func (d *procDriver) finishFacts() *ProcessFacts {
	switch {
	case d.gone:
		d.event(ProcNotRestarted, fmt.Sprintf("killed for good at tick %d (%s): a crash fault does not bring it back", d.downAt, d.goneWhy), nil)
	case d.hung:
		d.event(ProcNotRestarted, fmt.Sprintf("killed as hung at tick %d, and no crash fault came after it to restart it", d.downAt), nil)
	}
	f := d.facts
	f.Regime, f.Instances, f.Hung = d.spec.Regime, d.instances, d.everHung
	if d.gone {
		f.Down = d.goneWhy
	} else if d.hung {
		f.Down = ProcHung
	}
	f.StderrTail = tailOf(filepath.Join(d.workdir, StderrLog))
	if f.Events == nil {
		f.Events = []ProcessEvent{}
	}
	return &f
}
