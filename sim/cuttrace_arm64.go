//go:build linux && arm64

package sim

import (
	"sync"
	"syscall"
)

const auditArch = 0xC00000B7 // AUDIT_ARCH_AARCH64

// arm64 has only the *at forms of the path calls.
var tracedCalls = []int{
	syscall.SYS_WRITE, syscall.SYS_PWRITE64, syscall.SYS_WRITEV, syscall.SYS_PWRITEV, 287, /* pwritev2 */
	syscall.SYS_RENAMEAT, 276, /* renameat2 */
	syscall.SYS_UNLINKAT, syscall.SYS_TRUNCATE, syscall.SYS_FTRUNCATE, syscall.SYS_MKDIRAT, 437, /* openat2 */
	syscall.SYS_SETSID, syscall.SYS_SETPGID,
}

// leavesGroup are the calls that take a process out of its group; they
// stop too, so the tracer can let the process go first. It and cutCalls
// are built at their first use, not at every start of amr.
var leavesGroup = sync.OnceValue(func() map[int]bool {
	return map[int]bool{syscall.SYS_SETSID: true, syscall.SYS_SETPGID: true}
})

var openCalls = []struct{ nr, flagsArg int }{{syscall.SYS_OPENAT, 2}}

var cutCalls = sync.OnceValue(func() map[int]cutCall {
	return map[int]cutCall{
		syscall.SYS_WRITE: {"write", onFD}, syscall.SYS_PWRITE64: {"pwrite64", onFD},
		syscall.SYS_WRITEV: {"writev", onFD}, syscall.SYS_PWRITEV: {"pwritev", onFD}, 287: {"pwritev2", onFD},
		syscall.SYS_FTRUNCATE: {"ftruncate", onFD}, syscall.SYS_TRUNCATE: {"truncate", onPath},
		syscall.SYS_OPENAT: {"openat", onAtPath}, 437: {"openat2", onAtPath}, syscall.SYS_UNLINKAT: {"unlinkat", onAtPath},
		syscall.SYS_MKDIRAT:  {"mkdirat", onAtPath},
		syscall.SYS_RENAMEAT: {"renameat", onRenameAt}, 276: {"renameat2", onRenameAt},
	}
})

// At a syscall stop the number is in x8.
func callNumber(r *syscall.PtraceRegs) uint64 { return r.Regs[8] }

func arg(r *syscall.PtraceRegs, i int) uint64 { return r.Regs[i] }

func setArg(r *syscall.PtraceRegs, i int, v uint64) { r.Regs[i] = v }

// injectsFilter: on arm64 the filter is installed by the trampoline, amr
// re-executed, before it executes the implementation.
const injectsFilter = false

func injectFilter(int) error { return nil }
