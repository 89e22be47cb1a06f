package sim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ResolveCommand turns a command line given relative to the working
// directory into words a process started in its sandbox directory can run:
// a bare program name is looked up in PATH, and every other word that names
// an existing file or directory relative to the working directory is made
// absolute. Flags (words starting "-") and absolute words stay as given.
func ResolveCommand(line string) ([]string, error) {
	words, err := SplitCommand(line)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(words[0], "/") {
		path, err := exec.LookPath(words[0])
		if err != nil {
			return nil, err
		}
		words[0] = path
	}
	for i, w := range words {
		if filepath.IsAbs(w) || strings.HasPrefix(w, "-") || (i == 0 && !strings.Contains(w, "/")) {
			continue
		}
		if _, err := os.Stat(w); err == nil {
			if abs, err := filepath.Abs(w); err == nil {
				words[i] = abs
			}
		}
	}
	return words, nil
}
