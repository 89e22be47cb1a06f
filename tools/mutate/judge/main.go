// Command judge plays the reference as it is built (tools/mutate builds
// it once per mutant, in a scratch copy where one decision point of the
// reference is changed) and prints one JSON line with the verdict: the
// generated runs of a campaign, played one after another and judged in
// order, then the published suite. It is tools/mutate's helper, not a
// command of amr's.
//
// A verdict is reached by a bounded number of plays, never by waiting: a
// step that writes more than -step-writes lines, a run that writes more
// than -run-writes, or -hang-limit forced advances in a row make the
// mutant hung (docs/decisions.md D125), and the run stops there.
//
// Every run's sandbox bytes and run log go into a digest, so a mutant that
// survives can be compared with the unmutated reference: the same digest
// means the same artifacts on every run played.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash"
	"os"
	"sort"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/tools/mutate/judged"
)

// Verdict is what judge prints: one line the tool reads back, with the
// judge's own ways of settling it.
type Verdict struct{ judged.Verdict }

type limits struct{ step, run, hang int }

func main() {
	seed := flag.Uint64("seed", 1, "campaign seed")
	runs := flag.Int("runs", 500, "generated runs to play")
	preset := flag.String("profile", faults.DefaultPreset, "swarm profile preset")
	suiteRuns := flag.Int("suite-runs", 5, "scored runs of each published scenario (0: none)")
	var lim limits
	flag.IntVar(&lim.step, "step-writes", 512, "lines one step may write before the mutant is hung")
	flag.IntVar(&lim.run, "run-writes", 20000, "lines one run may write before the mutant is hung")
	flag.IntVar(&lim.hang, "hang-limit", 3, "forced advances in a row that make the mutant hung")
	flag.Parse()
	v, err := judge(*seed, *runs, *preset, *suiteRuns, lim)
	if err != nil {
		fmt.Fprintln(os.Stderr, "judge:", err)
		os.Exit(2)
	}
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
}

func judge(seed uint64, runs int, preset string, suiteRuns int, lim limits) (*Verdict, error) {
	v := &Verdict{judged.Verdict{Outcome: "survived"}}
	digest := sha256.New()
	for i := 0; i < runs; i++ {
		g := &guard{lim: lim}
		r, err := fuzz.PlayGenerated(seed, i, preset, impl(g), 0)
		if err != nil {
			return nil, err
		}
		v.Runs = i + 1
		v.note(g)
		v.waste(r.Run, "run "+fmt.Sprint(i))
		addRun(digest, r.Run)
		if v.settle(g, r.Run, "fuzz", fmt.Sprint(i)) {
			break
		}
	}
	suite, err := playSuite(suiteRuns, lim, digest, v)
	if err != nil {
		return nil, err
	}
	v.Suite = suite
	v.Digest = hex.EncodeToString(digest.Sum(nil))

	return v, nil
}

// playSuite plays the published suite and says whether it catches the
// mutant: "caught by <scenario> run <k>", or "passes".
func playSuite(k int, lim limits, digest hash.Hash, v *Verdict) (string, error) {
	if k <= 0 {
		return "", nil
	}
	pub, err := scenarios.Published()
	if err != nil {
		return "", err
	}
	for _, p := range pub {
		for run := 1; run <= k; run++ {
			g := &guard{lim: lim}
			r, err := play.Play(p.Bundle, impl(g), seeds.OfScored(seeds.Named(p.Bundle.Meta.Name), run), play.Options{})
			if err != nil {
				return "", fmt.Errorf("playing %s: %w", p.Name, err)
			}
			v.note(g)
			v.waste(r, fmt.Sprintf("%s run %d", p.Name, run))
			addRun(digest, r)
			where := fmt.Sprintf("%s run %d", p.Name, run)
			if v.settle(g, r, "suite", where) {
				return "caught by " + where, nil
			}
		}
	}
	return "passes", nil
}

func (v *Verdict) waste(r *play.Run, where string) {
	n := r.Judgement.Surprise.Unattributed
	if n > 0 && v.Unattributed == 0 {
		v.UnattributedRun = where
	}
	v.Unattributed += n
}

func (v *Verdict) note(g *guard) {
	v.MaxStepWrites = max(v.MaxStepWrites, g.maxStep)
	v.MaxRunWrites = max(v.MaxRunWrites, g.total)
}

// settle records the first thing that kills the mutant and reports whether
// r (or its guard) killed it.
func (v *Verdict) settle(g *guard, r *play.Run, by, where string) bool {
	hung := g.hung
	if hung == "" {
		hung = forcedInARow(r.Result.Log, g.lim.hang)
	}
	outcome := ""
	switch {
	case hung != "":
		outcome = "hung"
	case r.Invalid():
		outcome = "invalid"
	case r.Failed():
		outcome = "killed"
	default:
		return false
	}
	if v.Outcome == "survived" {
		v.Outcome, v.By, v.Run, v.Detail = outcome, by, where, hung
		if outcome != "hung" {
			v.Invariants = r.Invariants()
		}
	}
	return true
}

// forcedInARow says why a run counts as hung when n ticks in a row ended
// in a forced advance, as a process is killed after that many (sim's
// HangLimit); "" otherwise.
func forcedInARow(log []sandbox.LogRecord, n int) string {
	row := 0
	for _, rec := range log {
		if rec.Kind != sandbox.LogTickEnd {
			continue
		}
		if !rec.Forced {
			row = 0
			continue
		}
		if row++; row >= n {
			return fmt.Sprintf("%d forced advances in a row, the last at tick %d", n, rec.Tick)
		}
	}
	return ""
}

// addRun folds a run's artifacts into the digest: every sandbox file in
// name order, then the run log.
func addRun(h hash.Hash, r *play.Run) {
	files := r.Result.Files.Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s %d\n", n, len(files[n]))
		h.Write(files[n])
	}
	for _, rec := range r.Result.Log {
		line, _ := json.Marshal(rec)
		h.Write(line)
		h.Write([]byte{'\n'})
	}
}

// impl is the reference as built, every instance of a run sharing g.
func impl(g *guard) play.Impl {
	ref := examples.Reference()
	return play.Impl{Name: "reference", New: func() sandbox.Implementation {
		return &guarded{inner: ref(), g: g}
	}}
}

// guard counts one run's writes against the budgets.
type guard struct {
	lim     limits
	step    int
	maxStep int
	total   int
	hung    string
}

var errHung = errors.New("the write budget is spent: hung")

// guarded is an instance whose every write is counted; once a budget is
// spent, every further step fails at once, so the run ends in bounded time.
type guarded struct {
	inner sandbox.Implementation
	g     *guard
}

func (x *guarded) Step(env *sandbox.Env) error {
	if x.g.hung != "" {
		return errHung
	}
	x.g.step = 0
	e := *env
	e.Files = wrap(env.Files, x.g)
	return x.inner.Step(&e)
}

// counting is a store that counts writes; viewing keeps the in-process
// store's zero-copy read (D50) visible through it.
type counting struct {
	sandbox.Store
	g *guard
}

type viewing struct {
	counting
	view func(string) []byte
}

func (v viewing) View(name string) []byte { return v.view(name) }

func wrap(s sandbox.Store, g *guard) sandbox.Store {
	c := counting{Store: s, g: g}
	if vw, ok := s.(interface{ View(string) []byte }); ok {
		return viewing{counting: c, view: vw.View}
	}
	return c
}

func (c counting) count() error {
	g := c.g
	if g.hung != "" {
		return errHung
	}
	g.step++
	g.total++
	g.maxStep = max(g.maxStep, g.step)
	switch {
	case g.step > g.lim.step:
		g.hung = fmt.Sprintf("a step wrote more than %d lines", g.lim.step)
	case g.total > g.lim.run:
		g.hung = fmt.Sprintf("a run wrote more than %d lines", g.lim.run)
	default:
		return nil
	}
	return errHung
}

func (c counting) Append(name string, line []byte) error {
	if err := c.count(); err != nil {
		return err
	}
	return c.Store.Append(name, line)
}

func (c counting) Write(name string, data []byte) error {
	if err := c.count(); err != nil {
		return err
	}
	return c.Store.Write(name, data)
}
