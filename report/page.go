package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/suite"
)

// PageFormat tags the data a report page embeds.
const PageFormat = "amr.report/v1"

// Page is everything a report shows. The HTML embeds it and renders from
// it; --json prints it.
type Page struct {
	Format string `json:"format"`
	// Lanes are the rows of every run's timeline, top to bottom.
	Lanes []string `json:"lanes"`
	// Sources are the paths read, in the order given.
	Sources []string `json:"sources"`
	// Results are the scenario results read, one per report.json result,
	// in the order read: the rows behind the scoreboard.
	Results    []Result   `json:"results"`
	Scoreboard Scoreboard `json:"scoreboard"`
	Failures   []Failure  `json:"failures"`
	// Unmatched are classifications that name no FAIL of the reports.
	Unmatched       []Classification `json:"unmatched_classifications"`
	Submissions     []*Submission    `json:"submissions"`
	Counterexamples []Counterexample `json:"counterexamples"`
	Runs            []Run            `json:"runs"`
	Diff            *Diff            `json:"diff,omitempty"`

	allRuns bool
	// maxFileBytes bounds a sandbox file or run log read (Options).
	maxFileBytes int64
}

// Result is one scenario's result for one implementation, as a report.json
// holds it, in short.
type Result struct {
	Impl     string            `json:"impl"`
	Scenario string            `json:"scenario"`
	TopLevel int               `json:"top_level"`
	Levels   map[string]string `json:"levels"`
	Origin   string            `json:"origin"`
	Runs     int               `json:"runs"`
	Forced   int               `json:"forced_advances"`
	// Violations counts the violations of all its runs.
	Violations int    `json:"violations"`
	Invalid    bool   `json:"invalid"`
	RunSeed    string `json:"run_seed,omitempty"`
	Source     string `json:"source"`
}

func newResult(r *suite.Report, source string) Result {
	res := Result{Impl: r.Impl, Scenario: r.Scenario, TopLevel: r.TopLevel, Levels: map[string]string{}, Origin: r.Origin,
		Runs: len(r.Runs), Forced: forcedOf(r), Invalid: r.Invalid, Source: source}
	for _, name := range suite.LevelNames {
		res.Levels[name] = r.Status(name)
	}
	for _, run := range r.Runs {
		res.Violations += len(run.Violations)
	}
	if r.Seeds.Run != nil {
		res.RunSeed = r.Seeds.Run.String()
	}
	return res
}

// Options are the files a report reads besides its sources.
type Options struct {
	// Submissions are submission directories (or bare submission.json
	// files): effort context and disclosed failure classes.
	Submissions []string
	// Overrides are classification files whose every entry is justified.
	Overrides []string
	// AllRuns shows every kept run of a report; by default a scenario
	// shows its first run and every run that failed or was invalid, so
	// every violation is on the page without every passing repeat.
	AllRuns bool
	// MaxFileBytes bounds each sandbox file and run log a run folder may
	// hold (safefile.DefaultLimit when <= 0): a folder may come from
	// anyone, and a run of 10^5 messages keeps files past the default.
	MaxFileBytes int64
}

// Build reads every source: a report.json (or a folder holding one, as
// amr run --out leaves it, whose kept runs are read too), a counterexample
// folder (raw/ and shrunk/, as amr fuzz --out leaves it), or one run
// folder (sandbox/ and run.jsonl, as amr replay --out leaves it).
func Build(sources []string, opts Options) (*Page, error) {
	p := &Page{Format: PageFormat, Lanes: Lanes, Sources: sources, Results: []Result{}, Runs: []Run{},
		Counterexamples: []Counterexample{}, Submissions: []*Submission{}}
	p.allRuns, p.maxFileBytes = opts.AllRuns, opts.MaxFileBytes
	var results []result
	for _, src := range sources {
		rs, err := p.read(src)
		if err != nil {
			return nil, err
		}
		results = append(results, rs...)
	}
	subs := map[string]*Submission{}
	var disclosed, overrides []sourced
	for _, path := range opts.Submissions {
		s, err := loadSubmission(path)
		if err != nil {
			return nil, err
		}
		if prev, dup := subs[s.Impl]; dup {
			return nil, fmt.Errorf("%s: a second submission for %s (the first is %s)", path, s.Impl, prev.Dir)
		}
		subs[s.Impl] = s
		p.Submissions = append(p.Submissions, s)
		disclosed = append(disclosed, sourcedAll(s.classes, "disclosure", filepath.Join(path, ClassesFile))...)
	}
	for _, path := range opts.Overrides {
		list, err := loadClasses(classSource{path: path, override: true})
		if err != nil {
			return nil, err
		}
		overrides = append(overrides, sourcedAll(list, "override", path)...)
	}
	p.Failures, p.Unmatched = classify(results, disclosed, overrides)
	p.Scoreboard = buildScoreboard(results, p.Failures, subs)
	return p, nil
}

// read reads one source into the page and returns its scored results.
func (p *Page) read(src string) ([]result, error) {
	switch {
	case isFile(src):
		return p.readReport(src, filepath.Dir(src))
	case isFile(filepath.Join(src, reportFile)):
		return p.readReport(filepath.Join(src, reportFile), src)
	case isRunFolder(filepath.Join(src, fuzz.ShrunkDir)) || isRunFolder(filepath.Join(src, fuzz.RawDir)):
		return nil, p.readCounterexample(src)
	case isRunFolder(src):
		f, err := readRunFolder(src, nil, p.maxFileBytes)
		if err != nil {
			return nil, err
		}
		p.addRun(runLabel(f, filepath.Base(src)), f)
		return nil, nil
	case isDir(src) || isFile(src):
		return nil, fmt.Errorf("%s: neither a report.json, a folder with one (amr run --out), a counterexample folder (amr fuzz --out) nor a run folder (amr replay --out)", src)
	}
	_, err := os.Stat(src)
	return nil, err
}

const reportFile = "report.json"

// reportDoc is the part of amr run --json (and report.json) a report reads.
type reportDoc struct {
	Impl    string          `json:"impl"`
	Results []*suite.Report `json:"results"`
}

// readReport reads a report.json and the runs kept beside it, in
// scenario and run order.
func (p *Page) readReport(path, dir string) ([]result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc reportDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a run report: %w", path, err)
	}
	if len(doc.Results) == 0 {
		return nil, fmt.Errorf("%s: results: a run report has at least one result", path)
	}
	var out []result
	for i, r := range doc.Results {
		if r == nil || r.Scenario == "" {
			return nil, fmt.Errorf("%s: results[%d].scenario: required", path, i)
		}
		if r.Impl == "" {
			r.Impl = doc.Impl
		}
		out = append(out, result{report: r, source: path})
		p.Results = append(p.Results, newResult(r, path))
		known := published(r.Scenario, r.BundleHash)
		for k, run := range r.Runs {
			runDir := filepath.Join(dir, r.Scenario, fmt.Sprintf("run-%d", run.Run))
			if !isRunFolder(runDir) || !(p.allRuns || k == 0 || len(run.Violations) > 0 || run.Invalid) {
				continue
			}
			f, err := readRunFolder(runDir, known, p.maxFileBytes)
			if err != nil {
				return nil, err
			}
			p.addRun(fmt.Sprintf("%s run %d (%s)", r.Scenario, run.Run, r.Impl), f)
		}
	}
	return out, nil
}

// addRun adds a run view and returns its id.
func (p *Page) addRun(label string, f *runFolder) string {
	id := fmt.Sprintf("run-%d", len(p.Runs)+1)
	p.Runs = append(p.Runs, buildRun(id, label, f))
	return id
}

// runLabel names a lone run folder by its run log: scenario and
// implementation.
func runLabel(f *runFolder, fallback string) string {
	if len(f.log) == 0 || f.log[0].Start().Bundle == "" {
		return fallback
	}
	label := f.log[0].Start().Bundle
	if f.log[0].Start().Impl != "" {
		label += " (" + f.log[0].Start().Impl + ")"
	}
	return label
}

// Counterexample is a fuzz counterexample folder: the run as found and its
// shrunk form, side by side, with the commands that play it again.
type Counterexample struct {
	Dir    string          `json:"dir"`
	Impl   string          `json:"impl"`
	Raw    *CxSide         `json:"raw,omitempty"`
	Shrunk *CxSide         `json:"shrunk,omitempty"`
	Shrink json.RawMessage `json:"shrink,omitempty"`
	// Replay are the commands that show the counterexample again.
	Replay []string `json:"replay"`
}

// CxSide is one side of a counterexample.
type CxSide struct {
	RunID string `json:"run_id"`
	// Bundle is the side's bundle.json, as kept.
	Bundle     string   `json:"bundle"`
	Events     int      `json:"events"`
	Invariants []string `json:"invariants"`
	RunSeed    string   `json:"run_seed,omitempty"`
}

// readCounterexample reads raw/ and shrunk/ of a counterexample folder.
func (p *Page) readCounterexample(dir string) error {
	cx := Counterexample{Dir: dir, Replay: []string{}}
	for _, side := range []string{fuzz.RawDir, fuzz.ShrunkDir} {
		sub := filepath.Join(dir, side)
		if !isRunFolder(sub) {
			continue
		}
		f, err := readRunFolder(sub, nil, p.maxFileBytes)
		if err != nil {
			return err
		}
		s, err := cxSide(sub, f)
		if err != nil {
			return err
		}
		if len(f.log) > 0 {
			cx.Impl = f.log[0].Start().Impl
		}
		s.RunID = p.addRun(fmt.Sprintf("%s: %s", side, runLabel(f, side)), f)
		if side == fuzz.RawDir {
			cx.Raw = s
		} else {
			cx.Shrunk = s
			if data, err := os.ReadFile(filepath.Join(sub, fuzz.ShrinkJSON)); err == nil {
				var buf bytes.Buffer
				if json.Compact(&buf, data) == nil {
					cx.Shrink = buf.Bytes()
				}
			}
		}
	}
	cx.Replay = replayCommands(dir, cx)
	p.Counterexamples = append(p.Counterexamples, cx)
	return nil
}

// cxSide reads what the page shows of one side.
func cxSide(dir string, f *runFolder) (*CxSide, error) {
	data, err := os.ReadFile(filepath.Join(dir, "bundle.json"))
	if err != nil {
		return nil, err
	}
	s := &CxSide{Bundle: string(data), Invariants: []string{}}
	if f.bundle != nil {
		s.Events = len(f.bundle.Inbox) + len(f.bundle.Approvals) + len(f.bundle.Signals) + len(f.bundle.Faults)
	}
	seen := map[string]bool{}
	for _, v := range f.verdict.Violations {
		if !seen[v.Invariant] {
			seen[v.Invariant] = true
			s.Invariants = append(s.Invariants, v.Invariant)
		}
	}
	sort.Strings(s.Invariants)
	var prof fuzz.ProfileRecord
	if data, err := os.ReadFile(filepath.Join(dir, fuzz.ProfileJSON)); err == nil && json.Unmarshal(data, &prof) == nil && prof.Seeds.Run != nil {
		s.RunSeed = prof.Seeds.Run.String()
	}
	return s, nil
}

// replayCommands are the commands that show a counterexample again: its
// timeline from the recorded run, and its run under the recorded seed.
func replayCommands(dir string, cx Counterexample) []string {
	side, sub := cx.Shrunk, fuzz.ShrunkDir
	if side == nil {
		side, sub = cx.Raw, fuzz.RawDir
	}
	if side == nil {
		return []string{}
	}
	folder := filepath.Join(dir, sub)
	out := []string{shell.Join("amr", "replay", folder)}
	if cx.Impl != "" && side.RunSeed != "" {
		out = append(out, shell.Join("amr", "run", "--impl", cx.Impl, "--runs", "1", "--seed", side.RunSeed, filepath.Join(folder, "bundle.json")))
	}
	return out
}
