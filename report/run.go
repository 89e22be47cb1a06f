package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
	"github.com/amr-bench/amr/timeline"
)

// The files a kept run folder holds beside its sandbox.
const (
	sandboxDir  = "sandbox"
	verdictFile = "verdict.json"
	bundleDir   = "bundle"
)

// Lanes are the rows of a run's timeline: one per sandbox file the spec
// names, then the harness's own, then the checker's violations.
var Lanes = []string{"inbox", "approvals", "signals", "mode", "drafts", "outbox", "audit", "state", "harness", "violations"}

// Run is one kept run as the page shows it.
type Run struct {
	// ID names the run in the page (anchors, element ids): "run-3".
	ID string `json:"id"`
	// Label is what a reader sees: scenario, run number, implementation.
	Label string `json:"label"`
	// Dir is the run folder as it was given.
	Dir string `json:"dir"`
	// Timeline is the run's story; its entries are the Events, placed in
	// lanes, and its header the fields below.
	Timeline   *timeline.Timeline  `json:"-"`
	Scenario   string              `json:"scenario"`
	Impl       string              `json:"impl,omitempty"`
	Seeds      string              `json:"seeds,omitempty"`
	Horizon    int                 `json:"horizon"`
	Levels     map[string]string   `json:"levels"`
	Vacuous    []string            `json:"vacuous"`
	Violations []checker.Violation `json:"violations"`
	Events     []Event             `json:"events"`
	// Ticks are the ticks that have events, ascending.
	Ticks []int  `json:"ticks"`
	Flows []Flow `json:"flows"`
	// Files hold the sandbox files' lines, by file name, so every file:line
	// reference can be shown in place.
	Files map[string][]string `json:"files"`
	// Forced and Crashes count the run's forced advances and crashes.
	Forced  int `json:"forced_advances"`
	Crashes int `json:"crashes"`
}

// Event is a timeline entry placed in its lane.
type Event struct {
	timeline.Entry
	Lane string `json:"lane"`
	// Deferred marks a harness action that fired after the tick it was due
	// at (an approval or signal bound only once its target existed).
	Deferred bool `json:"deferred,omitempty"`
	// Record is the record the event is about, when it is not a file line:
	// a state snapshot.
	Record string `json:"record,omitempty"`
}

// runFolder is what a kept run folder holds, read from disk.
type runFolder struct {
	dir     string
	bundle  *scenarios.Bundle
	files   map[string][]byte
	log     []sandbox.LogRecord
	logData []byte
	verdict checker.Verdict
	rr      *suite.RunReport
}

// isRunFolder reports whether dir holds a kept run: a sandbox and a run log.
func isRunFolder(dir string) bool {
	return isDir(filepath.Join(dir, sandboxDir)) && isFile(filepath.Join(dir, sandbox.RunLogFile))
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

// readRunFolder reads a kept run, no sandbox file or run log larger than
// limit (safefile.DefaultLimit when limit <= 0). The bundle is the folder's
// own bundle/ when it has one (a counterexample), else known (the published
// bundle of that name and hash), else nil; the verdict is verdict.json's,
// or the checker's when the folder has none and the bundle is known.
func readRunFolder(dir string, known *scenarios.Bundle, limit int64) (*runFolder, error) {
	files, err := play.ReadSandboxUpTo(filepath.Join(dir, sandboxDir), limit)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the sandbox: %w", dir, err)
	}
	logPath := filepath.Join(dir, sandbox.RunLogFile)
	data, err := safefile.ReadFile(logPath, limit)
	if err != nil {
		return nil, err
	}
	log, err := sandbox.ParseRunLog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", logPath, err)
	}
	f := &runFolder{dir: dir, files: files, log: log, logData: data, bundle: known}
	if isFile(filepath.Join(dir, bundleDir, scenarios.FileBundle)) {
		b, _, err := scenarios.LoadDir(filepath.Join(dir, bundleDir))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		f.bundle = b
	}
	if f.bundle == nil {
		f.bundle = publishedFor(log)
	}
	rr, err := readVerdict(filepath.Join(dir, verdictFile))
	switch {
	case err == nil:
		f.rr = rr
		f.verdict, err = verdictOf(rr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, verdictFile), err)
		}
	case errors.Is(err, fs.ErrNotExist) && f.bundle != nil:
		f.verdict = play.Judge(f.bundle, files, log).Level
	default:
		return nil, err
	}
	return f, nil
}

// readVerdict reads a kept run's verdict.json.
func readVerdict(path string) (*suite.RunReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rr suite.RunReport
	if err := json.Unmarshal(data, &rr); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rr, nil
}

// verdictOf turns a kept verdict back into the checker's form, which the
// timeline reads.
func verdictOf(rr *suite.RunReport) (checker.Verdict, error) {
	v := checker.Verdict{Judged: rr.Judged, Origin: rr.Origin, Violations: rr.Violations}
	for i := range v.Levels {
		v.Levels[i] = checker.Untested
	}
	for name, s := range rr.Levels {
		i, err := levelIndex(name)
		if err != nil {
			return v, fmt.Errorf("levels: %w", err)
		}
		v.Levels[i] = s
		v.Obligations[i] = rr.Obligations[name]
	}
	for _, name := range rr.Vacuous {
		i, err := levelIndex(name)
		if err != nil {
			return v, fmt.Errorf("vacuous: %w", err)
		}
		v.Vacuous = append(v.Vacuous, i)
	}
	return v, nil
}

// levelIndex reads "L3" as 3.
func levelIndex(name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "L"))
	if err != nil || !strings.HasPrefix(name, "L") || n < scenarios.MinLevel || n > scenarios.MaxLevel {
		return 0, fmt.Errorf("%q is not a level (L%d-L%d)", name, scenarios.MinLevel, scenarios.MaxLevel)
	}
	return n, nil
}

// publishedFor is the published bundle a run log's start record names, when
// its hash matches; nil otherwise.
func publishedFor(log []sandbox.LogRecord) *scenarios.Bundle {
	if len(log) == 0 || log[0].Kind != sandbox.LogStart {
		return nil
	}
	return published(log[0].Start().Bundle, log[0].Start().BundleHash)
}

// publishedBundles loads the published scenarios once: a report of the
// suite looks each of its runs' bundles up.
var publishedBundles = sync.OnceValues(scenarios.Published)

// published finds a published bundle by name and hash.
func published(name, hash string) *scenarios.Bundle {
	all, err := publishedBundles()
	if err != nil {
		return nil
	}
	for _, p := range all {
		if p.Name != name {
			continue
		}
		if h, err := p.Bundle.Hash(); err == nil && h == hash {
			return p.Bundle
		}
	}
	return nil
}

// buildRun turns a kept run into the page's view of it.
func buildRun(id, label string, f *runFolder) Run {
	tl := timeline.Build(timeline.Input{Bundle: f.bundle, Files: f.files, Log: f.log, Verdict: f.verdict})
	r := Run{ID: id, Label: label, Dir: f.dir, Timeline: tl, Scenario: tl.Scenario, Impl: tl.Impl, Seeds: tl.Seeds.Text(),
		Horizon: tl.Horizon, Levels: tl.Levels, Vacuous: tl.Vacuous, Violations: tl.Violations, Files: fileLines(f.files)}
	if f.bundle == nil && len(f.log) > 0 {
		// Without the bundle, the run log's start record says how far
		// the run went.
		if h, err := strconv.Atoi(f.log[0].Start().Params["horizon"]); err == nil {
			r.Horizon = h
		}
	}
	for _, v := range tl.Violations {
		for _, ref := range v.Evidence {
			if strings.HasPrefix(ref, sandbox.RunLogFile+":") {
				// The run log is evidence too when a violation cites it.
				r.Files[sandbox.RunLogFile] = fileLines(map[string][]byte{"": f.logData})[""]
			}
		}
	}
	deferred := deferredActions(f.log)
	for _, e := range tl.Entries {
		ev := Event{Entry: e, Lane: laneOf(e)}
		ev.Deferred = e.Who == timeline.Harness && deferred[tickID{e.Tick, e.ID}]
		r.Events = append(r.Events, ev)
	}
	r.Events = append(r.Events, stateEvents(f.log)...)
	r.Events = append(r.Events, restartEvents(f.log)...)
	sortEvents(r.Events)
	r.Ticks = eventTicks(r.Events)
	r.Flows = buildFlows(f.files)
	citedFiles(&r)
	for _, rec := range f.log {
		switch {
		case rec.Kind == sandbox.LogTickEnd && rec.Forced:
			r.Forced++
		case rec.Kind == sandbox.LogCrash:
			r.Crashes++
		}
	}
	return r
}

// fileLines splits every sandbox file into its lines (state.json and the
// other documents as one line each when they are one).
func fileLines(files map[string][]byte) map[string][]string {
	out := make(map[string][]string, len(files))
	for name, data := range files {
		data = bytes.TrimSuffix(data, []byte("\n"))
		if len(data) == 0 {
			out[name] = []string{}
			continue
		}
		out[name] = strings.Split(string(data), "\n")
	}
	return out
}

type tickID struct {
	tick int
	id   string
}

// deferredActions are the harness actions of a run log that fired after the
// tick they were scheduled at.
func deferredActions(log []sandbox.LogRecord) map[tickID]bool {
	out := map[tickID]bool{}
	for _, r := range log {
		if r.Scheduled != nil && *r.Scheduled < r.Tick && r.Kind != sandbox.LogUnfired {
			out[tickID{r.Tick, r.ID}] = true
		}
	}
	return out
}

// laneOf places an entry: by the file it refers to, else by who acted.
func laneOf(e timeline.Entry) string {
	if e.Who == timeline.Checker {
		return "violations"
	}
	if e.What == "posture" {
		return "mode"
	}
	file, _, _ := strings.Cut(e.Ref, ":")
	switch file {
	case sandbox.Inbox:
		return "inbox"
	case sandbox.Approvals:
		return "approvals"
	case sandbox.Signals:
		return "signals"
	case sandbox.Drafts:
		return "drafts"
	case sandbox.Outbox:
		return "outbox"
	case sandbox.Audit:
		return "audit"
	}
	switch e.What {
	case "deliver", "duplicate":
		return "inbox"
	case "approve", "reject":
		return "approvals"
	case "signal":
		return "signals"
	}
	return "harness"
}

// stateEvents are the ticks at which the implementation rewrote state.json,
// with the version in force at the tick's end. A tick_end record carries
// either the whole version (older run logs) or an edit of the one before
// (D100), so every version is rebuilt in order by the sandbox's replay.
func stateEvents(log []sandbox.LogRecord) []Event {
	var out []Event
	var replay sandbox.StateReplay
	for _, r := range log {
		version, changed, err := replay.Next(r)
		if err != nil {
			// ParseRunLog refuses such a log; a log built in memory may
			// still carry one, and the page says so rather than go quiet.
			out = append(out, Event{Entry: timeline.Entry{Tick: r.Tick, Who: timeline.Impl, What: "state",
				Text: fmt.Sprintf("state.json rewritten, but the version does not rebuild from %s at tick %d: %v", sandbox.RunLogFile, r.Tick, err)},
				Lane: "state"})
			continue
		}
		if !changed {
			continue
		}
		e := Event{Entry: timeline.Entry{Tick: r.Tick, Who: timeline.Impl, What: "state", Text: "state.json rewritten"},
			Lane: "state", Record: string(version)}
		if len(version) > maxShownState {
			// A large fleet's snapshot at every tick would make the page
			// quadratic in the run; the run log keeps every one.
			e.Text = fmt.Sprintf("state.json rewritten: a snapshot of %d bytes, kept in %s at tick %d", len(version), sandbox.RunLogFile, r.Tick)
			e.Record = ""
		}
		out = append(out, e)
	}
	return out
}

// restartEvents are the fresh instances the harness started on the same
// sandbox after a crash: the timeline tells them inside the crash's text,
// the harness lane shows them apart.
func restartEvents(log []sandbox.LogRecord) []Event {
	var out []Event
	for _, r := range log {
		if r.Kind == sandbox.LogRestart {
			out = append(out, Event{Entry: timeline.Entry{Tick: r.Tick, Who: timeline.Harness, What: "restart",
				Text: "a fresh instance started on the same sandbox files"}, Lane: "harness"})
		}
	}
	return out
}

// maxShownState is the largest state snapshot a state event carries.
const maxShownState = 4096

// citedFiles keeps only the files something on the page refers to: an
// event, a violation's evidence or a flow's step. The rest (the stub's
// log, the rules, the clock) are in the run folder.
func citedFiles(r *Run) {
	cited := map[string]bool{}
	cite := func(ref string) {
		for _, one := range strings.Fields(ref) {
			if i := strings.LastIndexByte(one, ':'); i > 0 {
				one = one[:i]
			}
			cited[one] = true
		}
	}
	for _, e := range r.Events {
		cite(e.Ref)
	}
	for _, v := range r.Violations {
		for _, ref := range v.Evidence {
			cite(ref)
		}
	}
	for _, f := range r.Flows {
		for _, s := range f.Steps {
			cite(s.Ref)
		}
	}
	for name := range r.Files {
		if !cited[name] {
			delete(r.Files, name)
		}
	}
}

// sortEvents orders events by tick, keeping the timeline's order within a
// tick (state rewrites last).
func sortEvents(es []Event) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Tick < es[j].Tick })
}

// eventTicks are the distinct ticks of sorted events.
func eventTicks(es []Event) []int {
	ticks := []int{}
	for _, e := range es {
		if len(ticks) == 0 || ticks[len(ticks)-1] != e.Tick {
			ticks = append(ticks, e.Tick)
		}
	}
	return ticks
}
