package fuzz

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
)

// CorpusEntry is one kept failing bundle.
type CorpusEntry struct {
	Path   string
	Bundle *scenarios.Bundle
}

// DefaultCorpusDir is where failing bundles of an implementation are kept
// unless told otherwise.
func DefaultCorpusDir(impl string) string { return filepath.Join(".amr", "corpus", pathName(impl)) }

// pathName makes an implementation name (a process's command line, say)
// usable as one path element.
func pathName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if s := strings.Trim(b.String(), "."); s != "" {
		return s
	}
	return "impl"
}

// LoadCorpus reads every *.json bundle of dir, in name order. A missing
// directory is an empty corpus. A file that does not load or validate is
// skipped and reported in the returned problems.
func LoadCorpus(dir string) ([]CorpusEntry, []error) {
	entries, err := safefile.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("corpus %s: %w", dir, err)}
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []CorpusEntry
	var problems []error
	for _, name := range names {
		path := filepath.Join(dir, name)
		b, src, err := scenarios.Load(path)
		if err != nil {
			problems = append(problems, fmt.Errorf("corpus %s: %w", path, err))
			continue
		}
		if errs := scenarios.Validate(b, src).Errors(); len(errs) > 0 {
			problems = append(problems, fmt.Errorf("corpus %s: invalid bundle:\n%s", path, errs.Error()))
			continue
		}
		out = append(out, CorpusEntry{Path: path, Bundle: b})
	}
	return out, problems
}

// SaveToCorpus keeps a failing bundle in dir in its single-JSON form, named
// by its canonical hash. added is false when it was already there.
func SaveToCorpus(dir string, b *scenarios.Bundle) (path string, added bool, err error) {
	hash, err := b.Hash()
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, strings.TrimPrefix(hash, scenarios.HashPrefix)+".json")
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	if err := scenarios.SaveJSON(b, path); err != nil {
		return "", false, err
	}
	return path, true, nil
}

// OriginRunSeed recovers the run seed of a bundle a campaign generated (or one
// shrunk or promoted from it, which keeps the provenance), so a replay meets
// the engine seed the failure was found with. ok is false for other
// bundles; they replay with the seed `amr run` derives from their name.
func OriginRunSeed(b *scenarios.Bundle) (seed uint64, ok bool) {
	o := b.Meta.Origin
	if o == nil || o.CampaignSeed == "" || o.Run == "" {
		return 0, false
	}
	campaign, err1 := strconv.ParseUint(o.CampaignSeed, 10, 64)
	run, err2 := strconv.Atoi(o.Run)
	if err1 != nil || err2 != nil || run < 0 {
		return 0, false
	}
	return seeds.Run(campaign, run), true
}
