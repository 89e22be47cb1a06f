package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// published holds the published scenarios, one directory each, as they
// were when the binary was built.
//
//go:embed all:l*
var published embed.FS

// PublishedBundle is one published scenario with where it came from.
type PublishedBundle struct {
	Name   string
	Bundle *Bundle
	Source *Source
}

// Published loads every published scenario in name order. A published
// bundle that does not load is a build defect, reported as an error.
func Published() ([]PublishedBundle, error) {
	entries, err := fs.ReadDir(published, ".")
	if err != nil {
		return nil, err
	}
	var out []PublishedBundle
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "l") {
			continue
		}
		b, src, err := LoadFS(published, e.Name())
		if err != nil {
			return nil, fmt.Errorf("published scenario %s: %w", e.Name(), err)
		}
		src.rebase("scenarios/")
		out = append(out, PublishedBundle{Name: e.Name(), Bundle: b, Source: src})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// rebase prefixes every recorded file name, so positions of an embedded
// bundle read as paths in the repository. The prefix is applied when a
// position is asked for (Locate): a clean bundle is never asked.
func (s *Source) rebase(prefix string) {
	s.Path = prefix + s.Path
	s.prefix = prefix + s.prefix
}
