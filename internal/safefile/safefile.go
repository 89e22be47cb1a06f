// Package safefile owns how amr reads files that come from outside it:
// bundles, sandboxes, the fuzz corpus, the ledger, reserve files and regress
// baselines. A path is read only when it names a regular file (a symlink to
// one is fine), the read never blocks on a FIFO or a device, and it stops at
// a size bound, so a hostile input cannot hang amr or run it out of memory.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
)

// DefaultLimit bounds a read when the caller has no tighter bound: well
// above any artifact amr writes or a sandbox may hold (sim's
// DefaultMaxFileBytes is 64 MiB).
const DefaultLimit = 64 << 20

// MaxDirEntries bounds how many names ReadDir returns.
const MaxDirEntries = 100_000

// ErrNotRegular is a path that names something other than a regular file:
// a FIFO, a device, a socket, a directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrNotDir is a path ReadDir was given that names something other than a
// directory.
var ErrNotDir = errors.New("not a directory")

// ErrTooLarge is a file over the caller's size bound.
var ErrTooLarge = errors.New("file too large")

// kind names a file mode for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	default:
		return "of an unknown kind"
	}
}

// refuse is the error for a path of the wrong kind.
func refuse(path string, sentinel error, m fs.FileMode) error {
	return fmt.Errorf("%s: %w: it is %s", path, sentinel, kind(m))
}

// Open opens path for reading when it is a regular file. The type is
// checked before opening (so no device is ever opened) and again on the
// open descriptor (so a swap between the two is caught); the open itself
// does not wait for a FIFO's writer.
func Open(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, refuse(path, ErrNotRegular, info.Mode())
	}
	f, err := openNonBlocking(path, false)
	if err != nil {
		return nil, err
	}
	got, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !got.Mode().IsRegular() {
		f.Close()
		return nil, refuse(path, ErrNotRegular, got.Mode())
	}
	return f, nil
}

// ReadFile reads a regular file of at most limit bytes (DefaultLimit when
// limit <= 0). A missing file is an error for which errors.Is(err,
// fs.ErrNotExist) holds, as with os.ReadFile.
func ReadFile(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}

// ReadDir lists a directory, sorted by name, as os.ReadDir does, when path
// names a directory (a symlink to one is fine); anything else is refused
// without being opened. An unreadable directory is an error, never an
// empty listing.
func ReadDir(path string) ([]os.DirEntry, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, refuse(path, ErrNotDir, info.Mode())
	}
	f, err := openNonBlocking(path, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(MaxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: reading the directory: %w", path, err)
	}
	if len(entries) > MaxDirEntries {
		return nil, fmt.Errorf("%s: %w: more than %d entries", path, ErrTooLarge, MaxDirEntries)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// CheckDir says whether path is a directory amr can list: an unreadable
// one is refused here rather than read as empty.
func CheckDir(path string) error {
	_, err := ReadDir(path)
	return err
}
