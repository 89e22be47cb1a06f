package checker

import (
	"bytes"
	"fmt"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Spec §2 makes drafts.jsonl, outbox.jsonl and audit.jsonl append-only, and
// of the outbox says "a line here is sent; there is no unsend". The engine
// sees every line as it is written and records in the run log, verbatim,
// each line that was later taken back or moved (a rewrite record). The
// checker judges each log as it was appended: every line the harness ever
// saw in it, in the order it first saw them, at the tick it saw them, lost
// ones included. Invariants number lines in that order; evidence is turned
// back into where each line is now (its line in the file) or where it
// survives (the run log's rewrite record).

// appendLog is one implementation log as the run log says it was written.
type appendLog struct {
	name string
	// data is every line seen, in the order first seen, one per line; a
	// line whose text is lost with no record of it is blank (no record).
	data []byte
	// where locates line n at where[n-1]; nil when every line is where its
	// number says.
	where    []string
	rewrites []rewriteRef
	// missing is the lines the run log counted that are neither in the
	// file nor in a rewrite record, and counted where the count is.
	missing int
	counted rewriteRef
}

// rewriteRef is a run log record and its index there; its reference is
// made only for a finding.
type rewriteRef struct {
	rec *sandbox.LogRecord
	i   int
}

func (r rewriteRef) tick() int {
	if r.rec == nil {
		return 0
	}
	return r.rec.Tick
}

func (r rewriteRef) ref() string {
	if r.rec == nil {
		return ""
	}
	return runLogRef(r.i)
}

// appendOnly reads one of the implementation's logs as it was appended.
// Without rewrites and with every counted line present, that is the file.
// It is the k-th of sandbox.ImplLogs; ticks are the run log's tick ends.
func appendOnly(k int, final []byte, log []sandbox.LogRecord, ticks []tickCounts) *appendLog {
	name := sandbox.ImplLogs[k]
	a := &appendLog{name: name, data: final}
	inFile := lineCount(final)
	// Every line seen is in the file or in a rewrite record: a count past
	// them names lines whose text is lost, which are not made up.
	bound := inFile
	for i := range log {
		r := &log[i]
		if r.Kind == sandbox.LogRewrite && r.Rewrite().File == name {
			a.rewrites = append(a.rewrites, rewriteRef{r, i})
			bound += len(r.Rewrite().Lost)
		}
	}
	if len(a.rewrites) == 0 {
		// Most logs: the most lines counted is all that can differ from
		// the file, and when the file holds them the file is the log.
		claimed := 0
		for _, t := range ticks {
			if n := t.n[k]; n > claimed {
				claimed, a.counted = n, rewriteRef{t.r, t.i}
			}
		}
		if claimed <= inFile {
			return a
		}
	}
	var (
		cur     []int    // the line, in the order seen, at each position of the file
		text    [][]byte // each line's text, in the order seen
		where   []string
		claimed int // the most lines the run log says were seen
	)
	// grow adds, at the file's end, the lines seen up to n.
	grow := func(n, i int, r *sandbox.LogRecord) {
		if n > claimed {
			claimed, a.counted = n, rewriteRef{r, i}
		}
		for len(text) < min(n, bound) {
			text, where = append(text, nil), append(where, "")
			cur = append(cur, len(text)-1)
		}
	}
	for i := range log {
		r := &log[i]
		switch {
		case r.Kind == sandbox.LogTickEnd:
			grow(r.Lines[name], i, r)
		case r.Kind == sandbox.LogRewrite && r.Rewrite().File == name:
			k, old := r.Line-1, r.Line-1+len(r.Rewrite().Lost)+r.Rewrite().Kept
			if k < 0 || r.Rewrite().Fresh < 0 || r.Rewrite().Kept < 0 {
				continue
			}
			// Lines appended in the tick before the rewrite are counted
			// only by the tick's end: they come first.
			grow(len(text)+old-len(cur), i, r)
			if old > len(cur) {
				continue // a record the lines known cannot hold
			}
			for j, s := range r.Rewrite().Lost {
				text[cur[k+j]], where[cur[k+j]] = []byte(s), runLogRef(i)
			}
			next := append([]int(nil), cur[:k]...)
			for j := 0; j < r.Rewrite().Fresh && len(text) < bound; j++ {
				text, where = append(text, nil), append(where, "")
				next = append(next, len(text)-1)
			}
			claimed = max(claimed, len(text))
			cur = append(next, cur[k+len(r.Rewrite().Lost):]...)
		}
	}
	if len(a.rewrites) == 0 && claimed <= inFile {
		return a
	}
	lines := fileLines(final)
	a.missing = max(0, len(cur)-len(lines)) + max(0, claimed-len(text))
	for pos, v := range cur {
		if pos < len(lines) {
			text[v], where[v] = lines[pos], ref(name, pos+1)
		}
	}
	for pos := len(cur); pos < len(lines); pos++ {
		text, where = append(text, lines[pos]), append(where, ref(name, pos+1))
	}
	var buf bytes.Buffer
	for _, t := range text {
		buf.Write(t)
		buf.WriteByte('\n')
	}
	a.data, a.where = buf.Bytes(), where
	return a
}

// lineCount counts a file's lines, an unterminated last one included.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// fileLines splits a file into its lines, an unterminated last one
// included, without their newlines.
func fileLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte("\n"))
	if data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// locate turns a reference to line n of an implementation log, numbered in
// the order the lines were seen, into where that line is now.
func (f *facts) locate(r string) string {
	file, n := splitRef(r)
	a := f.appendLogs[file]
	if a == nil || a.where == nil || n < 1 || n > len(a.where) || a.where[n-1] == "" {
		return r
	}
	return a.where[n-1]
}

// relocate rewrites the evidence of every violation with locate.
func (f *facts) relocate(vs []Violation) {
	for i := range vs {
		for j, e := range vs[i].Evidence {
			vs[i].Evidence[j] = f.locate(e)
		}
	}
}

// checkAppendOnly: drafts, outbox and audit are only appended to. One
// violation per rewrite the run log records, and one per log the sandbox
// left shorter than the run log counted.
func checkAppendOnly(f *facts) []Violation {
	var out []Violation
	for _, name := range sandbox.ImplLogs {
		a := f.appendLogs[name]
		if a == nil {
			continue
		}
		for _, rw := range a.rewrites {
			out = append(out, Violation{Invariant: "L0.append-only", Level: 0, Tick: rw.tick(),
				Evidence: []string{rw.ref()}, Detail: rewriteDetail(name, *rw.rec)})
		}
		if a.missing > 0 {
			out = append(out, Violation{Invariant: "L0.append-only", Level: 0, Tick: a.counted.tick(),
				Evidence: []string{a.counted.ref()},
				Detail: fmt.Sprintf("%s holds %d line(s) fewer than the harness saw written to it; their text is lost.",
					name, a.missing)})
		}
	}
	return out
}

func rewriteDetail(name string, r sandbox.LogRecord) string {
	if len(r.Rewrite().Lost) == 0 {
		return fmt.Sprintf("%s was rewritten: %d line(s) were put before lines already written, at line %d.",
			name, r.Rewrite().Fresh, r.Line)
	}
	return fmt.Sprintf("%s was rewritten: %d line(s) written from line %d on were taken back; they still count as written.",
		name, len(r.Rewrite().Lost), r.Line)
}
