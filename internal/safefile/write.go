package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrExists is a path CreateExclusive found taken.
var ErrExists = errors.New("already exists")

// WriteFile replaces path with data atomically: the bytes go to a
// temporary file beside it, which is renamed over path, so a reader (or an
// interrupted amr) sees the old file or the new one, never half of one.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// CreateExclusive writes data to path only when nothing is there: of two
// writers racing for one path exactly one wins, the other gets ErrExists,
// and neither file is ever half-written (a hard link of a finished
// temporary file never replaces its target).
func CreateExclusive(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, ErrExists)
		}
		return err
	}
	return nil
}

// RenameDirExclusive moves the finished directory from to path unless a
// directory with something in it is already there: rename(2) replaces an
// empty directory but never a full one, so of two writers that both
// finished a full directory exactly one lands it, and the other gets
// ErrExists with its own copy left at from.
func RenameDirExclusive(from, path string) error {
	err := os.Rename(from, path)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	return err
}

func writeTemp(path string, data []byte, perm fs.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, perm)
	}
	if werr != nil {
		os.Remove(tmp)
		return "", werr
	}
	return tmp, nil
}
