package sim

import (
	"os"
	"sync"
)

// workdirs are the process runs' directories that exist now, kept or not:
// a command that is interrupted removes them all, so an interrupt leaves no
// temporary directory behind, not even a failed run's that a finished
// command would have left for reading.
var workdirs = struct {
	sync.Mutex
	dirs map[string]bool
}{dirs: map[string]bool{}}

func registerWorkdir(dir string) {
	workdirs.Lock()
	workdirs.dirs[dir] = true
	workdirs.Unlock()
}

func removeWorkdir(dir string) error {
	workdirs.Lock()
	delete(workdirs.dirs, dir)
	workdirs.Unlock()
	return os.RemoveAll(dir)
}

// RemoveWorkdirs removes the directory of every process run still on disk,
// after KillAll has ended their processes. Only an interrupted command
// calls it.
func RemoveWorkdirs() {
	workdirs.Lock()
	dirs := make([]string, 0, len(workdirs.dirs))
	for d := range workdirs.dirs {
		dirs = append(dirs, d)
	}
	workdirs.dirs = map[string]bool{}
	workdirs.Unlock()
	for _, d := range dirs {
		_ = os.RemoveAll(d)
	}
}
