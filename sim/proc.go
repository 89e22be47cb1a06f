package sim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var errNotRegular = errors.New("not a regular file")

// killWait bounds how long a killed process may take to be reaped.
const killWait = 5 * time.Second

// proc is one running instance of a process implementation, the leader of
// a process group of its own.
type proc struct {
	cmd   *exec.Cmd
	pgid  int
	stdin *os.File      // step regime: the harness's end of its stdin
	idle  chan int      // step regime: the N of each "idle N" line; closed at end of stdout
	quit  chan struct{} // closed once the instance is killed or gone
	done  chan struct{} // closed once the process has ended (it is reaped by kill)
	// errDone is closed once everything the process wrote to stderr is in
	// the log.
	errDone chan struct{}
	// ready is closed at the first "ready" line on stdout, with the
	// stdout handshake; nil (never ready) otherwise.
	ready chan struct{}
	once  sync.Once
	// state is how the process ended, set by kill.
	state *os.ProcessState
	// tr follows a traced instance (exact cuts, D105); its thread waits
	// for the process, which os/exec then never does.
	tr *tracer
}

// startProc starts argv in dir with env. stdout and stderr go to the
// capped writers, except that in the step regime stdout is the protocol:
// "idle N" lines are answers, other lines go to the writer.
// With readyOut, a line "ready" on stdout is the readiness handshake.
// A traced instance (exact cuts) that starts armed stops at its first
// file-changing call.
func startProc(argv []string, dir string, env []string, stdout, stderr io.Writer, step, readyOut, traced, armed bool) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	var parent, child []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	// The child gets the write ends as real files, so reaping it never
	// waits on a pipe a daemonized grandchild still holds open.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	parent, child = append(parent, outR), append(child, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(parent)
		closeAll(child)
		return nil, err
	}
	parent, child = append(parent, errR), append(child, errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	var inW *os.File
	if step {
		var inR *os.File
		inR, inW, err = os.Pipe()
		if err != nil {
			closeAll(parent)
			closeAll(child)
			return nil, err
		}
		parent, child = append(parent, inW), append(child, inR)
		cmd.Stdin = inR
	}
	var tr *tracer
	if traced {
		tr, err = startTraced(cmd, dir, armed)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		closeAll(parent)
		closeAll(child)
		return nil, err
	}
	closeAll(child)
	p := &proc{cmd: cmd, pgid: cmd.Process.Pid, stdin: inW, quit: make(chan struct{}), done: make(chan struct{}),
		errDone: make(chan struct{}), tr: tr}
	if readyOut {
		p.ready = make(chan struct{})
	}
	registerGroup(p.pgid)
	go func() {
		drain(errR, stderr)
		close(p.errDone)
	}()
	switch {
	case step:
		p.idle = make(chan int, 64)
		go p.readProtocol(outR, stdout)
	case readyOut:
		go watchReady(outR, stdout, p.ready)
	default:
		go drain(outR, stdout)
	}
	go func() {
		if tr != nil {
			<-tr.leaderDone
		} else {
			waitExit(p.pgid)
		}
		close(p.done)
	}()
	return p, nil
}

func drain(r *os.File, w io.Writer) {
	_, _ = io.Copy(w, r)
	r.Close()
}

// readProtocol reads the step protocol's answers from stdout. A line too
// long to be an answer is copied out in pieces.
func (p *proc) readProtocol(r *os.File, w io.Writer) {
	defer r.Close()
	defer close(p.idle)
	br := bufio.NewReaderSize(r, 4096)
	piece := false // the line read continues one too long for the buffer
	signalled := p.ready == nil
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if !signalled && err == nil && !piece && readyLine(line) {
				signalled = true
				close(p.ready)
				_, _ = w.Write(line)
			} else if n, ok := parseIdle(line); ok && err == nil && !piece {
				select {
				case p.idle <- n:
				case <-p.quit:
					_, _ = io.Copy(io.Discard, br)
					return
				}
			} else {
				_, _ = w.Write(line)
			}
		}
		piece = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !piece {
			return
		}
	}
}

// parseIdle reads an "idle N" line.
func parseIdle(line []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("idle "))
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(rest)))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// drained waits, at most limit, until the process's stderr is all in the
// log: a member of its group that lives on can keep the pipe open.
func (p *proc) drained(limit time.Duration) {
	select {
	case <-p.errDone:
	case <-time.After(limit):
	}
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// status describes how the process ended; call it after kill.
func (p *proc) status() string {
	if p.tr != nil && p.exited() {
		return waitStatusText(p.tr.exitStatus())
	}
	if p.state != nil {
		return p.state.String()
	}
	return "unknown"
}

// exitCode is the process's exit code, or -1 when a signal ended it; call
// it after kill.
func (p *proc) exitCode() int {
	if p.tr != nil && p.exited() {
		if ws := p.tr.exitStatus(); ws.Exited() {
			return ws.ExitStatus()
		}
		return -1
	}
	if p.state != nil {
		return p.state.ExitCode()
	}
	return -1
}

// kill sends SIGKILL to the whole group, even when the leader has already
// ended (members may live on; the unreaped leader keeps the group id from
// being reused), then reaps the leader.
func (p *proc) kill() {
	p.once.Do(func() {
		if p.tr != nil {
			p.killTraced()
			return
		}
		killGroup(p.pgid)
		close(p.quit)
		if p.stdin != nil {
			p.stdin.Close()
		}
		reaped := make(chan struct{})
		go func() {
			_ = p.cmd.Wait()
			close(reaped)
		}()
		select {
		case <-reaped:
			p.state = p.cmd.ProcessState
		case <-time.After(killWait):
		}
		unregisterGroup(p.pgid)
	})
}

// killTraced is kill for a traced instance: its tracer, not os/exec,
// reaps it. The group is not signalled once no tracee is left, so a group
// id freed since cannot be reached.
func (p *proc) killTraced() {
	p.tr.disarm()
	select {
	case <-p.tr.done:
	default:
		killGroup(p.pgid)
	}
	close(p.quit)
	if p.stdin != nil {
		p.stdin.Close()
	}
	select {
	case <-p.tr.leaderDone:
	case <-time.After(killWait):
	}
	unregisterGroup(p.pgid)
}

// waitStatusText says how a process ended, as os.ProcessState does.
func waitStatusText(ws syscall.WaitStatus) string {
	switch {
	case ws.Exited():
		return "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		return "signal: " + ws.Signal().String()
	}
	return "unknown"
}

// sendTick writes the step protocol's "tick N" line, giving up after the
// deadline so a process that never reads its stdin cannot block the harness.
func (p *proc) sendTick(n int, timeout time.Duration) error {
	if p.stdin == nil {
		return errors.New("no stdin")
	}
	_ = p.stdin.SetWriteDeadline(time.Now().Add(timeout))
	_, err := fmt.Fprintf(p.stdin, "tick %d\n", n)
	return err
}

// capWriter is a file that stops growing at a limit; writes beyond it are
// dropped (but still succeed, so the process never blocks on its output).
type capWriter struct {
	mu      sync.Mutex
	f       *os.File
	limit   int64
	written int64
	noted   bool
}

func newCapWriter(path string, limit int64) (*capWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &capWriter{f: f, limit: limit}, nil
}

func (c *capWriter) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return len(b), nil
	}
	room := c.limit - c.written
	if room <= 0 {
		if !c.noted {
			c.noted = true
			fmt.Fprintf(c.f, "\n[amr: output cut at %d bytes]\n", c.limit)
		}
		return len(b), nil
	}
	part := b
	if int64(len(part)) > room {
		part = part[:room]
	}
	n, _ := c.f.Write(part)
	c.written += int64(n)
	return len(b), nil
}

// note writes a harness line that does not count against the limit.
func (c *capWriter) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		fmt.Fprintf(c.f, "[amr: "+format+"]\n", args...)
	}
}

func (c *capWriter) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// live tracks every process group and sandbox of the runs in progress, so
// KillAll can leave nothing running whatever state a run is in.
var live = struct {
	sync.Mutex
	groups    map[int]bool
	sandboxes map[string]bool
}{groups: map[int]bool{}, sandboxes: map[string]bool{}}

func registerGroup(pgid int) {
	live.Lock()
	live.groups[pgid] = true
	live.Unlock()
}

func unregisterGroup(pgid int) {
	live.Lock()
	delete(live.groups, pgid)
	live.Unlock()
}

func registerSandbox(dir string) {
	live.Lock()
	live.sandboxes[dir] = true
	live.Unlock()
}

func unregisterSandbox(dir string) {
	live.Lock()
	delete(live.sandboxes, dir)
	live.Unlock()
}

// KillAll sends SIGKILL to every process group of every process run in
// progress and to every process found that escaped one. A command calls it
// on the way out (Ctrl-C included) so nothing is left running; runs in
// progress then see their processes gone.
func KillAll() {
	live.Lock()
	groups := make([]int, 0, len(live.groups))
	for g := range live.groups {
		groups = append(groups, g)
	}
	dirs := make([]string, 0, len(live.sandboxes))
	for d := range live.sandboxes {
		dirs = append(dirs, d)
	}
	live.Unlock()
	for _, g := range groups {
		killGroup(g)
	}
	for _, d := range dirs {
		for _, s := range findStrays(d, procMark{}) {
			killPid(s.pid)
		}
	}
}
