package fuzz

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A run folder is what a campaign writes for a counterexample (raw/,
// shrunk/, invalid/): the bundle in both forms beside the run it produced.
// Its bundle.json is the single-JSON form, so reading the folder as a
// directory-form bundle would take that document for the meta file; a
// reader that takes a bundle reads the folder's bundle/ instead.

// FolderBundle returns the bundle directory inside a run folder, and false
// when path is not one.
func FolderBundle(path string) (string, bool) {
	dir := filepath.Join(path, BundleDir)
	info, err := os.Stat(filepath.Join(dir, scenarios.FileBundle))
	if err != nil || info.IsDir() {
		return "", false
	}
	return dir, true
}

// FolderRun is what a run folder's run log says of the run it recorded:
// its seeds (the engine seed it played with, and the campaign and run seeds
// its profile.json names) and the implementation's name.
type FolderRun struct {
	Seeds seeds.Seeds
	Impl  string
}

// ReadFolderRun reads the run a run folder recorded, for a replay that
// shows that run again. It answers false when path is not a run folder, and
// explains (note) when the run log is missing or is of another bundle than
// b.
func ReadFolderRun(path string, b *scenarios.Bundle) (run FolderRun, ok bool, note string) {
	if _, isFolder := FolderBundle(path); !isFolder {
		return FolderRun{}, false, ""
	}
	logPath := filepath.Join(path, sandbox.RunLogFile)
	data, err := safefile.ReadFile(logPath, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return FolderRun{}, false, fmt.Sprintf("%s has no %s: the run seed derives from the bundle", path, sandbox.RunLogFile)
	}
	if err != nil {
		return FolderRun{}, false, err.Error()
	}
	log, err := sandbox.ParseRunLog(data)
	if err == nil && len(log) > 0 && log[0].Kind == sandbox.LogStart {
		if hash, err := b.Hash(); err == nil && log[0].Start().BundleHash != "" && log[0].Start().BundleHash != hash {
			return FolderRun{}, false, fmt.Sprintf("the bundle in %s changed since %s was recorded: the run seed derives from the bundle", path, logPath)
		}
	}
	rec, err := play.ReadRecording(data, b)
	if err != nil {
		return FolderRun{}, false, fmt.Sprintf("%s: %v: the run seed derives from the bundle", logPath, err)
	}
	return FolderRun{Seeds: folderSeeds(path, rec.Seeds), Impl: log[0].Start().Impl}, true, ""
}

// folderSeeds are the recorded seeds with the campaign and run seeds the
// folder's profile.json names, when it names the same engine seed: the run
// log's start record carries only the engine seed, and a replay prints
// every level it knows.
func folderSeeds(path string, recorded seeds.Seeds) seeds.Seeds {
	data, err := safefile.ReadFile(filepath.Join(path, ProfileJSON), 0)
	if err != nil {
		return recorded
	}
	var p ProfileRecord
	if jsondepth.Check(data, 0) != nil || json.Unmarshal(data, &p) != nil || p.Engine == nil || recorded.Engine == nil || *p.Engine != *recorded.Engine {
		return recorded
	}
	return p.Seeds
}
