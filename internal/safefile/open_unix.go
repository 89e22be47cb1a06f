//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNonBlocking opens read-only with O_NONBLOCK, so a FIFO put in place
// between the Stat and the open does not wait for a writer; fstat then
// refuses it.
func openNonBlocking(path string, dir bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if dir {
		flags |= syscall.O_DIRECTORY
	}
	return os.OpenFile(path, flags, 0)
}
