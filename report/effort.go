package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/amr-bench/amr/conform"
)

// The files of a submission directory that are its disclosure, not its
// code.
const (
	SubmissionFile = "submission.json"
	EffortFile     = "effort.json"
	// AdapterDir holds a submission's adapters (spec §6: rule translation,
	// HITL); every other source file is implementation.
	AdapterDir = "adapters"
)

// EffortFormat tags a self-reported effort file.
const EffortFormat = "amr.effort/v1"

// SelfReported is what a submission says of its own effort (spec §6:
// "marked as such wherever published").
type SelfReported struct {
	Format         string   `json:"format"`
	WallClockHours *float64 `json:"wall_clock_hours,omitempty"`
	Notes          string   `json:"notes,omitempty"`
	Source         string   `json:"source,omitempty"`
}

// Submission is what a submission directory discloses and what the harness
// counts in it.
type Submission struct {
	Dir  string `json:"dir"`
	Impl string `json:"impl"`
	// Counted is false for a bare declaration file: no code to count.
	Counted      bool          `json:"counted"`
	ImplLines    int           `json:"impl_lines"`
	AdapterLines int           `json:"adapter_lines"`
	ImplFiles    int           `json:"impl_files"`
	AdapterFiles int           `json:"adapter_files"`
	SelfReported *SelfReported `json:"self_reported,omitempty"`
	classes      []Classification
}

// loadSubmission reads a submission: a directory with submission.json, and
// optionally classes.json and effort.json, beside its code; or a bare
// submission.json, which names the implementation and nothing to count.
func loadSubmission(path string) (*Submission, error) {
	if isFile(path) {
		decl, err := conform.Load(path)
		if err != nil {
			return nil, err
		}
		return &Submission{Dir: path, Impl: decl.Implementation}, nil
	}
	decl, err := conform.Load(filepath.Join(path, SubmissionFile))
	if err != nil {
		return nil, fmt.Errorf("submission %s: %w", path, err)
	}
	s := &Submission{Dir: path, Impl: decl.Implementation, Counted: true}
	if err := s.count(path); err != nil {
		return nil, err
	}
	if p := filepath.Join(path, EffortFile); isFile(p) {
		if s.SelfReported, err = loadEffort(p); err != nil {
			return nil, err
		}
	}
	if p := filepath.Join(path, ClassesFile); isFile(p) {
		if s.classes, err = loadClasses(classSource{path: p, impl: s.Impl}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// count counts the non-blank lines of every text file of the submission,
// mechanically: adapters under adapters/, the rest implementation. The
// disclosure files, hidden entries and installed dependencies are not
// the submission's code.
func (s *Submission) count(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch rel {
		case SubmissionFile, EffortFile, ClassesFile:
			return nil
		}
		n, text, err := countLines(p)
		if err != nil || !text {
			return err
		}
		if strings.HasPrefix(filepath.ToSlash(rel), AdapterDir+"/") {
			s.AdapterLines += n
			s.AdapterFiles++
		} else {
			s.ImplLines += n
			s.ImplFiles++
		}
		return nil
	})
}

// countLines counts a file's non-blank lines; a file with a NUL byte is
// not text and is not counted.
func countLines(path string) (int, bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false, err
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return 0, false, nil
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n, true, sc.Err()
}

// loadEffort reads a self-reported effort file.
func loadEffort(path string) (*SelfReported, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var e SelfReported
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: not an effort file: %w", path, err)
	}
	if e.Format != EffortFormat {
		return nil, fmt.Errorf("%s: format: %q, want %q", path, e.Format, EffortFormat)
	}
	if e.WallClockHours != nil && *e.WallClockHours < 0 {
		return nil, fmt.Errorf("%s: wall_clock_hours: %v is negative", path, *e.WallClockHours)
	}
	if e.Source != "" {
		return nil, fmt.Errorf("%s: source: set by the report, not the file", path)
	}
	e.Source = path
	return &e, nil
}
