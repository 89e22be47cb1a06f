//go:build linux

package sim

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const processSupported = true

// sysProcAttr puts the process in a process group of its own, so a crash
// kills it and every child that stayed in the group with one signal, and
// asks the kernel to kill it should the harness die first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitExit blocks until the process has ended, without reaping it: while
// the leader is a zombie its process group id cannot be reused, so a kill
// of the group afterwards can only reach what is left of the run.
func waitExit(pid int) {
	const pPID, wExited, wNoWait = 1, 4, 0x1000000
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}

// writable reports whether this process may create files in dir.
func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }

func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// stopGroup stops a process group and waits until its leader has stopped:
// SIGSTOP is delivered asynchronously, and a thread running on another CPU
// goes on for a moment after kill returns. The wait is bounded (a thread in
// uninterruptible sleep stops only when it wakes).
func stopGroup(pgid int) {
	if syscall.Kill(-pgid, syscall.SIGSTOP) != nil {
		return
	}
	waitStopped(pgid, stopWait)
}

// stopWait bounds how long stopGroup waits for the stop to land.
const stopWait = 100 * time.Millisecond

// waitStopped waits until every thread of process pid is stopped (or gone),
// or the limit passes.
func waitStopped(pid int, limit time.Duration) {
	tasks := filepath.Join("/proc", strconv.Itoa(pid), "task")
	deadline := time.Now().Add(limit)
	for !allStopped(tasks) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Microsecond)
	}
}

func allStopped(tasks string) bool {
	entries, err := os.ReadDir(tasks)
	if err != nil {
		return true // the process is gone
	}
	for _, e := range entries {
		st, ok := procStat(filepath.Join(tasks, e.Name()))
		if !ok {
			continue
		}
		switch st.state {
		case 'T', 't', 'Z', 'X':
		default:
			return false
		}
	}
	return true
}

func contGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGCONT) }

func killPid(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// readRegular reads bytes [off, min(size, limit)) of a regular file and
// returns them with the file's size. It never follows a link and never
// blocks on a FIFO an implementation put in a file's place, and it uses
// plain system calls: this runs several times per tick.
func readRegular(path string, off, limit int64) ([]byte, int64, error) {
	fd, st, err := openRegular(path)
	if err != nil {
		return nil, 0, err
	}
	defer syscall.Close(fd)
	return preadRange(fd, path, &st, off, limit, nil)
}

// openRegular opens a regular file for reading as readRegular does.
func openRegular(path string) (int, syscall.Stat_t, error) {
	var st syscall.Stat_t
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, st, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, st, errNotRegular
	}
	return fd, st, nil
}

// heldOpen is a file read again and again (a log the driver looks at every
// tick), kept open between reads: a read that finds the same inode at the
// path, with the same mode and owner, reads through the kept descriptor,
// which is what opening the path again would give, for one system call
// fewer than an open, a stat and a close. Anything else at the path (a
// file renamed over it, a link, a FIFO, a changed mode) opens it afresh.
type heldOpen struct {
	fd    int // -1: none
	st    syscall.Stat_t
	opens int // for tests
	// scratch is what readReusing reads into, kept for the next read.
	scratch []byte
}

func newHeldOpen() heldOpen { return heldOpen{fd: -1} }

// read is readRegular of path through the kept descriptor when it still
// names the file at path.
func (k *heldOpen) read(path string, off, limit int64) ([]byte, int64, error) {
	return k.readInto(nil, path, off, limit)
}

// readReusing is read into a buffer of the heldOpen's own: what it returns
// is only valid until the next readReusing. A log read whole at every
// tick's end is mostly unchanged, and then nothing need be kept of it.
func (k *heldOpen) readReusing(path string, off, limit int64) ([]byte, int64, error) {
	data, size, err := k.readInto(k.scratch, path, off, limit)
	if cap(data) > cap(k.scratch) {
		k.scratch = data[:0]
	}
	return data, size, err
}

func (k *heldOpen) readInto(buf []byte, path string, off, limit int64) ([]byte, int64, error) {
	if k.fd >= 0 {
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) == nil && k.same(&st) {
			return preadRange(k.fd, path, &st, off, limit, buf)
		}
		k.close()
	}
	fd, st, err := openRegular(path)
	if err != nil {
		return nil, 0, err
	}
	k.fd, k.st = fd, st
	k.opens++
	return preadRange(fd, path, &st, off, limit, buf)
}

// same reports whether st is the kept file as it was opened: the same
// inode, with the same type, permissions and owner.
func (k *heldOpen) same(st *syscall.Stat_t) bool {
	return st.Dev == k.st.Dev && st.Ino == k.st.Ino && st.Mode == k.st.Mode && st.Uid == k.st.Uid && st.Gid == k.st.Gid
}

func (k *heldOpen) close() {
	if k.fd >= 0 {
		syscall.Close(k.fd)
		k.fd = -1
	}
}

// preadRange reads bytes [off, min(size, limit)) of the open file, whose
// stat is st, and returns them with its size: in buf when it has room,
// else in a buffer of its own.
func preadRange(fd int, path string, st *syscall.Stat_t, off, limit int64, buf []byte) ([]byte, int64, error) {
	end := min(st.Size, limit)
	if end <= off {
		return nil, st.Size, nil
	}
	if int64(cap(buf)) >= end-off {
		buf = buf[:end-off]
	} else {
		buf = make([]byte, end-off)
	}
	n := 0
	for n < len(buf) {
		k, err := syscall.Pread(fd, buf[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:n], st.Size, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if k == 0 {
			break
		}
		n += k
	}
	return buf[:n], st.Size, nil
}

// writeNew creates path, which must not exist (a link planted there makes
// it fail rather than write through), and writes data to it.
func writeNew(path string, data []byte) error {
	const flags = syscall.O_WRONLY | syscall.O_CREAT | syscall.O_EXCL | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	fd, err := syscall.Open(path, flags, 0o644)
	if err == syscall.EEXIST {
		// Left over, or planted: removed only when there, so the common
		// case costs no failed unlink at every tick.
		_ = syscall.Unlink(path)
		fd, err = syscall.Open(path, flags, 0o644)
	}
	if err != nil {
		return &os.PathError{Op: "create", Path: path, Err: err}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	return syscall.Close(fd)
}

// renameOver renames from over to as os.Rename does, with the same errors,
// but without its look at to first: that look only tells a directory in
// to's place, which rename(2) refuses as well (EISDIR for a file over a
// directory), and it costs a system call at every tick's clock.
func renameOver(from, to string) error {
	for {
		err := syscall.Rename(from, to)
		switch err {
		case nil:
			return nil
		case syscall.EINTR:
			continue
		case syscall.EISDIR:
			// What os.Rename reports for a directory in the way.
			err = syscall.EEXIST
		}
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
}

// openAppend opens a harness log for appending without following a link.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
}

// stray is a process found that still belongs to a run.
type stray struct {
	pid  int
	pgid int
	name string
}

// findStrays lists the live processes, other than this one, started no
// earlier than since (in clock ticks after boot, as /proc counts them; 0
// looks at all), whose working directory is inside the sandbox or whose
// environment names it as AMR_SANDBOX: after a group kill, those are
// children that left the process group (setsid, a double fork) and so
// survived it, or members not yet dead. One that cleared both cannot be
// told apart from any other process and is not found.
//
// With a mark taken (markProcs) only the processes whose pid was allocated
// after it are read: reading every process's stat costs milliseconds on a
// busy machine, and a run's process can only have been forked after the
// run began. The zero mark looks at all.
func findStrays(sandbox string, since procMark) []stray {
	names, err := procPids()
	if err != nil {
		return nil
	}
	from, to, windowed := since.window()
	self := os.Getpid()
	needle := []byte(EnvSandbox + "=" + sandbox + "\x00")
	var out []stray
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self || windowed && !pidAfter(pid, from, to) {
			continue
		}
		dir := filepath.Join("/proc", name)
		st, ok := procStat(dir)
		if !ok || st.state == 'Z' || st.state == 'X' || st.start < since.start {
			continue
		}
		if !belongs(dir, sandbox, needle) {
			continue
		}
		name, _ := os.ReadFile(filepath.Join(dir, "comm"))
		out = append(out, stray{pid: pid, pgid: st.pgid, name: strings.TrimSpace(string(name))})
	}
	return out
}

// procPids lists /proc's entries unsorted: sorting and typing them (as
// os.ReadDir does) costs as much as the listing itself.
func procPids() ([]string, error) {
	f, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// procMark is a moment a scan for a run's processes starts from: no
// process older than it can belong to the run.
type procMark struct {
	// start is when the harness process started, in /proc's clock ticks.
	start uint64
	// lastPid is the last pid the kernel had allocated, forks the forks
	// since boot (/proc/stat's "processes", threads included), pidMax the
	// pid space; ok says all three were read.
	lastPid int
	forks   uint64
	pidMax  int
	ok      bool
}

// markProcs takes a mark now. The kernel allocates pids in a cycle, so
// every process forked after the mark has a pid after lastPid in that
// cycle, until as many pids as the space holds have been allocated.
func markProcs() procMark {
	m := procMark{start: startTime(os.Getpid())}
	self, err := os.Readlink("/proc/self")
	if err != nil || self != strconv.Itoa(os.Getpid()) {
		return m // /proc is another pid namespace's: pids cannot be compared
	}
	last, ok1 := readProcNumber("/proc/sys/kernel/ns_last_pid")
	max, ok2 := readProcNumber("/proc/sys/kernel/pid_max")
	forks, ok3 := procForks()
	m.lastPid, m.pidMax, m.forks, m.ok = int(last), int(max), forks, ok1 && ok2 && ok3 && max > 0
	return m
}

// window is the cyclic range of pids (from, to] allocated since the mark;
// ok is false when the mark has none or the pids may have gone round the
// whole space since, and every process must be looked at.
func (m procMark) window() (from, to int, ok bool) {
	if !m.ok {
		return 0, 0, false
	}
	last, ok1 := readProcNumber("/proc/sys/kernel/ns_last_pid")
	forks, ok2 := procForks()
	if !ok1 || !ok2 || forks < m.forks || forks-m.forks >= uint64(m.pidMax)/2 {
		return 0, 0, false
	}
	return m.lastPid, int(last), true
}

// pidAfter reports whether pid lies in the cyclic range (from, to].
func pidAfter(pid, from, to int) bool {
	if to >= from {
		return pid > from && pid <= to
	}
	return pid > from || pid <= to
}

func readProcNumber(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil
}

// procForks is the number of forks since boot, from /proc/stat.
func procForks() (uint64, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "processes "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// startTime is when a process started, in clock ticks after boot; 0 when
// it cannot be read.
func startTime(pid int) uint64 {
	st, _ := procStat(filepath.Join("/proc", strconv.Itoa(pid)))
	return st.start
}

type procInfo struct {
	state byte
	pgid  int
	start uint64
}

// procStat reads a process's state letter, process group and start time
// from /proc/PID/stat: "pid (comm) state ppid pgrp ... starttime ...",
// where comm may hold spaces and parentheses.
func procStat(dir string) (procInfo, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procInfo{}, false
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 || len(fields[0]) != 1 {
		return procInfo{}, false
	}
	pgid, err := strconv.Atoi(fields[2])
	if err != nil {
		return procInfo{}, false
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return procInfo{}, false
	}
	return procInfo{state: fields[0][0], pgid: pgid, start: start}, true
}

func belongs(procDir, sandbox string, needle []byte) bool {
	if cwd, err := os.Readlink(filepath.Join(procDir, "cwd")); err == nil {
		if cwd == sandbox || strings.HasPrefix(cwd, sandbox+"/") {
			return true
		}
	}
	f, err := os.Open(filepath.Join(procDir, "environ"))
	if err != nil {
		return false
	}
	defer f.Close()
	env, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	if !bytes.HasSuffix(env, []byte("\x00")) {
		env = append(env, 0)
	}
	return bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte("\x00"), needle...))
}

// syscallNoFollow makes an open fail on a link rather than follow it.
const syscallNoFollow = syscall.O_NOFOLLOW
