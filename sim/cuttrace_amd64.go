//go:build linux && amd64

package sim

import (
	"encoding/binary"
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

const auditArch = 0xC000003E // AUDIT_ARCH_X86_64

// tracedCalls stop whatever their arguments; openCalls only with O_CREAT
// or O_TRUNC in the flags argument named.
var tracedCalls = []int{
	syscall.SYS_WRITE, syscall.SYS_PWRITE64, syscall.SYS_WRITEV, syscall.SYS_PWRITEV, 328, /* pwritev2 */
	syscall.SYS_CREAT, syscall.SYS_RENAME, syscall.SYS_RENAMEAT, 316, /* renameat2 */
	syscall.SYS_UNLINK, syscall.SYS_UNLINKAT, syscall.SYS_RMDIR, syscall.SYS_TRUNCATE, syscall.SYS_FTRUNCATE,
	syscall.SYS_MKDIR, syscall.SYS_MKDIRAT, 437, /* openat2 */
	syscall.SYS_SETSID, syscall.SYS_SETPGID,
}

// leavesGroup are the calls that take a process out of its group; they
// stop too, so the tracer can let the process go first. It and cutCalls
// are built at their first use, not at every start of amr.
var leavesGroup = sync.OnceValue(func() map[int]bool {
	return map[int]bool{syscall.SYS_SETSID: true, syscall.SYS_SETPGID: true}
})

var openCalls = []struct{ nr, flagsArg int }{{syscall.SYS_OPEN, 1}, {syscall.SYS_OPENAT, 2}}

var cutCalls = sync.OnceValue(func() map[int]cutCall {
	return map[int]cutCall{
		syscall.SYS_WRITE: {"write", onFD}, syscall.SYS_PWRITE64: {"pwrite64", onFD},
		syscall.SYS_WRITEV: {"writev", onFD}, syscall.SYS_PWRITEV: {"pwritev", onFD}, 328: {"pwritev2", onFD},
		syscall.SYS_FTRUNCATE: {"ftruncate", onFD},
		syscall.SYS_CREAT:     {"creat", onPath}, syscall.SYS_OPEN: {"open", onPath}, syscall.SYS_UNLINK: {"unlink", onPath},
		syscall.SYS_RMDIR: {"rmdir", onPath}, syscall.SYS_TRUNCATE: {"truncate", onPath}, syscall.SYS_MKDIR: {"mkdir", onPath},
		syscall.SYS_OPENAT: {"openat", onAtPath}, 437: {"openat2", onAtPath}, syscall.SYS_UNLINKAT: {"unlinkat", onAtPath},
		syscall.SYS_MKDIRAT: {"mkdirat", onAtPath},
		syscall.SYS_RENAME:  {"rename", onRename}, syscall.SYS_RENAMEAT: {"renameat", onRenameAt}, 316: {"renameat2", onRenameAt},
	}
})

func callNumber(r *syscall.PtraceRegs) uint64 { return r.Orig_rax }

func arg(r *syscall.PtraceRegs, i int) uint64 {
	switch i {
	case 0:
		return r.Rdi
	case 1:
		return r.Rsi
	case 2:
		return r.Rdx
	case 3:
		return r.R10
	case 4:
		return r.R8
	}
	return r.R9
}

// setArg changes the third argument (a write's length), the only one the
// harness changes.
func setArg(r *syscall.PtraceRegs, i int, v uint64) {
	if i == 2 {
		r.Rdx = v
	}
}

// injectsFilter: on amd64 the tracer installs the write filter itself, at
// the process's first instruction after its exec (D173), so a traced
// instance starts once, not twice.
const injectsFilter = true

// syscallInsn is amd64's syscall instruction, run in place of the
// program's first instruction while the filter is injected.
var syscallInsn = []byte{0x0f, 0x05}

// redZone is the stack below the stack pointer a program may use without
// moving it; what the injection writes goes below it.
const redZone = 128

// injectFilter installs the write filter in a tracee held at the stop
// after its exec: it writes the program below the stack pointer, puts a
// syscall instruction at the entry point, makes the process run
// prctl(PR_SET_NO_NEW_PRIVS) and prctl(PR_SET_SECCOMP) there, and puts the
// instruction and every register back. The stack below the pointer is
// free at that point (the kernel maps well over a page below it at exec),
// and the program reads its filter only during the call.
func injectFilter(pid int) error {
	var saved syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(pid, &saved); err != nil {
		return fmt.Errorf("reading registers: %w", err)
	}
	pc := uintptr(saved.PC())
	orig := make([]byte, len(syscallInsn))
	if _, err := syscall.PtracePeekText(pid, pc, orig); err != nil {
		return fmt.Errorf("reading the entry point: %w", err)
	}
	if _, err := syscall.PtracePokeText(pid, pc, syscallInsn); err != nil {
		return fmt.Errorf("writing the entry point: %w", err)
	}
	err := installRemote(pid, saved)
	if _, perr := syscall.PtracePokeText(pid, pc, orig); perr != nil && err == nil {
		err = fmt.Errorf("restoring the entry point: %w", perr)
	}
	if serr := syscall.PtraceSetRegs(pid, &saved); serr != nil && err == nil {
		err = fmt.Errorf("restoring registers: %w", serr)
	}
	return err
}

func installRemote(pid int, saved syscall.PtraceRegs) error {
	prog := filterProgram()
	code := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	progAt := (saved.Rsp - redZone - 4096 - uint64(len(code))) &^ 15
	fprogAt := progAt - 16
	fprog := make([]byte, 16)
	binary.LittleEndian.PutUint16(fprog[0:], uint16(len(prog)))
	binary.LittleEndian.PutUint64(fprog[8:], progAt)
	if _, err := syscall.PtracePokeData(pid, uintptr(progAt), code); err != nil {
		return fmt.Errorf("writing the filter: %w", err)
	}
	if _, err := syscall.PtracePokeData(pid, uintptr(fprogAt), fprog); err != nil {
		return fmt.Errorf("writing the filter: %w", err)
	}
	if err := remoteCall(pid, saved, syscall.SYS_PRCTL, prSetNoNewPri, 1, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := remoteCall(pid, saved, syscall.SYS_PRCTL, prSetSeccomp, seccompFilter, fprogAt); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// remoteCall makes the tracee run system call nr with three arguments at
// its program counter (where syscallInsn was put) and returns its error.
func remoteCall(pid int, saved syscall.PtraceRegs, nr, a0, a1, a2 uint64) error {
	regs := saved
	// Not inside a call: the resumption must not restart the exec.
	regs.Orig_rax = ^uint64(0)
	regs.Rax, regs.Rdi, regs.Rsi, regs.Rdx = nr, a0, a1, a2
	if err := syscall.PtraceSetRegs(pid, &regs); err != nil {
		return err
	}
	for range 2 { // the call's entry stop, then its exit stop
		if err := syscall.PtraceSyscall(pid, 0); err != nil {
			return err
		}
		if err := waitCallStop(pid); err != nil {
			return err
		}
	}
	if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
		return err
	}
	if r := int64(regs.Rax); r < 0 && r > -4096 {
		return syscall.Errno(-r)
	}
	return nil
}

// waitCallStop waits for the tracee's next stop, which must be a system
// call's (a signal meanwhile, or its end, fails the injection).
func waitCallStop(pid int) error {
	ws, err := waitTracee(pid)
	if err != nil {
		return err
	}
	if !ws.Stopped() {
		return fmt.Errorf("the process ended while the filter was installed (status %#x)", uint32(ws))
	}
	if ws.StopSignal() != syscall.SIGTRAP|0x80 {
		return fmt.Errorf("the process stopped with %v while the filter was installed", ws.StopSignal())
	}
	return nil
}
