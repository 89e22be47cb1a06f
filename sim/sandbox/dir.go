package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/amr-bench/amr/internal/safefile"
)

// tmpDirName holds Write's temporary files; it is not a valid sandbox name.
const tmpDirName = ".amr-tmp"

// Dir is a Store backed by a real directory, so a person can read every file
// and a process implementation can share it.
type Dir struct {
	Root string
	// MaxFileBytes bounds a file Read returns (safefile.DefaultLimit when
	// zero); a larger file is an error, never a partial read.
	MaxFileBytes int64
}

// OpenDir returns a Store over root, creating it if needed.
func OpenDir(root string) (*Dir, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	return &Dir{Root: root}, nil
}

func (d *Dir) path(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("%w: %q", ErrBadName, name)
	}
	return filepath.Join(d.Root, filepath.FromSlash(name)), nil
}

// Read returns the file, or nil when absent.
func (d *Dir) Read(name string) ([]byte, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, err
	}
	// A sandbox is the implementation's: a FIFO or a device under a
	// sandbox name is refused, never waited on or read without end.
	data, err := safefile.ReadFile(p, d.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Append adds line and a newline to the file.
func (d *Dir) Append(name string, line []byte) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Write replaces the file atomically (write to a temporary file, rename).
func (d *Dir) Write(name string, data []byte) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	// The temporary file lives outside every valid sandbox name, so it can
	// never clobber a private file nor be listed as one.
	tmpDir := filepath.Join(d.Root, tmpDirName)
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(tmpDir, "write-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	os.Remove(tmpDir) // only succeeds once empty: no stray directory is left
	return nil
}

// Names lists the sandbox files present, sorted, with slash separators.
func (d *Dir) Names() []string {
	out, _ := d.List()
	return out
}

// List is Names that says when a directory of the sandbox could not be
// read: an unreadable sandbox is not an empty one.
func (d *Dir) List() ([]string, error) {
	var out []string
	if err := safefile.CheckDir(d.Root); err != nil {
		return nil, err
	}
	var walkErr error
	_ = filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if walkErr == nil {
				walkErr = err
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(d.Root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if ValidName(rel) {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, walkErr
}

// CopyTo writes every file of a store into dir, for keeping an in-memory
// sandbox on disk.
func CopyTo(s Store, dir string) error {
	d, err := OpenDir(dir)
	if err != nil {
		return err
	}
	for _, name := range s.Names() {
		data, err := s.Read(name)
		if err != nil {
			return err
		}
		if err := d.Write(name, data); err != nil {
			return err
		}
	}
	return nil
}
