package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/timeline"
)

// Diff is where two runs' artifacts first differ: the same bundle played
// by two implementations or from two seeds.
type Diff struct {
	A     string     `json:"a"`
	B     string     `json:"b"`
	Pairs []DiffPair `json:"pairs"`
	// OnlyA and OnlyB are runs one side kept and the other did not.
	OnlyA []string `json:"only_a"`
	OnlyB []string `json:"only_b"`
	// Same is true when every paired run's artifacts are byte-identical
	// and no run is on one side only.
	Same bool `json:"same"`
}

// DiffPair compares one run of each side.
type DiffPair struct {
	// Key is the run's place in its folder ("l2-govern/run-1", "shrunk"),
	// empty for two lone run folders.
	Key  string `json:"key"`
	A    string `json:"a"`
	B    string `json:"b"`
	RunA string `json:"run_a"`
	RunB string `json:"run_b"`
	// Files compares every artifact either run kept, by name.
	Files []FileDiff `json:"files"`
	// Timeline is the first entry at which the two timelines part, nil
	// when they never do.
	Timeline *EntryDiff `json:"timeline,omitempty"`
	Same     bool       `json:"same"`
}

// FileDiff is one artifact of both runs.
type FileDiff struct {
	File string `json:"file"`
	Same bool   `json:"same"`
	// Line is the first line (from 1) where the two differ, 0 when the
	// files are the same; A and B are that line on each side, and
	// Missing names the side that has no such line or no such file.
	Line    int    `json:"line,omitempty"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
	Missing string `json:"missing,omitempty"`
	LinesA  int    `json:"lines_a"`
	LinesB  int    `json:"lines_b"`
}

// EntryDiff is the first timeline entry that differs.
type EntryDiff struct {
	Index int             `json:"index"`
	Tick  int             `json:"tick"`
	A     *timeline.Entry `json:"a,omitempty"`
	B     *timeline.Entry `json:"b,omitempty"`
}

// BuildDiff compares two run folders, two amr run --out folders (run by
// run, paired by scenario and run number) or two counterexample folders
// (raw with raw, shrunk with shrunk), and returns a page that shows the
// comparison beside both sides' runs. Of opts only MaxFileBytes applies.
func BuildDiff(a, b string, opts Options) (*Page, error) {
	runsA, err := runsOf(a)
	if err != nil {
		return nil, err
	}
	runsB, err := runsOf(b)
	if err != nil {
		return nil, err
	}
	p := &Page{Format: PageFormat, Lanes: Lanes, Sources: []string{a, b}, Results: []Result{}, Runs: []Run{},
		Counterexamples: []Counterexample{}, Submissions: []*Submission{}, Failures: []Failure{},
		Unmatched: []Classification{}, Scoreboard: Scoreboard{Levels: []string{}, Rows: []Row{}}, maxFileBytes: opts.MaxFileBytes}
	d := &Diff{A: a, B: b, Pairs: []DiffPair{}, OnlyA: []string{}, OnlyB: []string{}}
	if len(runsA) == 1 && len(runsB) == 1 {
		for k := range runsA {
			runsA = map[string]string{"": runsA[k]}
		}
		for k := range runsB {
			runsB = map[string]string{"": runsB[k]}
		}
	}
	for _, key := range sortedKeys(runsA) {
		if _, ok := runsB[key]; !ok {
			d.OnlyA = append(d.OnlyA, key)
			continue
		}
		pair, err := p.diffPair(key, runsA[key], runsB[key])
		if err != nil {
			return nil, err
		}
		d.Pairs = append(d.Pairs, pair)
	}
	for _, key := range sortedKeys(runsB) {
		if _, ok := runsA[key]; !ok {
			d.OnlyB = append(d.OnlyB, key)
		}
	}
	d.Same = len(d.OnlyA) == 0 && len(d.OnlyB) == 0
	for _, pair := range d.Pairs {
		d.Same = d.Same && pair.Same
	}
	p.Diff = d
	return p, nil
}

// runsOf lists the run folders of a path by their key.
func runsOf(path string) (map[string]string, error) {
	out := map[string]string{}
	switch {
	case isRunFolder(path):
		out[""] = path
	case isRunFolder(filepath.Join(path, fuzz.RawDir)) || isRunFolder(filepath.Join(path, fuzz.ShrunkDir)):
		for _, side := range []string{fuzz.RawDir, fuzz.ShrunkDir} {
			if isRunFolder(filepath.Join(path, side)) {
				out[side] = filepath.Join(path, side)
			}
		}
	case isFile(filepath.Join(path, reportFile)):
		runs, err := filepath.Glob(filepath.Join(path, "*", "run-*"))
		if err != nil {
			return nil, err
		}
		for _, dir := range runs {
			if isRunFolder(dir) {
				rel, _ := filepath.Rel(path, dir)
				out[filepath.ToSlash(rel)] = dir
			}
		}
	default:
		return nil, fmt.Errorf("%s: neither a run folder, a counterexample folder nor an amr run --out folder", path)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: keeps no run", path)
	}
	return out, nil
}

// diffPair compares two runs and adds both to the page.
func (p *Page) diffPair(key, a, b string) (DiffPair, error) {
	fa, err := readRunFolder(a, nil, p.maxFileBytes)
	if err != nil {
		return DiffPair{}, err
	}
	fb, err := readRunFolder(b, nil, p.maxFileBytes)
	if err != nil {
		return DiffPair{}, err
	}
	pair := DiffPair{Key: key, A: a, B: b, Same: true}
	pair.RunA = p.addRun("A: "+runLabel(fa, a), fa)
	pair.RunB = p.addRun("B: "+runLabel(fb, b), fb)
	for _, name := range artifactNames(a, b) {
		fd, err := diffFile(name, filepath.Join(a, name), filepath.Join(b, name))
		if err != nil {
			return DiffPair{}, err
		}
		pair.Same = pair.Same && fd.Same
		pair.Files = append(pair.Files, fd)
	}
	ra, rb := p.Runs[len(p.Runs)-2], p.Runs[len(p.Runs)-1]
	pair.Timeline = firstEntryDiff(ra.Timeline.Entries, rb.Timeline.Entries)
	return pair, nil
}

// artifactNames are the files either run folder kept: the sandbox's,
// then the run log and the verdict.
func artifactNames(a, b string) []string {
	seen := map[string]bool{}
	for _, dir := range []string{a, b} {
		entries, _ := os.ReadDir(filepath.Join(dir, sandboxDir))
		for _, e := range entries {
			if !e.IsDir() {
				seen[sandboxDir+"/"+e.Name()] = true
			}
		}
	}
	names := sortedKeys(seen)
	return append(names, sandbox.RunLogFile, verdictFile)
}

// diffFile finds the first line where two files differ.
func diffFile(name, a, b string) (FileDiff, error) {
	da, errA := os.ReadFile(a)
	db, errB := os.ReadFile(b)
	fd := FileDiff{File: name}
	switch {
	case errA != nil && !os.IsNotExist(errA):
		return fd, errA
	case errB != nil && !os.IsNotExist(errB):
		return fd, errB
	case errA != nil && errB != nil:
		fd.Same = true
		return fd, nil
	case errA != nil:
		lb := splitLines(db)
		fd.Missing, fd.Line, fd.LinesB = "A", 1, len(lb)
		if len(lb) > 0 {
			fd.B = lb[0]
		}
		return fd, nil
	case errB != nil:
		la := splitLines(da)
		fd.Missing, fd.Line, fd.LinesA = "B", 1, len(la)
		if len(la) > 0 {
			fd.A = la[0]
		}
		return fd, nil
	}
	la, lb := splitLines(da), splitLines(db)
	fd.LinesA, fd.LinesB = len(la), len(lb)
	if bytes.Equal(da, db) {
		fd.Same = true
		return fd, nil
	}
	for i := 0; ; i++ {
		switch {
		case i == len(la) && i == len(lb):
			// Same lines, different bytes: a final newline.
			fd.Line = max(i, 1)
			return fd, nil
		case i == len(la):
			fd.Line, fd.Missing, fd.B = i+1, "A", lb[i]
			return fd, nil
		case i == len(lb):
			fd.Line, fd.Missing, fd.A = i+1, "B", la[i]
			return fd, nil
		case la[i] != lb[i]:
			fd.Line, fd.A, fd.B = i+1, la[i], lb[i]
			return fd, nil
		}
	}
}

func splitLines(data []byte) []string {
	data = bytes.TrimSuffix(data, []byte("\n"))
	if len(data) == 0 {
		return nil
	}
	return strings.Split(string(data), "\n")
}

// firstEntryDiff is the first place two timelines part.
func firstEntryDiff(a, b []timeline.Entry) *EntryDiff {
	for i := 0; i < len(a) || i < len(b); i++ {
		var ea, eb *timeline.Entry
		if i < len(a) {
			ea = &a[i]
		}
		if i < len(b) {
			eb = &b[i]
		}
		if ea != nil && eb != nil && *ea == *eb {
			continue
		}
		d := &EntryDiff{Index: i, A: ea, B: eb}
		switch {
		case ea != nil && eb != nil:
			d.Tick = min(ea.Tick, eb.Tick)
		case ea != nil:
			d.Tick = ea.Tick
		default:
			d.Tick = eb.Tick
		}
		return d
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
