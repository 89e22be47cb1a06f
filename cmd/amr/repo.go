package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// modulePath is the module the amr repository's go.mod declares.
const modulePath = "github.com/amr-bench/amr"

// repoRoot is the amr repository holding dir: the nearest directory at or
// above it whose go.mod declares modulePath. The baseline and the published
// scenarios live there, whatever directory a command runs in.
func repoRoot(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; {
		if declaresModule(filepath.Join(d, "go.mod")) {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func declaresModule(gomod string) bool {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == modulePath
		}
	}
	return false
}

// committedBaseline is the repository's baseline file, found from the
// working directory, or an error saying how to name one.
func committedBaseline() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, ok := repoRoot(wd)
	if !ok {
		return "", usageErr("%s is not inside the amr repository (no go.mod of %s at or above it), so there is no committed baseline: run amr regress in the repository, or name a baseline with --baseline FILE",
			wd, modulePath)
	}
	return shownPath(filepath.Join(root, defaultBaseline)), nil
}

// shownPath is path as a person in the working directory types it:
// relative when that is shorter.
func shownPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && len(rel) < len(abs) {
		return rel
	}
	return abs
}

// publishedSet is the repository whose published scenarios a --scenarios
// directory is: the root holding it as its scenarios/ folder. Scenarios
// promoted anywhere else are not embedded by any build.
func publishedSet(scenariosDir string) (string, error) {
	abs, err := filepath.Abs(scenariosDir)
	if err != nil {
		return "", err
	}
	root, ok := repoRoot(abs)
	if !ok || filepath.Join(root, "scenarios") != abs {
		return "", fmt.Errorf("%s is not the scenarios/ folder of the amr repository", scenariosDir)
	}
	return root, nil
}
