// Package scaffold owns the responder skeletons that 'amr init' writes: a
// minimal correct implementation per language, small enough to read in one
// sitting, that passes the published scenarios in the step regime, so a
// team starts from green and changes it from there. The skeletons are
// embedded in the binary; a file named NAME.tmpl is written as NAME (a Go
// skeleton's go.mod and sources cannot sit in amr's own module as such).
package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed templates
var templates embed.FS

// Skeleton is one language's skeleton: where it lives among the
// templates, the command that runs it from its directory, and any command
// that must come first (building it).
type Skeleton struct {
	Lang string
	// Build, when set, is run in the directory before Run.
	Build []string
	// Run is the --impl-cmd, relative to the directory.
	Run []string
}

var skeletons = map[string]Skeleton{
	"python": {Lang: "python", Run: []string{"python3", "responder.py"}},
	"node":   {Lang: "node", Run: []string{"node", "responder.mjs"}},
	"go":     {Lang: "go", Build: []string{"go", "build", "-o", "responder", "."}, Run: []string{"./responder"}},
}

// Languages returns the languages there is a skeleton for, sorted.
func Languages() []string {
	out := make([]string, 0, len(skeletons))
	for l := range skeletons {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Lookup returns a language's skeleton.
func Lookup(lang string) (Skeleton, bool) {
	s, ok := skeletons[lang]
	return s, ok
}

// ErrNotEmpty is returned for a directory that already holds something:
// init never mixes a skeleton into someone's files.
var ErrNotEmpty = errors.New("is not empty")

// Files returns the skeleton's files, by the slash-separated name they are
// written under, and their content.
func (s Skeleton) Files() (map[string][]byte, error) {
	base := path.Join("templates", s.Lang)
	out := map[string][]byte{}
	err := fs.WalkDir(templates, base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(p, base+"/"), ".tmpl")
		out[name] = data
		return nil
	})
	return out, err
}

// Write writes the skeleton of lang into dir, which must not exist or be
// empty, and returns the names written, sorted. Refused, it writes nothing.
func Write(dir, lang string) ([]string, error) {
	s, ok := Lookup(lang)
	if !ok {
		return nil, fmt.Errorf("no skeleton for %q (there are: %s)", lang, strings.Join(Languages(), ", "))
	}
	if err := checkEmpty(dir); err != nil {
		return nil, err
	}
	files, err := s.Files()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		mode := os.FileMode(0o644)
		if len(s.Run) > 1 && n == s.Run[len(s.Run)-1] {
			mode = 0o755 // a script can also be run by its #! line
		}
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, files[n], mode); err != nil {
			return nil, fmt.Errorf("writing %s: %w", p, err)
		}
	}
	return names, nil
}

// checkEmpty refuses a dir that is a file or holds anything.
func checkEmpty(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s %w (%d entries): init writes only into a new or empty directory", dir, ErrNotEmpty, len(entries))
	}
	return nil
}
