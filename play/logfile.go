package play

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/amr-bench/amr/sim/sandbox"
)

// logFile is a run log written to disk as the engine makes it and then
// read back for the judge, as amr check reads a kept log: its state edits
// stay in the file and are read again as the checker replays them (D212),
// so neither the play nor the judge holds their text.
type logFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

func createLog(path string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run log: %w", err)
	}
	return &logFile{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// records ends the writing and reads the log back, its state edits left
// in the file, which stays open for them until close.
func (l *logFile) records() ([]sandbox.LogRecord, error) {
	if err := l.w.Flush(); err != nil {
		return nil, fmt.Errorf("run log %s: %w", l.path, err)
	}
	size, err := l.f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("run log %s: %w", l.path, err)
	}
	data := make([]byte, size)
	if _, err := l.f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("run log %s: %w", l.path, err)
	}
	recs, err := sandbox.ParseRunLogAt(data, l.f)
	if err != nil {
		// The engine's own log that does not read back is a harness bug.
		return nil, fmt.Errorf("run log %s does not read back: %w", l.path, err)
	}
	return recs, nil
}

func (l *logFile) close() error { return l.f.Close() }

// discard closes and removes the log of a run that was not played to its
// end: what is kept is whole runs.
func (l *logFile) discard() {
	_ = l.f.Close()
	_ = os.Remove(l.path)
}
