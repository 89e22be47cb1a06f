//go:build unix

package safefile

import (
	"fmt"
	"syscall"
)

// WithDirLock runs f holding an exclusive lock on directory dir, so two
// amr processes that read, change and write one file in it (the regress
// baseline, say) take turns instead of one losing the other's change. The
// lock is on the directory itself: nothing is left behind.
func WithDirLock(dir string, f func() error) error {
	d, err := openNonBlocking(dir, true)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("%s: locking: %w", dir, err)
	}
	defer syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	return f()
}
