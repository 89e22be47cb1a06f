package report_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/report"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

func html(t *testing.T, p *report.Page) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, p.WriteHTML(&buf))
	return buf.Bytes()
}

func TestWeakRunShowsEveryViolationWithItsEvidence(t *testing.T) {
	dir := keepSuite(t, t.TempDir(), "weak-send-before-record", 2, publishedNamed(t, "l0-respond", "l1-crash-after-send"))
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)

	require.Len(t, p.Scoreboard.Rows, 1)
	row := p.Scoreboard.Rows[0]
	assert.Equal(t, "weak-send-before-record", row.Impl)
	assert.Equal(t, suite.Fail, row.Cells[1].Status, "L1 fails in l1-crash-after-send")
	assert.Equal(t, []string{"l1-crash-after-send"}, row.Cells[1].Failed)
	assert.Equal(t, suite.Pass, row.Cells[0].Status)
	assert.Equal(t, suite.Untested, row.Cells[2].Status)
	assert.Equal(t, 4, row.Observed.Runs)

	require.NotEmpty(t, p.Failures)
	for _, f := range p.Failures {
		assert.Equal(t, report.ClassMechanism, f.Class)
		assert.Equal(t, report.Unclassified, f.Source)
	}

	page := string(html(t, p))
	n := 0
	for _, r := range p.Runs {
		for _, v := range r.Violations {
			n++
			assert.Contains(t, page, `data-invariant="`+v.Invariant+`"`)
			for _, ref := range v.Evidence {
				assert.Contains(t, page, `data-ref="`+ref+`"`)
				file, line := splitRef(t, ref)
				lines := r.Files[file]
				require.GreaterOrEqual(t, len(lines), line, "%s cites a line the run kept", ref)
				assert.Contains(t, page, template(lines[line-1]), "the cited line is shown in place")
			}
		}
	}
	assert.Positive(t, n, "the weak implementation's violations are on the page")
}

// template escapes a line as html/template writes it inside an element.
func template(s string) string {
	r := strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", "+", "&#43;")
	return r.Replace(s)
}

func splitRef(t *testing.T, ref string) (string, int) {
	t.Helper()
	i := strings.LastIndexByte(ref, ':')
	require.Positive(t, i)
	n := 0
	for _, c := range ref[i+1:] {
		n = n*10 + int(c-'0')
	}
	return ref[:i], n
}

func TestPageIsSelfContainedAndDeterministic(t *testing.T) {
	dir := keepSuite(t, t.TempDir(), "reference", 1, publishedNamed(t, "l0-respond", "l2-govern"))
	build := func() []byte {
		p, err := report.Build([]string{dir}, report.Options{})
		require.NoError(t, err)
		return html(t, p)
	}
	a, b := build(), build()
	assert.Equal(t, a, b, "the same artifacts give the same bytes")
	for _, bad := range []string{`src="http`, `href="http`, `<link`, `@import`, `url(`, `src=`} {
		assert.NotContains(t, string(a), bad, "the page fetches nothing")
	}
	assert.Contains(t, string(a), `<meta name="viewport"`)
	assert.Regexp(t, regexp.MustCompile(`<script type="application/json" id="amr-data">\{`), string(a))
}

func TestPageDataIsEscaped(t *testing.T) {
	// A line an implementation wrote ends up inside the page's script
	// data and in the evidence: it must not close the script element.
	b := publishedNamed(t, "l0-respond")[0]
	dir := keepReplay(t, t.TempDir(), b, "weak-no-send", seeds.Named(b.Meta.Name))
	hostile := `{"event":"note","at":1,"text":"</script><script>alert(1)</script>"}` + "\n"
	f, err := os.OpenFile(filepath.Join(dir, "sandbox", "audit.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(hostile)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	page := string(html(t, p))
	assert.Equal(t, 1, strings.Count(page, "<script>"), "only the page's own script element")
	assert.NotContains(t, page, "<script>alert")
}

func TestSubmissionEffort(t *testing.T) {
	dir := t.TempDir()
	decl, err := os.ReadFile(filepath.Join("..", "examples", "submissions", "reference.json"))
	require.NoError(t, err)
	write := func(name, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write(report.SubmissionFile, string(decl))
	write("responder.py", "import sys\n\n\ndef main():\n    pass\n")
	write("lib/util.py", "x = 1\n   \ny = 2\n")
	write("adapters/rules.py", "def translate(r):\n    return r\n")
	write("node_modules/dep/index.js", "a\nb\nc\n")
	write(".git/config", "[core]\n")
	write("logo.bin", "\x00\x01\x02\n")
	write(report.EffortFile, `{"format":"amr.effort/v1","wall_clock_hours":6.5,"notes":"one evening"}`)
	write(report.ClassesFile, `{"format":"amr.classes/v1","classes":[{"scenario":"l2-govern","level":"L2","class":"adapter"}]}`)

	runs := keepSuite(t, t.TempDir(), "reference", 1, publishedNamed(t, "l0-respond"))
	p, err := report.Build([]string{runs}, report.Options{Submissions: []string{dir}})
	require.NoError(t, err)
	s := p.Scoreboard.Rows[0].Observed.Submission
	require.NotNil(t, s)
	assert.True(t, s.Counted)
	assert.Equal(t, 5, s.ImplLines, "non-blank lines of responder.py and lib/util.py")
	assert.Equal(t, 2, s.ImplFiles)
	assert.Equal(t, 2, s.AdapterLines)
	assert.Equal(t, 1, s.AdapterFiles)
	sr := p.Scoreboard.Rows[0].SelfReported
	require.NotNil(t, sr)
	assert.Equal(t, 6.5, *sr.WallClockHours)
	require.Len(t, p.Unmatched, 1, "the disclosure classifies a FAIL the reports do not have")
	page := string(html(t, p))
	assert.Contains(t, page, "self-reported")
	assert.Contains(t, page, `data-field="impl-lines">5 `)

	// A bare declaration names the implementation and counts nothing.
	p, err = report.Build([]string{runs}, report.Options{Submissions: []string{filepath.Join(dir, report.SubmissionFile)}})
	require.NoError(t, err)
	assert.False(t, p.Scoreboard.Rows[0].Observed.Submission.Counted)
	assert.Contains(t, string(html(t, p)), "is a declaration, not a submission directory")

	write(report.EffortFile, `{"format":"amr.effort/v1","wall_clock_hours":-1}`)
	_, err = report.Build([]string{runs}, report.Options{Submissions: []string{dir}})
	assert.ErrorContains(t, err, "wall_clock_hours: -1 is negative")
}

func TestOverrideWithoutJustificationIsRefused(t *testing.T) {
	runs := keepSuite(t, t.TempDir(), "weak-no-send", 1, publishedNamed(t, "l0-respond"))
	over := filepath.Join(t.TempDir(), "over.json")
	require.NoError(t, os.WriteFile(over, []byte(`{"format":"amr.classes/v1","classes":[{"impl":"weak-no-send","scenario":"l0-respond","level":"L0","class":"fixture-defect"}]}`), 0o644))
	_, err := report.Build([]string{runs}, report.Options{Overrides: []string{over}})
	require.ErrorContains(t, err, over+": classes[0].justification: required in an override file")

	require.NoError(t, os.WriteFile(over, []byte(`{"format":"amr.classes/v1","classes":[{"impl":"weak-no-send","scenario":"l0-respond","level":"L0","class":"fixture-defect","justification":"the reply window was one tick too short"}]}`), 0o644))
	p, err := report.Build([]string{runs}, report.Options{Overrides: []string{over}})
	require.NoError(t, err)
	assert.Equal(t, report.Annulled, p.Scoreboard.Rows[0].Cells[0].Status)
	require.Len(t, p.Failures, 1)
	assert.True(t, p.Failures[0].Annulled)
	page := string(html(t, p))
	assert.Contains(t, page, "annulled, not counted")
	assert.Contains(t, page, "the reply window was one tick too short")
}

func TestFlowFollowsAMessageToItsSend(t *testing.T) {
	b := publishedNamed(t, "l0-respond")[0]
	dir := keepReplay(t, t.TempDir(), b, "reference", seeds.Named(b.Meta.Name))
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	require.Len(t, p.Runs, 1)
	require.Len(t, p.Runs[0].Flows, 1)
	f := p.Runs[0].Flows[0]
	assert.Equal(t, "m1", f.MessageID)
	var stages []string
	for _, s := range f.Steps {
		stages = append(stages, s.Stage)
		assert.NotEmpty(t, s.Ref)
	}
	assert.Equal(t, []string{"deliver", "admit", "claim", "draft", "approve", "send", "resolve"}, stages)

	lanes := map[string]bool{}
	for _, e := range p.Runs[0].Events {
		lanes[e.Lane] = true
		assert.Contains(t, report.Lanes, e.Lane)
	}
	for _, l := range []string{"inbox", "approvals", "drafts", "outbox", "audit", "state"} {
		assert.True(t, lanes[l], "the run has events in the %s lane", l)
	}
	assert.False(t, lanes["harness"], "no crash, no forced advance, nothing deferred: the harness lane is empty")
}

func TestHarnessLaneShowsCrashesAndRestarts(t *testing.T) {
	b := publishedNamed(t, "l1-crash-after-send")[0]
	dir := keepReplay(t, t.TempDir(), b, "reference", seeds.Named(b.Meta.Name))
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	what := map[string]int{}
	for _, e := range p.Runs[0].Events {
		if e.Lane == "harness" {
			what[e.What]++
		}
	}
	assert.Equal(t, len(b.Faults), what["crash"], "each of the bundle's crashes is in the harness lane")
	assert.Equal(t, what["crash"], what["restart"], "and the restart after each")
	assert.Equal(t, len(b.Faults), p.Runs[0].Crashes)
}

func TestDiff(t *testing.T) {
	b := publishedNamed(t, "l0-respond")[0]
	seed := seeds.Named(b.Meta.Name)
	ref := keepReplay(t, t.TempDir(), b, "reference", seed)
	again := keepReplay(t, t.TempDir(), b, "reference", seed)
	weak := keepReplay(t, t.TempDir(), b, "weak-no-send", seed)

	p, err := report.BuildDiff(ref, again, report.Options{})
	require.NoError(t, err)
	assert.True(t, p.Diff.Same, "the same bundle, implementation and seed give the same artifacts")
	require.Len(t, p.Diff.Pairs, 1)
	assert.Nil(t, p.Diff.Pairs[0].Timeline)

	p, err = report.BuildDiff(ref, weak, report.Options{})
	require.NoError(t, err)
	assert.False(t, p.Diff.Same)
	pair := p.Diff.Pairs[0]
	require.NotNil(t, pair.Timeline)
	files := map[string]report.FileDiff{}
	for _, f := range pair.Files {
		files[f.File] = f
	}
	out := files["sandbox/outbox.jsonl"]
	assert.False(t, out.Same)
	assert.Equal(t, 1, out.Line, "the reference sends, weak-no-send never does")
	assert.Equal(t, "B", out.Missing)
	assert.True(t, files["sandbox/inbox.jsonl"].Same, "the harness delivered the same inbox")
	assert.False(t, files["run.jsonl"].Same)
	assert.Equal(t, 1, files["run.jsonl"].Line, "the start record names the implementation")
	assert.Equal(t, 2, pair.Timeline.Tick, "the timelines part at tick 2, where the reference acts on its approval")
	assert.Equal(t, "audit", pair.Timeline.A.What)
	assert.Equal(t, "violation", pair.Timeline.B.What, "weak-no-send's next entry is its missed reply")
	assert.NotEmpty(t, out.A, "the line A has where B has none")
	assert.Len(t, p.Runs, 2)
	assert.Contains(t, string(html(t, p)), "The timelines part at entry")

	_, err = report.BuildDiff(ref, t.TempDir(), report.Options{})
	assert.ErrorContains(t, err, "neither a run folder")
}

func TestBuildRefusesWhatItCannotRead(t *testing.T) {
	empty := t.TempDir()
	_, err := report.Build([]string{empty}, report.Options{})
	assert.ErrorContains(t, err, empty+": neither a report.json")
	_, err = report.Build([]string{filepath.Join(empty, "missing")}, report.Options{})
	assert.Error(t, err)
	bad := filepath.Join(empty, "report.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"impl":"x","results":[]}`), 0o644))
	_, err = report.Build([]string{bad}, report.Options{})
	assert.ErrorContains(t, err, "results: a run report has at least one result")
	require.NoError(t, os.WriteFile(bad, []byte(`{"impl":"x","results":[{"levels":{}}]}`), 0o644))
	_, err = report.Build([]string{bad}, report.Options{})
	assert.ErrorContains(t, err, "results[0].scenario: required")
	require.NoError(t, os.WriteFile(bad, []byte(`not json`), 0o644))
	_, err = report.Build([]string{bad}, report.Options{})
	assert.ErrorContains(t, err, "not a run report")
}

func TestReportShowsFirstAndFailedRuns(t *testing.T) {
	const impl = "weak-send-before-record"
	dir := keepSuite(t, t.TempDir(), impl, 3, publishedNamed(t, "l0-respond", "l1-crash-after-send"))
	// What must be shown, from the kept verdicts: each scenario's first run
	// and every run with a violation.
	want := map[string]bool{}
	for _, scenario := range []string{"l0-respond", "l1-crash-after-send"} {
		for k := 1; k <= 3; k++ {
			data, err := os.ReadFile(filepath.Join(dir, scenario, fmt.Sprintf("run-%d", k), "verdict.json"))
			require.NoError(t, err)
			var v struct {
				Violations []json.RawMessage `json:"violations"`
			}
			require.NoError(t, json.Unmarshal(data, &v))
			if k == 1 || len(v.Violations) > 0 {
				want[fmt.Sprintf("%s run %d (%s)", scenario, k, impl)] = true
			}
		}
	}
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	got := map[string]bool{}
	failed := 0
	for _, r := range p.Runs {
		got[r.Label] = true
		if len(r.Violations) > 0 {
			failed++
		}
	}
	assert.Equal(t, want, got)
	assert.Positive(t, failed, "the failed runs are among them")
	assert.Less(t, len(p.Runs), 6, "passing repeats are left out")

	all, err := report.Build([]string{dir}, report.Options{AllRuns: true})
	require.NoError(t, err)
	assert.Len(t, all.Runs, 6, "--all-runs shows every kept run")
}

func TestRunCarriesOnlyWhatItCites(t *testing.T) {
	b := publishedNamed(t, "l0-respond")[0]
	dir := keepReplay(t, t.TempDir(), b, "reference", seeds.Named(b.Meta.Name))
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	r := p.Runs[0]
	for _, name := range []string{"inbox.jsonl", "approvals.jsonl", "drafts.jsonl", "outbox.jsonl", "audit.jsonl"} {
		assert.Contains(t, r.Files, name, "the events cite %s", name)
	}
	for _, name := range []string{"model-calls.jsonl", "rules.json", "clock", "run.jsonl"} {
		assert.NotContains(t, r.Files, name, "nothing on the page cites %s", name)
	}
	states := 0
	for _, e := range r.Events {
		if e.Lane == "state" {
			states++
			assert.NotEmpty(t, e.Record, "a small snapshot is shown whole")
		}
	}
	assert.Positive(t, states)
}

func TestLargeRunDataIsPackedAndUnpacks(t *testing.T) {
	b := bigBundle(publishedNamed(t, "l0-respond")[0], 1000)
	p0, err := play.Play(b, play.Impl{Name: "streamer", New: newStreamer}, seeds.OfScored(seeds.Named(b.Meta.Name), 1), play.Options{})
	require.NoError(t, err)
	require.Empty(t, p0.Verdict().Violations)
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, suite.KeepJudged(dir, p0.Result, suite.NewRunReport(1, p0.Seeds, p0.Result, p0.Judgement), p0.Judgement))
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	page := string(html(t, p))
	m := regexp.MustCompile(`<script type="application/json" id="data-run-1" data-encoding="gzip-base64">"([A-Za-z0-9+/=]+)"</script>`).FindStringSubmatch(page)
	require.NotNil(t, m, "a large run's data is carried packed, as a JSON string: %.300s", page[strings.Index(page, `id="data-run-1"`)-40:])
	packed, err := base64.StdEncoding.DecodeString(m[1])
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	require.NoError(t, err)
	data, err := io.ReadAll(zr)
	require.NoError(t, err)
	var run report.Run
	require.NoError(t, json.Unmarshal(data, &run))
	assert.Len(t, run.Flows, 1000)
	assert.Equal(t, len(p.Runs[0].Events), len(run.Events), "unpacked, it is the run")
}

func TestRunFilesPastTheBoundAreRefusedWhole(t *testing.T) {
	dir := keepReplay(t, filepath.Join(t.TempDir(), "run"), publishedNamed(t, "l0-respond")[0], "reference", 1)
	audit, err := os.Stat(filepath.Join(dir, "sandbox", "audit.jsonl"))
	require.NoError(t, err)
	runLog, err := os.Stat(filepath.Join(dir, "run.jsonl"))
	require.NoError(t, err)
	require.Less(t, audit.Size(), runLog.Size(), "the run log is the larger file of this run")

	_, err = report.Build([]string{dir}, report.Options{MaxFileBytes: audit.Size() - 1})
	require.ErrorIs(t, err, safefile.ErrTooLarge, "a sandbox file past the bound")
	assert.ErrorContains(t, err, "audit.jsonl")
	_, err = report.Build([]string{dir}, report.Options{MaxFileBytes: runLog.Size() - 1})
	require.ErrorIs(t, err, safefile.ErrTooLarge, "the run log past the bound")
	assert.ErrorContains(t, err, "run.jsonl")
	_, err = report.BuildDiff(dir, dir, report.Options{MaxFileBytes: runLog.Size() - 1})
	require.ErrorIs(t, err, safefile.ErrTooLarge, "diff reads under the same bound")

	at, err := report.Build([]string{dir}, report.Options{MaxFileBytes: runLog.Size()})
	require.NoError(t, err, "every file at the bound is read")
	def, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	assert.Equal(t, html(t, def), html(t, at), "a bound the run fits changes nothing on the page")
}
