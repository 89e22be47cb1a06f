package report

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/amr-bench/amr/checker"
)

var (
	//go:embed page.tmpl
	pageTemplate string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

// page is parsed at its first use, not when the program starts: every amr
// process links this package, and one started as an implementation (amr
// serve-impl, once per instance of every run) never renders a page.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"status": statusText,
		"level":  func(i int) string { return "L" + strconv.Itoa(i) },
		"join":   strings.Join,
	}).Parse(pageTemplate))
})

// WriteHTML renders the page as one self-contained HTML document: its CSS
// and script inline, its data embedded as JSON, nothing fetched. The same
// page gives the same bytes.
func (p *Page) WriteHTML(w io.Writer) error {
	data, err := json.Marshal(p.summary())
	if err != nil {
		return err
	}
	view := pageView{Page: p, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), Data: template.JS(data)}
	for _, r := range p.Runs {
		rv, err := newRunView(r)
		if err != nil {
			return err
		}
		view.Runs = append(view.Runs, rv)
	}
	return page().Execute(w, view)
}

// summary is the page's data without the runs' bulk (entries, files,
// flows): each run's is embedded apart and parsed only when the run is
// opened, so a large run does not slow the page's opening.
func (p *Page) summary() Page {
	s := *p
	s.Runs = nil
	return s
}

type pageView struct {
	*Page
	CSS  template.CSS
	JS   template.JS
	Data template.JS
	Runs []runView
}

// runView is a run as the template renders it: its violations with their
// evidence resolved to the lines they cite, and its data for the script.
type runView struct {
	Run
	Levels     []levelView
	Violations []violationView
	Data       template.JS
	// Encoding is "gzip-base64" when Data is compressed, "" for plain JSON.
	Encoding string
	// StartTick is where its lanes open: the first violation's tick.
	StartTick int
}

type levelView struct {
	Name, Status string
}

type violationView struct {
	checker.Violation
	ID       string
	Evidence []evidenceView
}

type evidenceView struct {
	Ref, Line string
	Found     bool
}

func newRunView(r Run) (runView, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return runView{}, err
	}
	rv := runView{Run: r, Data: template.JS(data)}
	if len(data) > compressAbove {
		packed, err := gzipBase64(data)
		if err != nil {
			return runView{}, err
		}
		// A JSON string, so the page's template writes it verbatim.
		rv.Data, rv.Encoding = template.JS(`"`+packed+`"`), "gzip-base64"
	}
	tl := r.Timeline
	for i := 0; i <= tl.TopLevel && i <= checker.MaxLevel; i++ {
		name := fmt.Sprintf("L%d", i)
		st := tl.Levels[name]
		for _, v := range tl.Vacuous {
			if v == name {
				st = checker.Vacuous
			}
		}
		rv.Levels = append(rv.Levels, levelView{name, st})
	}
	for i, v := range tl.Violations {
		vv := violationView{Violation: v, ID: fmt.Sprintf("%s-v%d", r.ID, i+1)}
		for _, ref := range v.Evidence {
			line, ok := lineAt(r.Files, ref)
			vv.Evidence = append(vv.Evidence, evidenceView{Ref: ref, Line: line, Found: ok})
		}
		rv.Violations = append(rv.Violations, vv)
	}
	if len(tl.Violations) > 0 {
		rv.StartTick = tl.Violations[0].Tick
	}
	return rv, nil
}

// compressAbove is the size of run data past which the page carries it
// compressed: the browser reads a large run's page in a fraction of the
// time, and unpacks the run when it is opened.
const compressAbove = 256 << 10

// gzipBase64 packs data deterministically: no name, no time in the
// header.
func gzipBase64(data []byte) (string, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(data); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// lineAt is the line a file:line reference cites, from the run's files.
func lineAt(files map[string][]string, ref string) (string, bool) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return "", false
	}
	n, err := strconv.Atoi(ref[i+1:])
	lines, ok := files[ref[:i]]
	if err != nil || !ok || n < 1 || n > len(lines) {
		return "", false
	}
	return lines[n-1], true
}

// statusText is how a status reads on the page: failures and invalid runs
// in capitals, as the CLI's tables write them.
func statusText(s string) string {
	switch s {
	case checker.Fail:
		return "FAIL"
	case Invalid:
		return "INVALID"
	case "":
		return checker.Untested
	}
	return s
}
