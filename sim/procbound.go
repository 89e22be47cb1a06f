package sim

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/amr-bench/amr/sim/sandbox"
)

// DefaultMaxRunDirBytes bounds everything a process run's directory holds:
// the sandbox with every subdirectory, and the logs beside it.
const DefaultMaxRunDirBytes = 256 << 20

// maxRunDirEntries bounds the files and directories a run directory may
// hold: a million empty files fill no bytes but can stall whatever walks
// them.
const maxRunDirEntries = 65536

// boundEvery is how often the run directory is measured while the process
// works: a walk of the whole tree is too dear for every 2 ms look.
const boundEvery = 50 * time.Millisecond

// walkSize measures a directory tree: the bytes of its regular files (as
// their sizes say; links are not followed) and its entries, the root
// included, stopping once either passes its bound. dirSize is the same
// measure, made with fewer system calls where the system allows.
func walkSize(root string, maxBytes int64) (size int64, entries int) {
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entries++; entries > maxRunDirEntries {
			return filepath.SkipAll
		}
		if e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				size += info.Size()
			}
		}
		if size > maxBytes {
			return filepath.SkipAll
		}
		return nil
	})
	return size, entries
}

// checkBound measures the run directory, at most every boundEvery unless
// now is set, and kills the implementation for good when it holds more
// than its bound. It reports whether the implementation is gone.
func (d *procDriver) checkBound(now bool) bool {
	if d.gone {
		return true
	}
	if !now && time.Since(d.measured) < boundEvery {
		return false
	}
	d.measured = time.Now()
	size, entries := d.measure.measure()
	switch {
	case size > d.spec.MaxRunDirBytes:
		d.giveUp(sandbox.LogBound, fmt.Sprintf("the run directory holds more than %d bytes (its bound); the implementation was killed for good", d.spec.MaxRunDirBytes))
	case entries > maxRunDirEntries:
		d.giveUp(sandbox.LogBound, fmt.Sprintf("the run directory holds more than %d files and directories; the implementation was killed for good", maxRunDirEntries))
	default:
		return false
	}
	return true
}
