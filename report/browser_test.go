package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/report"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

// The browser tests open reports in a real headless Chromium, assert on
// the DOM and save screenshots under the test's artifact directory (go
// test -artifacts keeps them) and, when AMR_ARTIFACTS is set, under
// $AMR_ARTIFACTS/report/. Without a browser they skip, unless
// AMR_REQUIRE_BROWSER=1 (CI, after installing one) makes that a failure.

// browserPath finds a Chromium: $AMR_BROWSER, else the usual names.
func browserPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AMR_BROWSER"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no browser found (chromium, chromium-browser, google-chrome, or $AMR_BROWSER): install Debian's chromium to run the report's browser tests"
	if os.Getenv("AMR_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + " (AMR_REQUIRE_BROWSER=1)")
	}
	t.Skip(msg)
	return ""
}

// newBrowser starts a headless Chromium on a fresh profile, with nothing
// that reaches the network on its own.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return newBrowserFor(t, 3*time.Minute)
}

// newBrowserFor is newBrowser with its own deadline: a page of 10^5
// messages takes minutes on a loaded machine.
func newBrowserFor(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browserPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("enable-precise-memory-info", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	return ctx
}

// writePage writes a report page into the test's artifact directory.
func writePage(t *testing.T, p *report.Page, name string) (path string, size int) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, p.WriteHTML(&buf))
	path = filepath.Join(t.ArtifactDir(), name)
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path, buf.Len()
}

// open loads a page from disk and waits for its script to be ready. It
// returns the time from navigation start to the load event, as the
// browser measured it.
func open(t *testing.T, ctx context.Context, path string) float64 {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("html[data-ready]")))
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const n = performance.getEntriesByType("navigation")[0]; return n.loadEventEnd - n.startTime; })()`))
	require.NoError(t, err)
	return ms
}

// screenshot saves the viewport as a PNG.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	path := filepath.Join(t.ArtifactDir(), name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot %s", path)
	if dir := os.Getenv("AMR_ARTIFACTS"); dir != "" {
		dst := filepath.Join(dir, "report", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, png, 0o644))
		t.Logf("screenshot %s", dst)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, "evaluating %s", js)
	return v
}

// scoreRuns is how many scored runs the scoreboard test plays per scenario
// and implementation: 1 keeps the test short; AMR_REPORT_RUNS=5 plays the
// spec's five.
func scoreRuns(t *testing.T) int {
	n := 1
	if s := os.Getenv("AMR_REPORT_RUNS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "AMR_REPORT_RUNS")
	}
	return n
}

type domCell struct {
	Impl, Level, Status, Text, Origin string
	Runs, Forced                      int
}

func TestBrowserScoreboardOfTheBuiltInImplementations(t *testing.T) {
	ctx := newBrowser(t)
	runs := scoreRuns(t)
	bundles := publishedNamed(t)
	var dirs []string
	expect := map[[2]string]string{}
	for _, impl := range examples.All() {
		dir := keepSuite(t, filepath.Join(t.TempDir(), impl.Name), impl.Name, runs, bundles)
		dirs = append(dirs, dir)
		// What each cell must read, from the report.json just written.
		var doc struct {
			Results []*suite.Report `json:"results"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "report.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &doc))
		for _, level := range suite.LevelNames {
			expect[[2]string{impl.Name, level}] = expectedCell(doc.Results, level)
		}
	}
	p, err := report.Build(dirs, report.Options{})
	require.NoError(t, err)
	path, size := writePage(t, p, "scoreboard.html")
	ms := open(t, ctx, path)
	t.Logf("scoreboard page: %d implementations, %d runs shown, %d bytes, load event after %.0f ms", len(p.Scoreboard.Rows), len(p.Runs), size, ms)

	cells := eval[[]domCell](t, ctx, `Array.from(document.querySelectorAll("td.cell")).map(td => ({
		Impl: td.dataset.impl, Level: td.dataset.level, Status: td.dataset.status,
		Text: td.querySelector(".status").textContent, Origin: td.dataset.origin,
		Runs: +td.dataset.runs, Forced: +td.dataset.forced}))`)
	require.Len(t, cells, len(examples.All())*len(suite.LevelNames))
	byKey := map[[2]string]domCell{}
	for _, c := range cells {
		byKey[[2]string{c.Impl, c.Level}] = c
	}
	for _, row := range p.Scoreboard.Rows {
		for _, c := range row.Cells {
			got := byKey[[2]string{row.Impl, c.Level}]
			assert.Equal(t, c.Status, got.Status, "%s %s", row.Impl, c.Level)
			assert.Equal(t, expect[[2]string{row.Impl, c.Level}], got.Status, "%s %s against report.json", row.Impl, c.Level)
			assert.Equal(t, c.Origin, got.Origin, "%s %s", row.Impl, c.Level)
			assert.Equal(t, c.Runs, got.Runs, "%s %s", row.Impl, c.Level)
			assert.Equal(t, c.Forced, got.Forced, "%s %s", row.Impl, c.Level)
			want := map[string]string{"pass": "pass", "fail": "FAIL", "untested": "untested", "vacuous": "vacuous"}[c.Status]
			assert.Equal(t, want, got.Text, "%s %s", row.Impl, c.Level)
		}
	}
	data := eval[map[string]any](t, ctx, `window.amr.data.scoreboard`)
	assert.Len(t, data["rows"], len(p.Scoreboard.Rows), "the page's embedded data is the scoreboard it shows")

	// Keyboard: the first Tab reaches the skip link, and every run's
	// summary is focusable.
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\t")))
	assert.Equal(t, "skip", eval[string](t, ctx, `document.activeElement.className`))
	assert.True(t, eval[bool](t, ctx, `Array.from(document.querySelectorAll("summary")).every(s => s.tabIndex >= 0)`))

	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1500, 1300)))
	eval[any](t, ctx, `document.getElementById("scoreboard").scrollIntoView()`)
	screenshot(t, ctx, "scoreboard.png")

	// A narrow window scrolls the tables, not the page.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(380, 800)))
	assert.LessOrEqual(t, eval[int](t, ctx, `document.documentElement.scrollWidth`), 381)
	screenshot(t, ctx, "scoreboard-narrow.png")
}

// expectedCell reads a level's cell straight from report.json results:
// FAIL when any result failed it, untested when none tested it, vacuous
// when every result that passed it judged nothing, pass otherwise.
func expectedCell(results []*suite.Report, level string) string {
	tested, fail, pass := false, false, false
	for _, r := range results {
		s := r.Status(level)
		switch s {
		case suite.Untested:
			continue
		case suite.Fail:
			fail = true
		case suite.Pass:
			pass = true
		}
		tested = true
	}
	switch {
	case !tested:
		return suite.Untested
	case fail:
		return suite.Fail
	case pass:
		return suite.Pass
	}
	return suite.Vacuous
}

type domViolation struct {
	Run, Invariant string
	Tick           int
	Refs           []string
	Lines          []string
}

// domViolations lists every violation the page shows, with the evidence
// lines it shows in place.
func domViolations(t *testing.T, ctx context.Context) []domViolation {
	return eval[[]domViolation](t, ctx, `Array.from(document.querySelectorAll("li.violation")).map(li => ({
		Run: li.closest("details.run").id, Invariant: li.dataset.invariant, Tick: +li.dataset.tick,
		Refs: Array.from(li.querySelectorAll(".evidence > li")).map(e => e.dataset.ref),
		Lines: Array.from(li.querySelectorAll(".evidence > li")).map(e => { const l = e.querySelector("pre.line"); return l ? l.textContent : null; })}))`)
}

// assertEveryViolation checks that every violation of every run is on the
// page, with each cited line shown.
func assertEveryViolation(t *testing.T, p *report.Page, got []domViolation) {
	t.Helper()
	var want []domViolation
	for _, r := range p.Runs {
		for _, v := range r.Violations {
			dv := domViolation{Run: r.ID, Invariant: v.Invariant, Tick: v.Tick, Refs: v.Evidence, Lines: []string{}}
			for _, ref := range v.Evidence {
				file, n := splitRef(t, ref)
				require.GreaterOrEqual(t, len(r.Files[file]), n, "%s: %s is kept", r.ID, ref)
				dv.Lines = append(dv.Lines, r.Files[file][n-1])
			}
			want = append(want, dv)
		}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
}

func TestBrowserCounterexampleTimeline(t *testing.T) {
	ctx := newBrowser(t)
	dir := keepCounterexample(t, t.TempDir())
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	require.Len(t, p.Counterexamples, 1)
	cx := p.Counterexamples[0]
	require.NotNil(t, cx.Shrunk)
	path, size := writePage(t, p, "counterexample.html")
	ms := open(t, ctx, path)
	t.Logf("counterexample page: %d bytes, load event after %.0f ms", size, ms)

	assert.Equal(t, 2, eval[int](t, ctx, `document.querySelectorAll("#counterexamples .side pre.bundle").length`), "raw and shrunk side by side")
	assert.Equal(t, cx.Replay, eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#counterexamples pre.cmd")).map(p => p.textContent)`))
	assertEveryViolation(t, p, domViolations(t, ctx))

	// Open the shrunk run with the keyboard-reachable summary, as a reader
	// would, and click the first violation drawn in its lanes.
	run := "#" + cx.Shrunk.RunID
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(run+" > summary")), chromedp.WaitVisible(chromedp.CSS(run+" table.lanes"))))
	lanes := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("`+run+` table.lanes tbody tr")).map(tr => tr.dataset.lane)`)
	assert.Equal(t, report.Lanes, lanes)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(run+" button.ev.violation"))))
	detail := eval[string](t, ctx, `document.querySelector("`+run+` .detail").textContent`)
	var shrunk report.Run
	for _, r := range p.Runs {
		if r.ID == cx.Shrunk.RunID {
			shrunk = r
		}
	}
	require.NotEmpty(t, shrunk.Violations)
	first := shrunk.Violations[0]
	assert.Contains(t, detail, first.Invariant)
	for _, ref := range first.Evidence {
		file, n := splitRef(t, ref)
		assert.Contains(t, detail, ref)
		assert.Contains(t, detail, shrunk.Files[file][n-1], "the clicked violation shows the line it cites")
	}
	flows := eval[int](t, ctx, `document.querySelectorAll("`+run+` table.flows tbody tr").length`)
	assert.Equal(t, len(shrunk.Flows), flows)
	eval[any](t, ctx, `document.querySelector("`+run+`").scrollIntoView()`)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1300)))
	screenshot(t, ctx, "counterexample-timeline.png")
	eval[any](t, ctx, `document.getElementById("counterexamples").scrollIntoView()`)
	screenshot(t, ctx, "counterexample-bundles.png")
}

func TestBrowserPublishedSuiteEveryViolation(t *testing.T) {
	ctx := newBrowser(t)
	bundles := publishedNamed(t)
	dirs := []string{keepSuite(t, filepath.Join(t.TempDir(), "ref"), "reference", 1, bundles)}
	for _, weak := range []string{"weak-send-before-record", "weak-send-without-approval", "weak-ignore-escalation"} {
		dirs = append(dirs, keepSuite(t, filepath.Join(t.TempDir(), weak), weak, 2, bundles))
	}
	p, err := report.Build(dirs, report.Options{})
	require.NoError(t, err)
	path, _ := writePage(t, p, "suite.html")
	open(t, ctx, path)
	assertEveryViolation(t, p, domViolations(t, ctx))
}

func TestBrowserDiff(t *testing.T) {
	ctx := newBrowser(t)
	b := publishedNamed(t, "l0-respond")[0]
	seed := seeds.Named(b.Meta.Name)
	a := keepReplay(t, filepath.Join(t.TempDir(), "reference"), b, "reference", seed)
	w := keepReplay(t, filepath.Join(t.TempDir(), "weak-no-send"), b, "weak-no-send", seed)
	p, err := report.BuildDiff(a, w, report.Options{})
	require.NoError(t, err)
	path, _ := writePage(t, p, "diff.html")
	open(t, ctx, path)
	pair := p.Diff.Pairs[0]
	rows := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#diff table.files tr.differ")).map(tr => tr.dataset.file)`)
	var want []string
	for _, f := range pair.Files {
		if !f.Same {
			want = append(want, f.File)
		}
	}
	assert.Equal(t, want, rows)
	assert.Contains(t, eval[string](t, ctx, `document.querySelector("#diff .first-diff").textContent`), fmt.Sprintf("tick %d", pair.Timeline.Tick))
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1100)))
	screenshot(t, ctx, "diff.png")
}

// largeMessages is the size of the run whose report is measured: the
// spec's scale target for one report.
const largeMessages = 10_000

func TestBrowserLargeRunOpens(t *testing.T) {
	if os.Getenv("AMR_REPORT_LARGE") != "1" {
		t.Skip("the 10^4-message report is measured with AMR_REPORT_LARGE=1 (CI sets it): playing and judging the run takes half a minute")
	}
	browserPath(t)
	b := bigBundle(publishedNamed(t, "l0-respond")[0], largeMessages)
	start := time.Now()
	p0, err := play.Play(b, play.Impl{Name: "streamer", New: newStreamer}, seeds.OfScored(seeds.Named(b.Meta.Name), 1), play.Options{})
	require.NoError(t, err)
	t.Logf("played %d messages in %s", largeMessages, time.Since(start).Round(time.Millisecond))
	require.Empty(t, p0.Verdict().Violations, "the streaming responder answers every message")
	dir := filepath.Join(t.ArtifactDir(), "large-run")
	require.NoError(t, suite.KeepJudged(dir, p0.Result, suite.NewRunReport(1, p0.Seeds, p0.Result, p0.Judgement), p0.Judgement))

	start = time.Now()
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	path, size := writePage(t, p, "large.html")
	t.Logf("built the report in %s", time.Since(start).Round(time.Millisecond))
	require.Len(t, p.Runs, 1)
	r := p.Runs[0]
	require.Len(t, r.Flows, largeMessages)

	ctx := newBrowser(t)
	load := open(t, ctx, path)
	draw, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(async () => { const t0 = performance.now(); await window.amr.open("`+r.ID+`"); return performance.now() - t0; })()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	t.Logf("large report: %d messages, %d events, %d bytes; load event after %.0f ms; opening the run (parse its data, draw its first lanes and flows) %.0f ms",
		largeMessages, len(r.Events), size, load, draw)
	assert.Equal(t, 100, eval[int](t, ctx, `document.querySelectorAll("#`+r.ID+` table.flows tbody tr").length`), "flows are drawn a page at a time")
	assert.Equal(t, 30, eval[int](t, ctx, `document.querySelectorAll("#`+r.ID+` table.lanes thead th").length`)-1, "lanes are drawn a window of ticks at a time")
	assert.LessOrEqual(t, eval[int](t, ctx, `Math.max(...Array.from(document.querySelectorAll("#`+r.ID+` table.lanes td")).map(td => td.querySelectorAll("button").length))`), 7,
		"a busy tick draws six events of a lane and a button for the rest")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000)))
	eval[any](t, ctx, `document.getElementById("`+r.ID+`").scrollIntoView()`)
	screenshot(t, ctx, "large-run.png")
}

// TestBrowserOpensAKeptPage opens a page written by amr report, named by
// AMR_REPORT_PAGE, and measures what a reader waits for on it: the load
// event, opening each run (unpack, parse, draw its first lanes and flows),
// the next page of flows, a filter by an id and a jump to the last tick, with
// the script's heap after each run opened. It is how the report of a run
// of 10^5 messages was measured (docs/report.md); without the variable it
// skips.
func TestBrowserOpensAKeptPage(t *testing.T) {
	path := os.Getenv("AMR_REPORT_PAGE")
	if path == "" {
		t.Skip("AMR_REPORT_PAGE names a page written by amr report to measure in the browser")
	}
	path, err := filepath.Abs(path)
	require.NoError(t, err)
	info, err := os.Stat(path)
	require.NoError(t, err)
	ctx := newBrowserFor(t, 20*time.Minute)
	load := open(t, ctx, path)
	t.Logf("page %s: %d bytes; load event after %.0f ms", path, info.Size(), load)
	ids := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("details.run")).map(d => d.id)`)
	for _, id := range ids {
		sel := "#" + id
		ms := timed(t, ctx, `await window.amr.open("`+id+`")`)
		// The flows' count reads "100 of N flow(s)", the lanes' "ticks a–b of N with events".
		counts := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("`+sel+` .controls .sub")).map(s => s.textContent)`)
		require.Len(t, counts, 2)
		var shown, flows int
		_, err := fmt.Sscanf(counts[1], "%d of %d flow(s)", &shown, &flows)
		require.NoError(t, err, "the flows' count %q", counts[1])
		heap := eval[float64](t, ctx, `performance.memory.usedJSHeapSize`)
		t.Logf("%s: %s, %s; opened in %.0f ms; script heap %.0f MB", id, counts[0], counts[1], ms, heap/1e6)
		assert.Equal(t, "1", eval[string](t, ctx, `document.querySelector("`+sel+`").dataset.drawn`), "the run is drawn")
		assert.Equal(t, min(flows, 100), eval[int](t, ctx, `document.querySelectorAll("`+sel+` table.flows tbody tr").length`), "flows are drawn a page at a time")
		assert.LessOrEqual(t, eval[int](t, ctx, `document.querySelectorAll("`+sel+` table.lanes thead th").length`)-1, 30, "lanes are drawn a window of ticks at a time")
		if flows <= 100 {
			continue
		}
		more := timed(t, ctx, `document.querySelector("`+sel+` .lanes-host > button").click()`)
		assert.Equal(t, 200, eval[int](t, ctx, `document.querySelectorAll("`+sel+` table.flows tbody tr").length`), "show more draws the next page")
		last := eval[string](t, ctx, `document.querySelector("`+sel+` table.flows tbody tr:last-child").dataset.message`)
		filter := timed(t, ctx, `const f = document.querySelector("`+sel+` input[type=search]"); f.value = "`+last+`"; f.dispatchEvent(new Event("input"))`)
		assert.GreaterOrEqual(t, eval[int](t, ctx, `document.querySelectorAll("`+sel+` table.flows tbody tr").length`), 1, "the filter finds a drawn flow")
		jump := timed(t, ctx, `const i = document.querySelector("`+sel+` input[type=number]"); i.value = "1000000"; i.parentNode.nextSibling.click()`)
		t.Logf("%s: show more %.0f ms; filter by %s %.0f ms; go to the last tick %.0f ms", id, more, last, filter, jump)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000)))
	screenshot(t, ctx, "kept-page.png")
}

// timed runs a script body in the page and returns how long it took, as
// the page's clock measured it.
func timed(t *testing.T, ctx context.Context, body string) float64 {
	t.Helper()
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(async () => { const t0 = performance.now(); `+body+`; return performance.now() - t0; })()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "running %s", body)
	return ms
}
