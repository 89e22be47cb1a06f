package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/seeds"
)

// A campaign's result file: what one campaign, or one shard of one, judged,
// written as ResultFile in its --out folder. Every field is a function of
// the campaign's parameters and the runs it played, never of the machine or
// the clock, so the file of an unsharded campaign and the merge of its
// shards' files are the same bytes (docs/scale.md, D95-D99).
const (
	ResultFile   = "campaign.json"
	ResultFormat = "amr-fuzz-campaign/1"
)

// MaxShards bounds the shard count a result file may name, so that a
// damaged file cannot make the merge list millions of missing shards.
const MaxShards = 1 << 16

// Why a campaign stopped judging runs.
const (
	EndedBudget      = "budget"      // every run of the budget was judged
	EndedTime        = "time"        // the time budget ended first
	EndedInterrupted = "interrupted" // stopped from outside (a signal)
)

// Params are what must be equal for results to merge: what decides which
// runs a campaign plays, how each is played and judged, and when it stops.
type Params struct {
	Impl string `json:"impl"`
	// ImplFlags name the implementation as amr run takes it.
	ImplFlags    []string   `json:"impl_flags"`
	CampaignSeed seeds.Seed `json:"campaign_seed"`
	Profile      string     `json:"profile"`
	// Runs is the size of the whole run space, 0 for a time budget alone.
	Runs             int    `json:"runs"`
	Time             string `json:"time,omitempty"`
	KeepGoing        bool   `json:"keep_going"`
	CheckDeterminism bool   `json:"check_determinism"`
	MaxSteps         int    `json:"max_steps"`
	Version          string `json:"amr_version"`
	// Counters name the bits of the tape's coverage masks, in order.
	Counters []string `json:"counters"`
	// Corpus is the hash of every corpus bundle replayed first, in order.
	Corpus []string `json:"corpus"`
}

// Result is a campaign's result file.
type Result struct {
	Format   string `json:"format"`
	Campaign Params `json:"campaign"`
	Shard    Shard  `json:"shard"`
	// Runs counts the generated runs judged; they are Indices.
	Runs    int        `json:"runs"`
	Indices IndexRange `json:"indices"`
	// Ended says why judging stopped: an outcome other than clean (the
	// campaign stops at it), or one of the Ended* reasons.
	Ended   string `json:"ended"`
	Outcome string `json:"outcome"`
	// FirstFailure is the lowest failing generated run, when one was judged.
	FirstFailure   *int           `json:"first_failure,omitempty"`
	FailedRuns     int            `json:"failed_runs"`
	InvalidRuns    int            `json:"invalid_runs"`
	Found          map[string]int `json:"found"`
	Coverage       []CounterCount `json:"coverage"`
	Replays        []CorpusReplay `json:"corpus_replays"`
	Counterexample *ResultRun     `json:"counterexample,omitempty"`
	Invalid        *ResultRun     `json:"invalid,omitempty"`
	Divergence     *ResultRun     `json:"divergence,omitempty"`
	Tape           Tape           `json:"tape"`
}

// IndexRange is the set of run indices a result judged: First, First+Step,
// ... up to Last. Empty (Last below First) when no run was judged.
type IndexRange struct {
	First int `json:"first"`
	Step  int `json:"step"`
	Last  int `json:"last"`
}

// CorpusReplay is what one corpus bundle did, without the path it was read
// from (which is the machine's).
type CorpusReplay struct {
	Hash       string   `json:"bundle_hash"`
	Fails      bool     `json:"fails"`
	Invalid    bool     `json:"invalid,omitempty"`
	Invariants []string `json:"invariants,omitempty"`
}

// ResultRun is the run an outcome names: its record (run index, seeds,
// source, profile), and where its files are, relative to the result's
// folder ("" when they were not written there).
type ResultRun struct {
	ProfileRecord
	BundleHash string   `json:"bundle_hash,omitempty"`
	Invariants []string `json:"invariants,omitempty"`
	Files      string   `json:"files,omitempty"`
	// Replay is the command that replays it, from the result's folder.
	Replay string `json:"replay,omitempty"`
}

// ResultInput is what a campaign's result is made of besides its summary.
type ResultInput struct {
	Config      Config
	ImplFlags   []string
	Version     string
	Interrupted bool
	// Files are the folders, relative to the result's, that the outcome's
	// files went to, keyed by outcome (OutcomeCounterexample: "raw").
	Files map[string]string
}

// NewResult is the result file of a campaign that ended with sum.
func NewResult(sum *Summary, in ResultInput) (*Result, error) {
	cfg := in.Config
	if cfg.NoTape && sum.Runs > 0 {
		return nil, fmt.Errorf("campaign result: the campaign kept no tape of its %d run(s) (Config.NoTape)", sum.Runs)
	}
	cfg.Shard = cfg.Shard.normal()
	p := Params{Impl: cfg.Impl.Name, ImplFlags: slices.Clone(in.ImplFlags), CampaignSeed: seeds.Seed(cfg.Seed),
		Profile: sum.Preset, Runs: cfg.Runs, KeepGoing: cfg.KeepGoing, CheckDeterminism: cfg.CheckDeterminism,
		MaxSteps: cfg.MaxSteps, Version: in.Version, Counters: counterNames(), Corpus: []string{}}
	if cfg.Time > 0 {
		p.Time = cfg.Time.String()
	}
	r := &Result{Format: ResultFormat, Campaign: p, Shard: cfg.Shard, Tape: sum.Tape, Replays: []CorpusReplay{}}
	for _, rp := range sum.Replays {
		r.Campaign.Corpus = append(r.Campaign.Corpus, rp.Hash)
		r.Replays = append(r.Replays, CorpusReplay{Hash: rp.Hash, Fails: rp.Fails, Invalid: rp.Invalid, Invariants: rp.Invariants})
	}
	if r.Tape.Seen == nil {
		r.Tape.Seen = SeenTape{}
	}
	if r.Tape.Marks == nil {
		r.Tape.Marks = []Mark{}
	}
	r.Counterexample = runOf(sum.Failure, in, OutcomeCounterexample, cfg.MaxSteps)
	r.Invalid = runOf(sum.Invalid, in, OutcomeInvalid, cfg.MaxSteps)
	if d := sum.Divergence; d != nil {
		p := d.Profile
		r.Divergence = &ResultRun{ProfileRecord: ProfileRecord{Kind: "profile", Run: d.Index, Seeds: d.Seeds, Source: "generated", Profile: &p},
			Files: in.Files[OutcomeDivergence]}
	}
	f, err := foldOne(r)
	if err != nil {
		return nil, err
	}
	r.Ended = endedOf(sum, cfg, in.Interrupted)
	f.fill(r)
	if r.Runs != sum.Runs || r.FailedRuns != sum.FailedRuns || r.InvalidRuns != sum.InvalidRuns {
		return nil, fmt.Errorf("campaign result: the tape holds %d runs (%d failed, %d invalid), the summary %d (%d, %d)",
			r.Runs, r.FailedRuns, r.InvalidRuns, sum.Runs, sum.FailedRuns, sum.InvalidRuns)
	}
	return r, nil
}

func runOf(cx *Counterexample, in ResultInput, outcome string, maxSteps int) *ResultRun {
	if cx == nil {
		return nil
	}
	rr := &ResultRun{ProfileRecord: cx.Record(), BundleHash: cx.BundleHash, Invariants: cx.Invariants(), Files: in.Files[outcome]}
	if rr.Files != "" {
		rr.Replay = ReplayCommand(in.ImplFlags, cx, filepath.ToSlash(filepath.Join(rr.Files, BundleJSON)), maxSteps)
	}
	if rr.Invariants == nil {
		rr.Invariants = []string{}
	}
	return rr
}

// Ended is why a campaign that ended with sum stopped judging: what its
// result file would say in "ended", for a campaign that writes none.
func Ended(sum *Summary, cfg Config, interrupted bool) string {
	cfg.Shard = cfg.Shard.normal()
	return endedOf(sum, cfg, interrupted)
}

// endedOf is why the campaign stopped judging. A budget that was played to
// its end counts as the budget even when a signal came after it.
func endedOf(sum *Summary, cfg Config, interrupted bool) string {
	switch {
	case sum.Divergence != nil:
		return OutcomeDivergence
	case !cfg.KeepGoing && sum.Outcome() != OutcomeClean:
		return sum.Outcome()
	case cfg.Runs > 0 && sum.Runs == cfg.Shard.Size(cfg.Runs):
		return EndedBudget
	case interrupted:
		return EndedInterrupted
	case cfg.Time > 0:
		return EndedTime
	}
	return EndedInterrupted
}

func counterNames() []string {
	out := make([]string, len(counters()))
	for i, c := range counters() {
		out[i] = c.Name
	}
	return out
}

// Marshal is the result file's bytes.
func (r *Result) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// WriteResult writes r into dir as ResultFile. It refuses a result that
// ReadResult would refuse, such as one of a campaign that kept no tape
// (Config.NoTape): what cannot be merged is not written.
func WriteResult(dir string, r *Result) (string, error) {
	if err := r.check(); err != nil {
		return "", fmt.Errorf("not a result %s could read back: %w", ResultFile, err)
	}
	data, err := r.Marshal()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, ResultFile)
	return path, os.WriteFile(path, data, 0o644)
}

// ReadResult reads dir's result file and checks that it is one: its format,
// its shard, and a tape that fits its run count and shard.
func ReadResult(dir string) (*Result, error) {
	path := filepath.Join(dir, ResultFile)
	data, err := safefile.ReadFile(path, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: the campaign did not finish (killed, or it failed before the end)", dir, ResultFile)
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Result
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

func (r *Result) check() error {
	switch {
	case r.Format != ResultFormat:
		return fmt.Errorf("format: %q, want %q", r.Format, ResultFormat)
	case r.Shard.Count < 1 || r.Shard.Index < 0 || r.Shard.Index >= r.Shard.Count:
		return fmt.Errorf("shard: %d/%d is not a shard", r.Shard.Index, r.Shard.Count)
	case r.Shard.Count > MaxShards:
		return fmt.Errorf("shard: a count of %d is more than the %d shards a merge takes", r.Shard.Count, MaxShards)
	case r.Runs != len(r.Tape.Seen):
		return fmt.Errorf("tape: %d coverage masks for %d runs", len(r.Tape.Seen), r.Runs)
	case r.Campaign.Runs > 0 && r.Runs > r.Shard.Size(r.Campaign.Runs):
		return fmt.Errorf("runs: %d, but shard %d/%d of %d runs has %d", r.Runs, r.Shard.Index, r.Shard.Count, r.Campaign.Runs, r.Shard.Size(r.Campaign.Runs))
	case !slices.Equal(r.Campaign.Counters, counterNames()):
		return fmt.Errorf("campaign.counters: written with another catalogue of coverage counters (another amr version?)")
	}
	for _, rr := range []*ResultRun{r.Counterexample, r.Invalid, r.Divergence} {
		if rr != nil && rr.Files != "" && !filepath.IsLocal(filepath.FromSlash(rr.Files)) {
			return fmt.Errorf("files: %q is not a path inside the result's folder", rr.Files)
		}
	}
	last := -1
	for i, m := range r.Tape.Marks {
		j := m.Run - r.Shard.Index
		if m.Run <= last || j < 0 || j%r.Shard.Count != 0 || j/r.Shard.Count >= r.Runs {
			return fmt.Errorf("tape.marks[%d]: run %d is not one of the shard's judged runs, in order", i, m.Run)
		}
		if m.Kind != MarkFailed && m.Kind != MarkInvalid && m.Kind != MarkDiverged {
			return fmt.Errorf("tape.marks[%d]: kind %q", i, m.Kind)
		}
		last = m.Run
	}
	return nil
}

// FilesOf is the folder, relative to the result's, holding the files of
// the run its outcome names, or "".
func (r *Result) FilesOf() string {
	if rr := r.named(); rr != nil {
		return rr.Files
	}
	return ""
}

func (r *Result) named() *ResultRun { return r.record(r.Outcome) }

// MergeError is a set of results that do not merge into one answer. Every
// problem is listed; Shards are the shard indices they name.
type MergeError struct {
	Problems []string
	Shards   []int
}

func (e *MergeError) Error() string { return strings.Join(e.Problems, "\n") }

// Merged is the answer of a set of shard results, with the shard whose
// files hold the run the outcome names (-1 when none does).
type Merged struct {
	*Result
	From int
}

// Merge folds shard results into the result the unsharded campaign gives:
// runs are taken in index order from the shard that played each, and the
// campaign's own rules decide where it stops (the first failing, invalid or
// diverging run without KeepGoing; the first divergence with it). The shards
// must be one campaign's (equal Params) and each index of the count present
// once. A run the fold needs that its shard never judged (it was
// interrupted, or failed before writing) makes the answer undecidable; one
// past a time-bounded shard's end ends the merged campaign there (D97).
func Merge(results []*Result) (*Merged, error) {
	if len(results) == 0 {
		return nil, &MergeError{Problems: []string{"no shard results to merge"}}
	}
	byIndex, err := complete(results)
	if err != nil {
		return nil, err
	}
	base := byIndex[0]
	out := &Result{Format: ResultFormat, Campaign: base.Campaign, Shard: Shard{0, 1}, Replays: base.Replays}
	f := newFold(out.Campaign.KeepGoing, base.Replays)
	n := len(byIndex)
	for i := 0; !f.stopped; i++ {
		if out.Campaign.Runs > 0 && i >= out.Campaign.Runs {
			f.end(EndedBudget)
			break
		}
		sh := byIndex[i%n]
		j := i / n
		if j >= sh.Runs {
			if sh.Ended == EndedTime {
				f.end(EndedTime)
				break
			}
			return nil, undecided(sh, i)
		}
		f.add(i, sh.Tape.Seen[j], sh.markAt(i))
	}
	f.fill(out)
	from, err := named(out, byIndex)
	if err != nil {
		return nil, err
	}
	return &Merged{Result: out, From: from}, nil
}

// complete checks that results are one campaign's shards, each once, and
// returns them by index.
func complete(results []*Result) ([]*Result, error) {
	e := &MergeError{}
	first := results[0]
	count := first.Shard.Count
	seen := map[int]int{}
	for _, r := range results {
		if r.Shard.Count != count {
			e.Problems = append(e.Problems, fmt.Sprintf("shard %d/%d is not one of %d shards (the first result is shard %d/%d)",
				r.Shard.Index, r.Shard.Count, count, first.Shard.Index, count))
			continue
		}
		seen[r.Shard.Index]++
		if diff := paramsDiff(first.Campaign, r.Campaign); diff != "" {
			e.Problems = append(e.Problems, fmt.Sprintf("shard %d is another campaign: %s", r.Shard.Index, diff))
			e.Shards = append(e.Shards, r.Shard.Index)
		} else if !slices.EqualFunc(first.Replays, r.Replays, replayEqual) {
			e.Problems = append(e.Problems, fmt.Sprintf("shard %d replayed its corpus to another outcome than shard %d", r.Shard.Index, first.Shard.Index))
			e.Shards = append(e.Shards, r.Shard.Index)
		}
	}
	var missing, twice []string
	for i := range count {
		switch seen[i] {
		case 0:
			missing = append(missing, strconv.Itoa(i))
			e.Shards = append(e.Shards, i)
		case 1:
		default:
			twice = append(twice, fmt.Sprintf("%d (%d times)", i, seen[i]))
			e.Shards = append(e.Shards, i)
		}
	}
	if len(missing) > 0 {
		e.Problems = append(e.Problems, fmt.Sprintf("missing shard(s) of %d: %s", count, strings.Join(missing, ", ")))
	}
	if len(twice) > 0 {
		e.Problems = append(e.Problems, fmt.Sprintf("duplicated shard(s) of %d: %s", count, strings.Join(twice, ", ")))
	}
	if len(e.Problems) > 0 {
		slices.Sort(e.Shards)
		e.Shards = slices.Compact(e.Shards)
		return nil, e
	}
	byIndex := make([]*Result, count)
	for _, r := range results {
		byIndex[r.Shard.Index] = r
	}
	return byIndex, nil
}

func replayEqual(a, b CorpusReplay) bool {
	return a.Hash == b.Hash && a.Fails == b.Fails && a.Invalid == b.Invalid && slices.Equal(a.Invariants, b.Invariants)
}

// paramsDiff names the first parameters that differ, or "".
func paramsDiff(a, b Params) string {
	ma, mb := fieldsOf(a), fieldsOf(b)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(ma)) {
		if !bytes.Equal(ma[k], mb[k]) {
			diffs = append(diffs, fmt.Sprintf("campaign.%s is %s, not %s", k, mb[k], ma[k]))
		}
	}
	return strings.Join(diffs, "; ")
}

func fieldsOf(p Params) map[string]json.RawMessage {
	data, _ := json.Marshal(p)
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(data, &m)
	if _, ok := m["time"]; !ok {
		m["time"] = json.RawMessage(`""`)
	}
	return m
}

func undecided(sh *Result, i int) error {
	why := "it stopped"
	switch sh.Ended {
	case EndedInterrupted:
		why = "it was interrupted"
	case EndedBudget:
		why = "it ended its budget"
	default:
		if sh.Ended != "" {
			why = "it stopped at its own " + sh.Ended
		}
	}
	return &MergeError{Shards: []int{sh.Shard.Index}, Problems: []string{fmt.Sprintf(
		"undecidable: the campaign's answer needs run %d, which shard %d/%d never judged (%s after %d run(s)); run shard %d again",
		i, sh.Shard.Index, sh.Shard.Count, why, sh.Runs, sh.Shard.Index)}}
}

// markAt is the mark of run i, which the shard judged, or nil.
func (r *Result) markAt(i int) *Mark {
	k, ok := slices.BinarySearchFunc(r.Tape.Marks, i, func(m Mark, i int) int { return m.Run - i })
	if !ok {
		return nil
	}
	return &r.Tape.Marks[k]
}

// named fills the merged result's records of the runs it names from the
// shards that judged them (a corpus bundle every shard replayed: from the
// first), and returns the shard whose folder holds the files of the run
// the outcome names, or -1. As in a campaign's own result, only the run
// the outcome names has files.
func named(out *Result, byIndex []*Result) (int, error) {
	from := -1
	for _, kind := range []string{OutcomeCounterexample, OutcomeInvalid, OutcomeDivergence} {
		dst := out.record(kind)
		if dst == nil {
			continue
		}
		src, sh := holder(byIndex, kind, dst.Run)
		if src == nil {
			return -1, &MergeError{Problems: []string{fmt.Sprintf("no shard holds the record of run %d, the merged campaign's %s", dst.Run, kind)}}
		}
		rec := *src
		if kind != out.Outcome || sh.Outcome != kind {
			rec.Files, rec.Replay = "", ""
		}
		*dst = rec
		if kind == out.Outcome && rec.Files != "" {
			from = sh.Shard.Index
		}
	}
	return from, nil
}

func holder(byIndex []*Result, kind string, run int) (*ResultRun, *Result) {
	for _, sh := range byIndex {
		if rr := sh.record(kind); rr != nil && rr.Run == run {
			return rr, sh
		}
	}
	return nil, nil
}

func (r *Result) record(kind string) *ResultRun {
	switch kind {
	case OutcomeDivergence:
		return r.Divergence
	case OutcomeInvalid:
		return r.Invalid
	case OutcomeCounterexample:
		return r.Counterexample
	}
	return nil
}

// fold is the campaign's judging rule over runs given in index order; the
// campaign (campaign.generate, tally) and the merge both end up here, so a
// merged result and an unsharded one are built the same way.
type fold struct {
	keepGoing bool
	stopped   bool
	ended     string
	runs      int
	cov       Coverage
	failed    int
	invalid   int
	found     map[string]int
	failure   *Mark // the first failing run, or a placeholder for the corpus's
	firstGen  *int  // the first failing generated run
	bad       *Mark // the first invalid run
	diverged  *Mark
	tape      Tape
}

func newFold(keepGoing bool, replays []CorpusReplay) *fold {
	f := &fold{keepGoing: keepGoing, found: map[string]int{}, tape: Tape{Seen: SeenTape{}, Marks: []Mark{}}}
	for _, rp := range replays {
		if f.failure != nil || f.bad != nil {
			break
		}
		switch {
		case rp.Invalid:
			f.bad = &Mark{Run: -1, Kind: MarkInvalid}
		case rp.Fails:
			f.failure = &Mark{Run: -1, Kind: MarkFailed}
		}
	}
	if (f.failure != nil || f.bad != nil) && !keepGoing {
		f.stopped = true
		if f.bad != nil {
			f.ended = OutcomeInvalid
		} else {
			f.ended = OutcomeCounterexample
		}
	}
	return f
}

// add folds judged run i in, as campaign.generate does.
func (f *fold) add(i int, s Seen, m *Mark) {
	if f.stopped {
		return
	}
	f.runs++
	f.cov.Add(s)
	f.tape.Seen = append(f.tape.Seen, s)
	if m == nil {
		return
	}
	f.tape.Marks = append(f.tape.Marks, *m)
	switch m.Kind {
	case MarkDiverged:
		f.diverged = m
		f.stopped, f.ended = true, OutcomeDivergence
		return
	case MarkInvalid:
		f.invalid++
		if f.bad == nil {
			f.bad = m
		}
	case MarkFailed:
		f.failed++
		if f.firstGen == nil {
			f.firstGen = &m.Run
		}
		for _, id := range m.Invariants {
			f.found[id]++
		}
		if f.failure == nil {
			f.failure = m
		}
	}
	if !f.keepGoing {
		f.stopped, f.ended = true, f.outcome()
	}
}

func (f *fold) end(why string) {
	f.stopped = true
	if f.ended == "" {
		f.ended = why
	}
}

func (f *fold) outcome() string {
	switch {
	case f.diverged != nil:
		return OutcomeDivergence
	case f.bad != nil:
		return OutcomeInvalid
	case f.failure != nil:
		return OutcomeCounterexample
	}
	return OutcomeClean
}

// foldOne folds a single result's own tape, checking it against the
// result's named runs.
func foldOne(r *Result) (*fold, error) {
	f := newFold(r.Campaign.KeepGoing, r.Replays)
	marks := r.Tape.Marks
	for j, s := range r.Tape.Seen {
		i := r.Shard.At(j)
		var m *Mark
		if len(marks) > 0 && marks[0].Run == i {
			m, marks = &marks[0], marks[1:]
		}
		f.add(i, s, m)
	}
	if len(marks) > 0 {
		return nil, fmt.Errorf("campaign result: run %d is marked but was not judged", marks[0].Run)
	}
	return f, nil
}

// fill writes the fold's answer into r. The runs an outcome names keep the
// records r already has; those the fold no longer names are dropped.
func (f *fold) fill(r *Result) {
	r.Runs, r.Tape = f.runs, f.tape
	r.Indices = IndexRange{First: r.Shard.Index, Step: r.Shard.Count, Last: r.Shard.At(f.runs - 1)}
	if f.ended != "" {
		r.Ended = f.ended
	}
	r.Outcome = f.outcome()
	r.FailedRuns, r.InvalidRuns, r.Found = f.failed, f.invalid, f.found
	r.Coverage = f.cov.Counts()
	r.FirstFailure = nil
	if f.firstGen != nil {
		at := *f.firstGen
		r.FirstFailure = &at
	}
	r.Counterexample = keepNamed(r.Counterexample, f.failure)
	r.Invalid = keepNamed(r.Invalid, f.bad)
	r.Divergence = keepNamed(r.Divergence, f.diverged)
}

// keepNamed is the record of the run m, as the result has it, or a bare one
// for the merge to fill in; nil when the fold names no such run.
func keepNamed(rr *ResultRun, m *Mark) *ResultRun {
	switch {
	case m == nil:
		return nil
	case rr != nil && (rr.Run == m.Run || m.Run < 0):
		return rr
	}
	return &ResultRun{ProfileRecord: ProfileRecord{Kind: "profile", Run: m.Run, Source: "generated"}, Invariants: m.Invariants}
}
