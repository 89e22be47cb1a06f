package sim

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultKeepBytes bounds the copy of a process run's directory that --out
// keeps of each run.
const DefaultKeepBytes = 64 << 20

// RunDirKept is the kept copy of a process run's directory, and what its
// bound left out.
type RunDirKept struct {
	// Dir is the copy, Bytes and Files what it holds.
	Dir   string `json:"dir"`
	Bytes int64  `json:"bytes"`
	Files int    `json:"files"`
	// Limit is the bound of the copy; Cut lists the files it cut short
	// and Left those it left out (and links, never followed). A note
	// beside them, CutNote, says so in the copy itself.
	Limit int64    `json:"limit"`
	Cut   []string `json:"cut,omitempty"`
	Left  []string `json:"left_out,omitempty"`
}

// CutNote is the file of a kept run directory that lists what its bound
// cut or left out; it exists only when something was.
const CutNote = "AMR-CUT.txt"

// keptFile is one file of a run directory to copy.
type keptFile struct {
	rel  string
	size int64
	link bool
}

// KeepRunDir copies a process run's whole directory (the sandbox with
// every file the implementation made, its subdirectories, stdout.log and
// stderr.log) into dst, at most limit bytes. The process's logs are copied
// first, then the sandbox's files from the smallest, so that one huge file
// cannot push out the many a failure is read from; a file that does not
// fit is cut at the bound, and every later one is left out. It does
// nothing for an in-process run, or once the directory is removed.
func (r *Result) KeepRunDir(dst string, limit int64) (*RunDirKept, error) {
	if r.Workdir == "" {
		return nil, nil
	}
	if _, err := os.Stat(r.Workdir); err != nil {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultKeepBytes
	}
	files := runDirFiles(r.Workdir)
	kept := &RunDirKept{Dir: dst, Limit: limit}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.link {
			kept.Left = append(kept.Left, f.rel+" (a link, not followed)")
			continue
		}
		room := limit - kept.Bytes
		if room <= 0 {
			kept.Left = append(kept.Left, fmt.Sprintf("%s (%d bytes)", f.rel, f.size))
			continue
		}
		n, err := copyPrefix(filepath.Join(r.Workdir, f.rel), filepath.Join(dst, f.rel), room)
		if err != nil {
			kept.Left = append(kept.Left, fmt.Sprintf("%s (%v)", f.rel, err))
			continue
		}
		kept.Bytes += n
		kept.Files++
		if n < f.size {
			kept.Cut = append(kept.Cut, fmt.Sprintf("%s (%d of %d bytes)", f.rel, n, f.size))
		}
	}
	if len(kept.Cut)+len(kept.Left) > 0 {
		if err := os.WriteFile(filepath.Join(dst, CutNote), []byte(kept.note()), 0o644); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

func (k *RunDirKept) note() string {
	var b strings.Builder
	fmt.Fprintf(&b, "This copy of the run directory is cut at its bound of %d bytes.\n", k.Limit)
	for _, c := range k.Cut {
		fmt.Fprintf(&b, "cut short: %s\n", c)
	}
	for _, l := range k.Left {
		fmt.Fprintf(&b, "left out:  %s\n", l)
	}
	return b.String()
}

// runDirFiles lists a run directory's regular files and links in copying
// order: the logs beside the sandbox first, then the rest smallest first.
func runDirFiles(root string) []keptFile {
	var files []keptFile
	seen := 0
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if seen++; seen > maxRunDirEntries {
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			files = append(files, keptFile{rel: filepath.ToSlash(rel), link: true})
		case e.Type().IsRegular():
			if info, err := e.Info(); err == nil {
				files = append(files, keptFile{rel: filepath.ToSlash(rel), size: info.Size()})
			}
		}
		return nil
	})
	first := func(f keptFile) bool { return f.rel == StdoutLog || f.rel == StderrLog }
	sort.SliceStable(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if first(a) != first(b) {
			return first(a)
		}
		if a.size != b.size {
			return a.size < b.size
		}
		return a.rel < b.rel
	})
	return files
}

// copyPrefix copies at most limit bytes of a regular file, never through a
// link, and returns how many it copied.
func copyPrefix(src, dst string, limit int64) (int64, error) {
	in, err := os.OpenFile(src, os.O_RDONLY|syscallNoFollow, 0)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, limit))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
