//go:build linux && amd64

package sim

import "syscall"

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
// stop too, so the tracer can let the process go first.
var leavesGroup = map[int]bool{syscall.SYS_SETSID: true, syscall.SYS_SETPGID: true}

var openCalls = []struct{ nr, flagsArg int }{{syscall.SYS_OPEN, 1}, {syscall.SYS_OPENAT, 2}}

var cutCalls = map[int]cutCall{
	syscall.SYS_WRITE: {"write", onFD}, syscall.SYS_PWRITE64: {"pwrite64", onFD},
	syscall.SYS_WRITEV: {"writev", onFD}, syscall.SYS_PWRITEV: {"pwritev", onFD}, 328: {"pwritev2", onFD},
	syscall.SYS_FTRUNCATE: {"ftruncate", onFD},
	syscall.SYS_CREAT:     {"creat", onPath}, syscall.SYS_OPEN: {"open", onPath}, syscall.SYS_UNLINK: {"unlink", onPath},
	syscall.SYS_RMDIR: {"rmdir", onPath}, syscall.SYS_TRUNCATE: {"truncate", onPath}, syscall.SYS_MKDIR: {"mkdir", onPath},
	syscall.SYS_OPENAT: {"openat", onAtPath}, 437: {"openat2", onAtPath}, syscall.SYS_UNLINKAT: {"unlinkat", onAtPath},
	syscall.SYS_MKDIRAT: {"mkdirat", onAtPath},
	syscall.SYS_RENAME:  {"rename", onRename}, syscall.SYS_RENAMEAT: {"renameat", onRenameAt}, 316: {"renameat2", onRenameAt},
}

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
