//go:build linux && (amd64 || arm64)

package sim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// An exact cut (D105): every call of the implementation that changes a file
// under its sandbox stops it before the call runs, while a crash after k
// writes is armed, and the harness looks at the sandbox there. A seccomp
// filter sends only the file-changing calls to the tracer, so the calls
// that change nothing (reads, the clock, futexes, the network) never stop,
// and, when no crash is armed, a stopped call goes on at once. Where the
// tracer can inject it (injectsFilter), the filter is installed by the
// tracer itself at the process's first instruction after its exec, through
// two system calls it makes the process run (D173); elsewhere the process
// is started through a trampoline (amr itself, re-executed) that installs
// it and executes the implementation.

// trampolineArg0 is argv[0] of the trampoline: amr re-executed by itself to
// install the filter and exec the implementation.
const trampolineArg0 = "amr:exact-cut-trampoline"

// probeTarget makes the trampoline test its own filter instead of
// executing anything: the probe that tells whether this machine traces.
const probeTarget = "amr:probe"

// probeArg0 is argv[0] of amr re-executed as the probe where the tracer
// injects the filter: it makes one filtered call and exits.
const probeArg0 = "amr:exact-cut-probe"

// EnvNoTrace, set to any non-empty value, makes the harness act as if the
// kernel refused tracing: every process run then cuts by watching.
const EnvNoTrace = "AMR_NO_TRACE"

func init() {
	switch {
	case len(os.Args) >= 1 && os.Args[0] == probeArg0:
		probeCall()
	case len(os.Args) >= 2 && os.Args[0] == trampolineArg0:
		trampoline(os.Args[1], os.Args[2:])
	}
}

// probeCall is a filtered call the tracer must see; fd -1 makes it change
// nothing.
func probeCall() {
	_, _ = syscall.Write(-1, nil)
	os.Exit(0)
}

// trampoline runs in the re-executed harness, traced, before any of the
// implementation: it installs the filter on this thread and executes the
// implementation, which inherits it. It never returns.
func trampoline(path string, argv []string) {
	runtime.LockOSThread()
	if err := installFilter(); err != nil {
		fmt.Fprintf(os.Stderr, "amr: installing the write filter: %v\n", err)
		os.Exit(126)
	}
	if path == probeTarget {
		probeCall()
	}
	err := syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "amr: executing %s: %v\n", path, err)
	os.Exit(127)
}

// BPF and seccomp constants not in package syscall.
const (
	bpfLdAbs      = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeq        = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJset       = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfRet        = 0x06 // BPF_RET | BPF_K
	seccompTrace  = 0x7ff00000
	seccompAllow  = 0x7fff0000
	prSetNoNewPri = 38
	prSetSeccomp  = 22
	seccompFilter = 2

	ptraceOptExitKill  = 0x100000
	ptraceEventSeccomp = 7
	ptraceEventStop    = 128
)

// filterProgram is the seccomp program: a call of the list stops at the
// tracer; an open stops only when it may create or truncate; every other
// call, and every call of another architecture, runs.
func filterProgram() []syscall.SockFilter {
	var prog []syscall.SockFilter
	add := func(code uint16, jt, jf int, k uint32) {
		prog = append(prog, syscall.SockFilter{Code: code, Jt: uint8(jt), Jf: uint8(jf), K: k})
	}
	// Jumps go forward only. Layout: [0] load arch, [1] check it, [2] load
	// the number, one jump per traced call (to trace) and per open (to its
	// flag check), allow at a, the flag checks, allow at b, trace at b+1.
	n, o := len(tracedCalls), len(openCalls)
	a := 3 + n + o
	b := a + 1 + 2*o
	add(bpfLdAbs, 0, 0, 4)
	add(bpfJeq, 0, a-2, auditArch)
	add(bpfLdAbs, 0, 0, 0)
	for i, nr := range tracedCalls {
		add(bpfJeq, b+1-(3+i)-1, 0, uint32(nr))
	}
	for i, oc := range openCalls {
		add(bpfJeq, a+1+2*i-(3+n+i)-1, 0, uint32(oc.nr))
	}
	add(bpfRet, 0, 0, seccompAllow)
	for i, oc := range openCalls {
		at := a + 2 + 2*i // the flag test
		add(bpfLdAbs, 0, 0, uint32(16+8*oc.flagsArg))
		add(bpfJset, b+1-at-1, b-at-1, syscall.O_CREAT|syscall.O_TRUNC)
	}
	add(bpfRet, 0, 0, seccompAllow)
	add(bpfRet, 0, 0, seccompTrace)
	return prog
}

func installFilter() error {
	prog := filterProgram()
	fprog := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPri, 1, 0); e != 0 {
		return fmt.Errorf("no_new_privs: %w", e)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompFilter, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}

var probe struct {
	once sync.Once
	why  string // empty: tracing works
}

// traceRefused says why processes cannot be cut exactly on this machine,
// or "" when they can. The probe runs once per harness process.
func traceRefused() string {
	if os.Getenv(EnvNoTrace) != "" {
		return EnvNoTrace + " is set"
	}
	probe.once.Do(func() { probe.why = runProbe() })
	return probe.why
}

// runProbe starts amr traced in probe mode, with the filter installed the
// way an instance's is, and waits for the stop its filtered call makes.
func runProbe() string {
	exe, err := os.Executable()
	if err != nil {
		return "the harness's own executable is unknown: " + err.Error()
	}
	done := make(chan string, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd := exec.Command(exe)
		cmd.Args = []string{probeArg0}
		if !injectsFilter {
			cmd.Args = []string{trampolineArg0, probeTarget}
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true, Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			done <- "ptrace refused: " + err.Error()
			return
		}
		defer func() { _ = cmd.Process.Release() }()
		pid := cmd.Process.Pid
		if err := bootTracee(pid); err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			reapGroup(pid)
			done <- err.Error()
			return
		}
		saw := false
		for {
			var ws syscall.WaitStatus
			tid, err := syscall.Wait4(-pid, &ws, syscall.WALL|wNoThread, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				break
			}
			if ws.Exited() || ws.Signaled() {
				if tid == pid && !(ws.Exited() && ws.ExitStatus() == 0) && !saw {
					done <- fmt.Sprintf("the probe ended with status %#x", uint32(ws))
					return
				}
				continue
			}
			if ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() == ptraceEventSeccomp {
				saw = true
			}
			sig := 0
			if s := ws.StopSignal(); s != syscall.SIGTRAP && s != syscall.SIGSTOP && s&0x80 == 0 {
				sig = int(s)
			}
			_ = syscall.PtraceCont(tid, sig)
		}
		if !saw {
			done <- "the write filter never stopped the probe"
			return
		}
		done <- ""
	}()
	return <-done
}

// bootTracee takes a freshly started tracee from its first stop, the one
// after its exec: it sets the tracing options, installs the filter where
// the tracer injects it, and lets the process run.
func bootTracee(pid int) error {
	for {
		ws, err := waitTracee(pid)
		if err != nil {
			return fmt.Errorf("waiting for the process's first stop: %w", err)
		}
		if !ws.Stopped() {
			return fmt.Errorf("the process ended before its first instruction (status %#x)", uint32(ws))
		}
		if ws.StopSignal() != syscall.SIGTRAP {
			// A signal before the exec is the process's own; the exec's
			// stop follows.
			_ = syscall.PtraceCont(pid, int(ws.StopSignal()))
			continue
		}
		break
	}
	if err := syscall.PtraceSetOptions(pid, traceOptions); err != nil {
		return fmt.Errorf("ptrace options refused: %w", err)
	}
	if injectsFilter {
		if err := injectFilter(pid); err != nil {
			return fmt.Errorf("installing the write filter: %w", err)
		}
	}
	return syscall.PtraceCont(pid, 0)
}

// reapGroup waits until every tracee of pid's group has ended.
func reapGroup(pid int) {
	for {
		if _, err := waitTracee(-pid); err != nil {
			return
		}
	}
}

// waitTracee waits for the next stop or end of pid (of any of its group
// when pid is negative), trying again when a signal interrupts the wait.
func waitTracee(pid int) (syscall.WaitStatus, error) {
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, syscall.WALL|wNoThread, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}

// wNoThread waits only for this thread's children and tracees, never for
// those of another thread of the harness (another run's).
const wNoThread = 0x20000000

const traceOptions = syscall.PTRACE_O_TRACESYSGOOD | syscall.PTRACE_O_TRACECLONE | syscall.PTRACE_O_TRACEFORK |
	syscall.PTRACE_O_TRACEVFORK | syscall.PTRACE_O_TRACEEXEC | 0x80 /* PTRACE_O_TRACESECCOMP */ | ptraceOptExitKill

// traceStop is a stop the tracer hands to the driver: a file-changing call
// about to run (exit false), or one that has just run (exit true), of a
// file under the sandbox.
type traceStop struct {
	exit bool
	call string // the system call's name
	path string // the file changed, relative to the sandbox, slash-separated
	from string // a rename's source, relative to the sandbox ("" outside it)
	// n is a write's length, line the length of its first line (up to and
	// with its first newline; 0 when it has none). Both 0 for other calls.
	n, line int
	reply   chan traceVerdict
}

// traceVerdict is the driver's answer at a stop.
type traceVerdict struct {
	kill  bool // leave the call stopped: the driver kills the group
	short int  // run a write with this length instead (0: as it is)
}

// tracer is the tracer of one instance: one locked OS thread started it and
// makes every ptrace request and every wait for it.
type tracer struct {
	root    string
	stops   chan *traceStop
	started chan error
	leader  int
	// leaderDone is closed once the leader has ended; status is how.
	leaderDone chan struct{}
	status     syscall.WaitStatus
	// done is closed once no tracee is left.
	done chan struct{}

	mu    sync.Mutex
	armed chan struct{} // open while a crash is armed; nil or closed otherwise

	// Owned by the tracer thread.
	inflight int          // the tracee whose stopped call was let run, 0 none
	queue    []int        // tracees stopped at a call while another was in flight
	fresh    map[int]bool // announced by their parent's event, not yet stopped
	seen     map[int]bool // stopped at least once
	endOnce  sync.Once
}

// traceSupported reports whether this build can cut exactly.
const traceSupported = true

// startTraced starts cmd traced on a thread of its own, armed from its first
// instruction when armed is set. The command's path must already be
// resolved.
func startTraced(cmd *exec.Cmd, root string, armed bool) (*tracer, error) {
	if err := syscall.Access(cmd.Path, 1 /* X_OK */); err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}
	}
	if !injectsFilter {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		args := append([]string{trampolineArg0, cmd.Path}, cmd.Args...)
		cmd.Path, cmd.Args = exe, args
	}
	cmd.SysProcAttr.Ptrace = true
	t := &tracer{root: root, stops: make(chan *traceStop), started: make(chan error, 1),
		leaderDone: make(chan struct{}), done: make(chan struct{}), fresh: map[int]bool{}, seen: map[int]bool{}}
	if armed {
		t.armed = make(chan struct{})
	}
	go t.run(cmd)
	if err := <-t.started; err != nil {
		return nil, err
	}
	return t, nil
}

// arm makes every file-changing call stop at the driver until disarm.
func (t *tracer) arm() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.armed == nil {
		t.armed = make(chan struct{})
	}
}

// disarm lets every call go on; a stop waiting for the driver goes on too.
func (t *tracer) disarm() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.armed != nil {
		close(t.armed)
		t.armed = nil
	}
}

func (t *tracer) armedChan() chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.armed
}

// run is the tracer thread: it starts the command (so the command is this
// thread's child) and follows it and everything it starts until none is
// left. The thread is unlocked at the end, when nothing is traced any
// more, so that it goes back to the runtime instead of ending: a locked
// thread whose goroutine returns is ended, and every process that thread
// had forked before the lock (another run's instance, started untraced
// from whatever thread its goroutine was on) would get its parent-death
// signal, SIGKILL, from the kernel.
func (t *tracer) run(cmd *exec.Cmd) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(t.done)
	if err := cmd.Start(); err != nil {
		t.started <- err
		return
	}
	t.leader = cmd.Process.Pid
	defer func() { _ = cmd.Process.Release() }()
	if err := bootTracee(t.leader); err != nil {
		_ = syscall.Kill(t.leader, syscall.SIGKILL)
		reapGroup(t.leader)
		t.endLeader()
		t.started <- err
		return
	}
	t.seen[t.leader] = true
	t.started <- nil
	for {
		// Only the instance's group: the thread may be one that forked
		// other children of the harness before it was locked.
		var ws syscall.WaitStatus
		tid, err := syscall.Wait4(-t.leader, &ws, syscall.WALL|wNoThread, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: no tracee is left in the group
		}
		if ws.Exited() || ws.Signaled() {
			t.gone(tid, ws)
			continue
		}
		if !ws.Stopped() {
			continue
		}
		t.stopped(tid, ws)
	}
	t.endLeader()
}

func (t *tracer) endLeader() { t.endOnce.Do(func() { close(t.leaderDone) }) }

func (t *tracer) gone(tid int, ws syscall.WaitStatus) {
	if tid == t.leader {
		t.status = ws
		t.endLeader()
	}
	delete(t.fresh, tid)
	delete(t.seen, tid)
	for i, q := range t.queue {
		if q == tid {
			t.queue = append(t.queue[:i], t.queue[i+1:]...)
			break
		}
	}
	if tid == t.inflight {
		t.inflight = 0
		t.drain()
	}
}

func (t *tracer) stopped(tid int, ws syscall.WaitStatus) {
	sig := ws.StopSignal()
	// The first stop of a tracee may come before its parent's event.
	initial := t.fresh[tid] || !t.seen[tid]
	delete(t.fresh, tid)
	t.seen[tid] = true
	switch {
	case sig == syscall.SIGTRAP|0x80:
		t.callDone(tid)
	case sig == syscall.SIGTRAP:
		switch ws.TrapCause() {
		case ptraceEventSeccomp:
			t.callStops(tid)
		case syscall.PTRACE_EVENT_CLONE, syscall.PTRACE_EVENT_FORK, syscall.PTRACE_EVENT_VFORK:
			if child, err := syscall.PtraceGetEventMsg(tid); err == nil && !t.seen[int(child)] {
				t.fresh[int(child)] = true
			}
			t.resume(tid, 0)
		default:
			t.resume(tid, 0)
		}
	case sig == syscall.SIGSTOP && initial:
		// A new thread or process starts stopped; that stop is ours.
		t.resume(tid, 0)
	default:
		t.resume(tid, int(sig))
	}
}

func (t *tracer) resume(tid, sig int) { _ = syscall.PtraceCont(tid, sig) }

// callStops is a file-changing call about to run.
func (t *tracer) callStops(tid int) {
	var regs syscall.PtraceRegs
	if syscall.PtraceGetRegs(tid, &regs) == nil && leavesGroup()[int(callNumber(&regs))] {
		// Out of the group it is out of the kill and of the wait: it is
		// let go, and found as escaped if it outlives a kill.
		_ = syscall.PtraceDetach(tid)
		return
	}
	if t.armedChan() == nil {
		t.resume(tid, 0)
		return
	}
	if t.inflight != 0 {
		// One call at a time: a look must see every call before it done.
		t.queue = append(t.queue, tid)
		return
	}
	t.consider(tid)
}

// consider asks the driver about a stopped call, and lets it run (to its
// exit stop), or leaves it stopped for the kill.
func (t *tracer) consider(tid int) {
	var regs syscall.PtraceRegs
	if syscall.PtraceGetRegs(tid, &regs) != nil {
		t.resume(tid, 0)
		return
	}
	st, ok := t.describe(tid, &regs)
	if !ok {
		t.resume(tid, 0)
		return
	}
	v, asked := t.ask(st)
	if !asked {
		t.resume(tid, 0)
		return
	}
	if v.kill {
		return
	}
	if v.short > 0 && v.short < st.n {
		setArg(&regs, 2, uint64(v.short))
		_ = syscall.PtraceSetRegs(tid, &regs)
	}
	t.inflight = tid
	_ = syscall.PtraceSyscall(tid, 0)
}

// callDone is the exit stop of the call let run.
func (t *tracer) callDone(tid int) {
	if tid != t.inflight {
		t.resume(tid, 0)
		return
	}
	t.inflight = 0
	v, asked := t.ask(&traceStop{exit: true})
	if asked && v.kill {
		return
	}
	t.resume(tid, 0)
	t.drain()
}

// drain considers the calls that waited, one at a time.
func (t *tracer) drain() {
	for t.inflight == 0 && len(t.queue) > 0 {
		tid := t.queue[0]
		t.queue = t.queue[1:]
		if t.armedChan() == nil {
			t.resume(tid, 0)
			continue
		}
		t.consider(tid)
	}
}

// ask hands a stop to the driver and waits for its verdict; it reports
// false when the crash was disarmed first.
func (t *tracer) ask(st *traceStop) (traceVerdict, bool) {
	armed := t.armedChan()
	if armed == nil {
		return traceVerdict{}, false
	}
	st.reply = make(chan traceVerdict, 1)
	select {
	case t.stops <- st:
	case <-armed:
		return traceVerdict{}, false
	}
	return <-st.reply, true
}

// describe names the call and the file it changes; false when the file is
// not under the sandbox.
func (t *tracer) describe(tid int, regs *syscall.PtraceRegs) (*traceStop, bool) {
	c, ok := cutCalls()[int(callNumber(regs))]
	if !ok {
		return nil, false
	}
	st := &traceStop{call: c.name}
	var abs string
	switch c.kind {
	case onFD:
		abs = t.fdPath(tid, int(int32(arg(regs, 0))))
		if c.name == "write" || c.name == "pwrite64" {
			st.n = int(arg(regs, 2))
			st.line = t.firstLine(tid, arg(regs, 1), st.n)
		}
	case onPath:
		abs = t.atPath(tid, atFDCWD, arg(regs, 0))
	case onAtPath:
		abs = t.atPath(tid, int(int32(arg(regs, 0))), arg(regs, 1))
	case onRename:
		st.from, _ = t.rel(t.atPath(tid, atFDCWD, arg(regs, 0)))
		abs = t.atPath(tid, atFDCWD, arg(regs, 1))
	case onRenameAt:
		st.from, _ = t.rel(t.atPath(tid, int(int32(arg(regs, 0))), arg(regs, 1)))
		abs = t.atPath(tid, int(int32(arg(regs, 2))), arg(regs, 3))
	}
	rel, ok := t.rel(abs)
	if !ok {
		return nil, false
	}
	st.path = rel
	return st, true
}

// rel is abs relative to the sandbox, when it is under it.
func (t *tracer) rel(abs string) (string, bool) {
	if abs == "" || !strings.HasPrefix(abs, t.root+"/") {
		return "", false
	}
	return filepath.ToSlash(strings.TrimPrefix(abs, t.root+"/")), true
}

const atFDCWD = -100

func (t *tracer) fdPath(tid, fd int) string {
	p, err := os.Readlink("/proc/" + strconv.Itoa(tid) + "/fd/" + strconv.Itoa(fd))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(p, " (deleted)")
}

// atPath resolves a path argument against its directory descriptor.
func (t *tracer) atPath(tid, dirfd int, addr uint64) string {
	name := t.readString(tid, addr)
	if name == "" {
		return ""
	}
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	var dir string
	if dirfd == atFDCWD {
		d, err := os.Readlink("/proc/" + strconv.Itoa(tid) + "/cwd")
		if err != nil {
			return ""
		}
		dir = d
	} else {
		dir = t.fdPath(tid, dirfd)
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// readMem reads the tracee's memory.
func readMem(tid int, addr uint64, buf []byte) int {
	f, err := os.Open("/proc/" + strconv.Itoa(tid) + "/mem")
	if err != nil {
		return 0
	}
	defer f.Close()
	n, _ := f.ReadAt(buf, int64(addr))
	return n
}

func (t *tracer) readString(tid int, addr uint64) string {
	buf := make([]byte, 4096)
	n := readMem(tid, addr, buf)
	if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
		return string(buf[:i])
	}
	return ""
}

// maxLinePeek bounds how much of a write is read to find its first line.
const maxLinePeek = 1 << 20

func (t *tracer) firstLine(tid int, addr uint64, n int) int {
	if n <= 0 {
		return 0
	}
	buf := make([]byte, min(n, maxLinePeek))
	got := readMem(tid, addr, buf)
	if i := bytes.IndexByte(buf[:got], '\n'); i >= 0 {
		return i + 1
	}
	return 0
}

// wait blocks until the leader has ended or the limit's channel fires.
func (t *tracer) waitLeader(limit <-chan struct{}) bool {
	select {
	case <-t.leaderDone:
		return true
	case <-limit:
		return false
	}
}

// exitStatus is the leader's end, once leaderDone is closed.
func (t *tracer) exitStatus() syscall.WaitStatus { return t.status }

// Kinds of file-changing calls, by where their file is named.
const (
	onFD       = iota // a descriptor: write, ftruncate
	onPath            // a path relative to the working directory
	onAtPath          // a directory descriptor and a path
	onRename          // two paths
	onRenameAt        // two directory descriptors and paths
)

type cutCall struct {
	name string
	kind int
}
