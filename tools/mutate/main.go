// Command mutate measures how much of the reference's decision logic the
// fault search guards. It lists mutants of the reference's decision points
// (operators.go), builds each in a scratch copy of the repository with the
// judge beside it (tools/mutate/judge), and has the judge play the mutated
// reference: a fixed number of generated runs of a campaign, then the
// published suite. A mutant is killed by a counterexample, hung when it
// spends the write budget of a step or a run (D125), and otherwise
// survives; a survivor whose artifacts on every run played are byte for
// byte the reference's is shown equivalent on those runs ("same").
//
//	go run ./tools/mutate -runs 500                  # every mutant, a table, then the score
//	go run ./tools/mutate -list                      # the mutants only
//	go run ./tools/mutate -json -runs 500 > m.json   # the table as JSON
//	go run ./tools/mutate -only plan.go:170:,world.go:187:3   # some lines, or one mutant
//
// Verdicts are cached under .amr/mutate/, keyed by the whole tree, the
// mutated file and the judge's budget, so a list run again only judges what
// changed. It is a script, not a test: a mutant costs a build and a
// campaign.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/amr-bench/amr/tools/mutate/judged"
)

// budget is what the judge is asked to play; it is part of every cache key.
type budget struct {
	Runs       int    `json:"runs"`
	Seed       uint64 `json:"seed"`
	Profile    string `json:"profile"`
	SuiteRuns  int    `json:"suite_runs"`
	StepWrites int    `json:"step_writes"`
	RunWrites  int    `json:"run_writes"`
	HangLimit  int    `json:"hang_limit"`
}

func (b budget) args() []string {
	return []string{"-runs", fmt.Sprint(b.Runs), "-seed", fmt.Sprint(b.Seed), "-profile", b.Profile,
		"-suite-runs", fmt.Sprint(b.SuiteRuns), "-step-writes", fmt.Sprint(b.StepWrites),
		"-run-writes", fmt.Sprint(b.RunWrites), "-hang-limit", fmt.Sprint(b.HangLimit)}
}

// verdict is the judge's line (tools/mutate/judge).
type verdict = judged.Verdict

// classify tells the survivors apart against the unmutated reference's
// verdict on the same runs: "same" when every artifact is the reference's
// (D126); "costly" when the artifacts differ and more model calls than the
// reference's are justified by no surprise, the diagnostic that flags the
// zoo's costly implementations; otherwise still "survived".
func classify(v, base verdict) verdict {
	if v.Outcome != "survived" {
		return v
	}
	switch {
	case v.Digest == base.Digest:
		v.Outcome = "same"
	case v.Unattributed > base.Unattributed:
		v.Outcome = "costly"
		v.Detail = fmt.Sprintf("%d model calls no surprise justifies, the reference %d; the first in %s",
			v.Unattributed, base.Unattributed, v.UnattributedRun)
	}
	return v
}

// row is one line of the table.
type row struct {
	N       int     `json:"n"`
	File    string  `json:"file"`
	Line    int     `json:"line"`
	Col     int     `json:"col"`
	Op      string  `json:"op"`
	Verdict verdict `json:"verdict"`
	Cached  bool    `json:"cached"`
}

type config struct {
	files   []string
	b       budget
	jobs    int
	timeout time.Duration
	only    string
	list    bool
	asJSON  bool
	noCache bool
	cached  bool
}

func main() {
	var c config
	files := flag.String("files", strings.Join(defaultFiles, ","), "the reference's files whose decision points are mutated")
	flag.IntVar(&c.b.Runs, "runs", 500, "generated runs each mutant is played for")
	flag.Uint64Var(&c.b.Seed, "seed", 1, "campaign seed")
	flag.StringVar(&c.b.Profile, "profile", "default", "swarm profile preset of the campaign")
	flag.IntVar(&c.b.SuiteRuns, "suite-runs", 5, "scored runs of each published scenario, played after the campaign")
	flag.IntVar(&c.b.StepWrites, "step-writes", 512, "lines one step may write before the mutant is hung")
	flag.IntVar(&c.b.RunWrites, "run-writes", 5000, "lines one run may write before the mutant is hung")
	flag.IntVar(&c.b.HangLimit, "hang-limit", 3, "forced advances in a row that make the mutant hung")
	flag.IntVar(&c.jobs, "j", 2, "mutants built and judged at once")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "wall-clock safety net of one mutant's judge; a mutant that outlasts it is reported as timeout, not judged")
	flag.StringVar(&c.only, "only", "", "judge only the mutants whose \"file:line:col op\" contains one of these comma-separated strings")
	flag.BoolVar(&c.list, "list", false, "list the mutants and stop")
	flag.BoolVar(&c.asJSON, "json", false, "print the table as JSON")
	flag.BoolVar(&c.noCache, "no-cache", false, "judge every mutant again")
	flag.BoolVar(&c.cached, "cached", false, "judge nothing: report the cached verdicts, and the other mutants as unjudged")
	flag.Parse()
	c.files = strings.Split(*files, ",")
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
}

func run(c config, out io.Writer) error {
	all, err := listMutants(c.files)
	if err != nil {
		return err
	}
	var picked []mutant
	for _, m := range all {
		if c.only == "" || matchesAny(m.String(), strings.Split(c.only, ",")) {
			picked = append(picked, m)
		}
	}
	if c.list {
		for i, m := range picked {
			fmt.Fprintf(out, "%3d %s\n", i+1, m)
		}
		fmt.Fprintf(out, "%d mutants\n", len(picked))
		return nil
	}
	tree, err := readTree()
	if err != nil {
		return err
	}
	defer tree.remove()
	j := &judging{c: c, tree: tree, cache: filepath.Join(".amr", "mutate")}
	base, _, err := j.judge(mutant{}, tree.sum, 0)
	if err != nil {
		return err
	}
	if base.Outcome != "survived" {
		return fmt.Errorf("the unmutated reference does not pass its own judge: %s %s %s", base.Outcome, base.Run, base.Detail)
	}
	rows, err := j.all(picked, base)
	if err != nil {
		return err
	}
	s := summarize(rows)
	if c.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Budget    budget  `json:"budget"`
			Reference verdict `json:"reference"`
			Mutants   []row   `json:"mutants"`
			Summary   summary `json:"summary"`
		}{c.b, base, rows, s})
	}
	printTable(out, c.b, base, rows, s)
	return nil
}

// judging builds and judges mutants, in parallel, through the cache.
type judging struct {
	c     config
	tree  *tree
	cache string
}

func (j *judging) all(ms []mutant, base verdict) ([]row, error) {
	rows := make([]row, len(ms))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < max(j.c.jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				m := ms[i]
				v, cached, err := j.judge(m, j.tree.sum, w+1)
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					continue
				}
				v = classify(v, base)
				rows[i] = row{N: i + 1, File: m.file, Line: m.line, Col: m.col, Op: m.op, Verdict: v, Cached: cached}
				if !j.c.asJSON {
					fmt.Fprintf(os.Stderr, "%3d/%d %-36s %s\n", i+1, len(ms), m, v.Outcome)
				}
			}
		}()
	}
	for i := range ms {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return rows, firstErr
}

// judge returns a mutant's verdict (the unmutated tree's for the zero
// mutant), from the cache when it holds one.
func (j *judging) judge(m mutant, treeSum string, worker int) (verdict, bool, error) {
	key := j.key(m)
	path := filepath.Join(j.cache, key+".json")
	if !j.c.noCache {
		if data, err := os.ReadFile(path); err == nil {
			var v verdict
			if json.Unmarshal(data, &v) == nil {
				return v, true, nil
			}
		}
	}
	if j.c.cached {
		return verdict{Outcome: "unjudged"}, false, nil
	}
	v, err := j.play(m, worker)
	if err != nil {
		return verdict{}, false, err
	}
	if v.Outcome != "timeout" {
		data, _ := json.Marshal(v)
		if err := os.MkdirAll(j.cache, 0o755); err == nil {
			_ = os.WriteFile(path, data, 0o644)
		}
	}
	return v, false, nil
}

func (j *judging) key(m mutant) string {
	h := sha256.New()
	b, _ := json.Marshal(j.c.b)
	fmt.Fprintf(h, "tree %s\nbudget %s\nfile %s\n", j.tree.sum, b, m.file)
	h.Write(m.src)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// play writes the mutant into a worker's scratch copy, builds the judge
// there and runs it.
func (j *judging) play(m mutant, worker int) (verdict, error) {
	dir, err := j.tree.scratch(worker)
	if err != nil {
		return verdict{}, err
	}
	if m.file != "" {
		path := filepath.Join(dir, m.file)
		if err := os.WriteFile(path, m.src, 0o644); err != nil {
			return verdict{}, err
		}
		defer os.WriteFile(path, j.tree.files[m.file], 0o644)
	}
	bin := filepath.Join(dir, "amr-mutant-judge")
	// -trimpath keys the build cache by package, not by scratch directory,
	// so the workers share every package the mutant does not change; a
	// binary without symbols links faster, and it is run once.
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./tools/mutate/judge")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return verdict{Outcome: "stillborn", Detail: firstLine(string(out))}, nil
	}
	cmd := exec.Command(bin, j.c.b.args()...)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return verdict{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(j.c.timeout):
		_ = cmd.Process.Kill()
		<-done
		return verdict{Outcome: "timeout", Detail: fmt.Sprintf("no verdict within %s of wall clock", j.c.timeout)}, nil
	}
	if err != nil {
		// A mutant that makes the judge itself fail (a panic outside a
		// step, an error the harness reports) is told apart from a kill.
		return verdict{Outcome: "error", Detail: firstLine(stderr.String() + " " + err.Error())}, nil
	}
	var v verdict
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout.String())), &v); err != nil {
		return verdict{}, fmt.Errorf("%s: the judge printed %q: %w", m, stdout.String(), err)
	}
	return v, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// summary counts the outcomes and gives the score.
type summary struct {
	Mutants  int            `json:"mutants"`
	Outcomes map[string]int `json:"outcomes"`
	// Judged are the mutants with a verdict: every outcome but stillborn
	// and timeout. Killed counts killed, hung and invalid.
	Judged    int      `json:"judged"`
	Killed    int      `json:"killed"`
	Same      int      `json:"same"`
	Survived  int      `json:"survived"`
	RawRate   float64  `json:"raw_kill_rate"`
	Survivors []string `json:"survivors"`
}

func summarize(rows []row) summary {
	s := summary{Mutants: len(rows), Outcomes: map[string]int{}}
	for _, r := range rows {
		o := r.Verdict.Outcome
		s.Outcomes[o]++
		switch o {
		case "killed", "hung", "invalid":
			s.Killed++
		case "same":
			s.Same++
		case "survived", "costly", "error":
			s.Survived++
			s.Survivors = append(s.Survivors, fmt.Sprintf("%s:%d:%d %s", r.File, r.Line, r.Col, r.Op))
		}
	}
	s.Judged = s.Killed + s.Same + s.Survived
	if s.Judged > 0 {
		s.RawRate = 100 * float64(s.Killed) / float64(s.Judged)
	}
	return s
}

func printTable(out io.Writer, b budget, base verdict, rows []row, s summary) {
	fmt.Fprintf(out, "budget: %d generated runs (campaign seed %d, profile %s), then %d scored runs of each published scenario; hung past %d lines a step, %d a run, or %d forced advances in a row\n",
		b.Runs, b.Seed, b.Profile, b.SuiteRuns, b.StepWrites, b.RunWrites, b.HangLimit)
	fmt.Fprintf(out, "reference: %s, at most %d lines a step and %d a run\n\n", base.Outcome, base.MaxStepWrites, base.MaxRunWrites)
	fmt.Fprintf(out, "%3s  %-24s %-28s %-10s %6s  %s\n", "#", "file:line", "operator", "outcome", "runs", "detail")
	for _, r := range rows {
		v := r.Verdict
		fmt.Fprintf(out, "%3d  %-24s %-28s %-10s %6s  %s\n", r.N, fmt.Sprintf("%s:%d:%d", strings.TrimPrefix(r.File, "examples/"), r.Line, r.Col),
			r.Op, v.Outcome, runsToKill(v), detail(v))
	}
	keys := make([]string, 0, len(s.Outcomes))
	for k := range s.Outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(out, "\nmutants: %d;", s.Mutants)
	for _, k := range keys {
		fmt.Fprintf(out, " %s: %d;", k, s.Outcomes[k])
	}
	fmt.Fprintf(out, "\njudged %d: killed %d (killed, hung or invalid), same artifacts as the reference %d, survived with other artifacts %d\n",
		s.Judged, s.Killed, s.Same, s.Survived)
	if s.Judged > 0 {
		fmt.Fprintf(out, "raw kill rate %.1f%% of judged; the same-artifact survivors and the survivors classified by hand decide the rate over non-equivalent mutants (docs/fuzz.md)\n", s.RawRate)
	}
	for _, sv := range s.Survivors {
		fmt.Fprintln(out, "survivor:", sv)
	}
}

// runsToKill is the generated runs played up to the kill, "-" for a
// survivor or a kill by the suite alone.
func runsToKill(v verdict) string {
	switch {
	case v.By == "fuzz":
		return fmt.Sprint(v.Runs)
	case v.Outcome == "stillborn" || v.Outcome == "timeout":
		return ""
	}
	return "-"
}

func detail(v verdict) string {
	var parts []string
	if v.By == "suite" {
		parts = append(parts, "by the suite: "+v.Run)
	}
	if len(v.Invariants) > 0 {
		parts = append(parts, strings.Join(v.Invariants, ","))
	}
	if v.Detail != "" {
		parts = append(parts, v.Detail)
	}
	if v.Suite != "" && v.By != "suite" {
		parts = append(parts, "suite "+v.Suite)
	}
	return strings.Join(parts, "; ")
}

// tree is the repository's tracked files as they are in the work tree.
type tree struct {
	files map[string][]byte
	names []string
	sum   string
	mu    sync.Mutex
	dirs  map[int]string
}

func readTree() (*tree, error) {
	ls, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		return nil, fmt.Errorf("listing the repository's files: %w", err)
	}
	t := &tree{files: map[string][]byte{}, dirs: map[int]string{}}
	h := sha256.New()
	for _, name := range strings.Fields(string(ls)) {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // a tracked file removed in the work tree
		}
		t.files[name] = data
		t.names = append(t.names, name)
		if !judgedFile(name) {
			continue
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	t.sum = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// scratch is a worker's copy of the tree, made on first use: workers
// build at once, so each needs a tree of its own.
func (t *tree) scratch(worker int) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.dirs[worker]; ok {
		return d, nil
	}
	dir, err := os.MkdirTemp("", "amr-mutate-")
	if err != nil {
		return "", err
	}
	for _, name := range t.names {
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, t.files[name], 0o644); err != nil {
			return "", err
		}
	}
	t.dirs[worker] = dir
	return dir, nil
}

// remove deletes the scratch copies.
func (t *tree) remove() {
	for _, d := range t.dirs {
		_ = os.RemoveAll(d)
	}
}

// judgedFile reports whether a file can change a verdict, so that it is part
// of the cache key: the tool's own listing and printing, tests, test data
// and prose cannot, since none is in the judge's binary.
func judgedFile(name string) bool {
	dir, file := filepath.Split(name)
	return dir != "tools/mutate/" && !strings.HasSuffix(file, ".md") && !strings.HasSuffix(file, "_test.go") &&
		!strings.Contains("/"+dir, "/testdata/")
}

func matchesAny(s string, parts []string) bool {
	for _, p := range parts {
		if p != "" && strings.Contains(s, p) {
			return true
		}
	}
	return false
}
