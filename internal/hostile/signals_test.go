package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syncBuffer is an output buffer the test can read while amr writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// stopBound is how long amr may take to exit after the signal: the 2 s
// every command must stop within, with room for a loaded machine.
const stopBound = 3 * time.Second

// phase is a command interrupted once it reached a phase of its work.
type phase struct {
	name  string
	args  []string
	ready string        // output that says the phase has begun ("" : a short wait)
	stdin bool          // keep stdin open (serve-impl waits on it)
	delay time.Duration // with no ready output, how long to wait (default 700ms)
	want  string        // output after the signal
	after func(t *testing.T, w *world)
}

var signals = []struct {
	name string
	sig  syscall.Signal
	code int
	says string
}{
	{"SIGINT", syscall.SIGINT, 130, "interrupted (SIGINT)"},
	{"SIGTERM", syscall.SIGTERM, 143, "terminated (SIGTERM)"},
}

// baselineKept checks that an interrupted regress --update left the
// baseline as it was.
func baselineKept(t *testing.T, w *world) {
	got, err := os.ReadFile(w.path("baseline.json"))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(base, "baseline.json"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "the baseline was rewritten by an interrupted update")
}

// absent checks that an interrupted command wrote no output at all.
func absent(rel string) func(t *testing.T, w *world) {
	return func(t *testing.T, w *world) {
		_, err := os.Stat(w.path(rel))
		require.True(t, os.IsNotExist(err), "%s was left by an interrupted command", rel)
	}
}

// rawWhole checks that an interrupted fuzz left its raw counterexample
// whole (it loads) and no half-shrunk one.
func rawWhole(t *testing.T, w *world) {
	matches, _ := filepath.Glob(w.path("cx/raw/bundle.json"))
	require.Len(t, matches, 1, "the raw counterexample is missing")
	r := w.run(t, "validate", matches[0])
	require.Equal(t, 0, r.code, r.output())
	_, err := os.Stat(w.path("cx/shrunk"))
	require.True(t, os.IsNotExist(err), "a shrunk counterexample was written by an interrupted shrink")
}

var phases = []phase{
	{name: "run in process", args: []string{"run", "--runs", "2000"}, want: ""},
	{name: "run --out", args: []string{"run", "--runs", "2000", "--out", "runout"}, after: absent("runout/report.json")},
	{name: "run a process", args: []string{"run", "b", "--runs", "50", "--impl-cmd", "{amr} serve-impl reference", "--regime", "step"}},
	{name: "fuzz campaign", args: []string{"fuzz", "--runs", "10000000", "--no-corpus"}, ready: "amr fuzz:",
		want: "no failure found so far"},
	// Both shrinks play their candidates as OS processes: in process a
	// shrink of this counterexample ends in about a tenth of a second,
	// which a signal sent once the output says it began may miss, and then
	// the command rightly finishes. As processes it takes seconds.
	{name: "fuzz shrink", args: []string{"fuzz", "--impl-cmd", "{amr} serve-impl weak-send-before-record", "--regime", "step",
		"--seed", "7", "--runs", "5000", "--shrink-time", "60s", "--no-corpus", "--out", "cx"},
		ready: "shrinking the counterexample", after: rawWhole},
	// cxrun is a fuzz counterexample's raw folder: the shrink takes its
	// failing run's seed from it, says so, and then plays candidates, which
	// the signal interrupts.
	{name: "shrink", args: []string{"shrink", "cxrun", "--impl-cmd", "{amr} serve-impl weak-send-before-record", "--regime", "step",
		"--time", "60s", "--out", "shrunk"}, ready: "run seed ", after: absent("shrunk")},
	{name: "regress", args: []string{"regress", "--runs", "20", "--baseline", "baseline.json"}},
	{name: "regress --update", args: []string{"regress", "--runs", "20", "--baseline", "baseline.json", "--update"}, after: baselineKept},
	{name: "conform", args: []string{"conform", "--runs", "1000", "--declaration", "decl.json"}},
	{name: "serve-impl", args: []string{"serve-impl", "reference", "--regime", "step"}, stdin: true},
	{name: "stub", args: []string{"stub", "b"}, ready: "stub model for"},
}

// signalCases sends each signal in each phase.
func signalCases() []hostileCase {
	var out []hostileCase
	for _, p := range phases {
		for _, s := range signals {
			p, s := p, s
			want := s.says
			if p.want != "" {
				want = p.want
			}
			out = append(out, hostileCase{
				area: "signal", name: p.name + "/" + s.name,
				input: fmt.Sprintf("%s during %s", s.name, p.name), args: p.args, exit: s.code, want: want,
				drive: func(t *testing.T, w *world) result { return interrupt(t, w, p, s.sig) },
			})
		}
	}
	return out
}

// interrupt starts the phase's command, waits for the phase, signals amr
// (amr alone, not its process group: a child must be ended by amr), and
// waits a bounded time for it to exit.
func interrupt(t *testing.T, w *world, p phase, sig syscall.Signal) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), caseDeadline)
	defer cancel()
	c, _, _ := w.command(ctx, p.args...)
	var out, errb syncBuffer
	c.Stdout, c.Stderr = &out, &errb
	if p.stdin {
		// An *os.File, so Wait does not wait on a copy from it.
		r, wr, err := os.Pipe()
		require.NoError(t, err)
		defer wr.Close()
		defer r.Close()
		c.Stdin = r
	}
	require.NoError(t, c.Start())
	waitFor(ctx, p.ready, p.delay, func() string { return out.String() + errb.String() })
	require.NoError(t, c.Process.Signal(sig))
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	stopped := true
	select {
	case err = <-done:
	case <-time.After(stopBound):
		stopped = false
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	r := result{stdout: out.String(), stderr: errb.String(), code: exitCode(err)}
	require.True(t, stopped, "amr did not stop within %s of %s: %s", stopBound, sig, r.output())
	w.noLeftovers(t, c.Process.Pid)
	if p.after != nil {
		p.after(t, w)
	}
	return r
}

// waitFor waits until the output holds ready, or for a short while when
// ready is empty; a phase that never comes is the command's failure and
// shows in the case's message.
func waitFor(ctx context.Context, ready string, delay time.Duration, output func() string) {
	if delay == 0 {
		delay = 700 * time.Millisecond
	}
	if ready == "" {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		return
	}
	for !strings.Contains(output(), ready) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
}
