package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A run folder is what amr fuzz writes for a counterexample (raw/, shrunk/,
// invalid/): the bundle in both forms beside the run it produced. Its
// bundle.json is the single-JSON form, so reading the folder as a
// directory-form bundle would take that document for the meta file; every
// command that takes a BUNDLE reads the folder's bundle/ instead.

// runFolderBundle returns the bundle directory inside a run folder, and
// false when path is not one.
func runFolderBundle(path string) (string, bool) {
	dir := filepath.Join(path, faults.BundleDir)
	info, err := os.Stat(filepath.Join(dir, scenarios.FileBundle))
	if err != nil || info.IsDir() {
		return "", false
	}
	return dir, true
}

// recordedRun is what a run folder's run log says of the run it recorded:
// its engine seed and the implementation's name.
type recordedRun struct {
	seed uint64
	impl string
}

// readRecordedRun reads the run a run folder recorded, for a replay that
// shows that run again. It answers false when path is not a run folder, and
// explains (note) when the run log is missing or is of another bundle than
// b.
func readRecordedRun(path string, b *scenarios.Bundle) (run recordedRun, ok bool, note string) {
	if _, isFolder := runFolderBundle(path); !isFolder {
		return recordedRun{}, false, ""
	}
	logPath := filepath.Join(path, sandbox.RunLogFile)
	data, err := os.ReadFile(logPath)
	if errors.Is(err, fs.ErrNotExist) {
		return recordedRun{}, false, fmt.Sprintf("%s has no %s: the run seed derives from the bundle", path, sandbox.RunLogFile)
	}
	if err != nil {
		return recordedRun{}, false, err.Error()
	}
	log, err := sandbox.ParseRunLog(data)
	if err != nil || len(log) == 0 || log[0].Kind != sandbox.LogStart || log[0].Seed == nil {
		return recordedRun{}, false, fmt.Sprintf("%s does not start with a start record carrying the seed: the run seed derives from the bundle", logPath)
	}
	hash, err := reserve.BundleHash(b)
	if err != nil {
		return recordedRun{}, false, err.Error()
	}
	if h := log[0].BundleHash; h != "" && h != hash {
		return recordedRun{}, false, fmt.Sprintf("the bundle in %s changed since %s was recorded: the run seed derives from the bundle", path, logPath)
	}
	return recordedRun{seed: *log[0].Seed, impl: log[0].Impl}, true, ""
}
