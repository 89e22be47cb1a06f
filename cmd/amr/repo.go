package main

import (
	"os"
	"path/filepath"

	"github.com/amr-bench/amr/suite"
)

// committedBaseline is the repository's baseline file, found from the
// working directory, as a person there types it, or a usage error saying
// how to name one.
func committedBaseline() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	path, err := suite.CommittedBaseline(wd)
	if err != nil {
		return "", usageErr("%v", err)
	}
	return shownPath(path), nil
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
