package sim

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// appendLog follows one of the implementation's logs (drafts, outbox,
// audit), which spec §2 makes append-only: "a line here is sent; there is no
// unsend". It keeps the log's complete lines as the harness last saw them
// and, once a line it saw is gone, every line it ever saw in the order it
// first saw them: what was written once stays written, for binding
// approvals and for the checker. A last line without its newline is not yet
// written and is not followed.
type appendLog struct {
	cur   []byte // the complete lines as last seen
	last  int    // where the last line of cur starts
	total int    // lines seen since the run began, lost ones included
	// hist is every line seen, in the order first seen; nil while nothing
	// was lost, when it is cur.
	hist []byte
}

// rewrite is what a look found changed among lines already seen. The new
// content is the old lines before line, then fresh lines never seen, then
// the kept old lines that followed the lost ones, then lines appended.
type rewrite struct {
	line      int      // the first line (from 1) no longer where it was
	lost      [][]byte // the old lines from there on that are gone, verbatim
	fresh     int      // new lines standing before the kept ones
	kept      int      // old lines after the lost ones still in the file
	truncated bool     // the new content is a prefix of the old
}

// history is every line seen, lost ones included, in the order first seen.
func (l *appendLog) history() []byte {
	if l.hist != nil {
		return l.hist
	}
	return l.cur
}

// lastLine returns the last complete line seen, with its newline.
func (l *appendLog) lastLine() []byte { return l.cur[l.last:] }

// more takes bytes found right after the lines seen, when the caller knows
// the lines seen are still there, and returns how many new lines they
// complete.
func (l *appendLog) more(data []byte) int {
	data = complete(data)
	if len(data) == 0 {
		return 0
	}
	l.cur = append(l.cur, data...)
	return l.grew(len(l.cur) - len(data))
}

// unchanged reports whether data's complete lines are the lines seen, none
// missing and none added: whole would then find nothing and keep nothing
// new. An empty log is never reported unchanged, so whole still takes it.
func (l *appendLog) unchanged(data []byte) bool {
	return len(l.cur) > 0 && bytes.Equal(complete(data), l.cur)
}

// whole takes the log's whole content. When trusted, the caller knows it
// extends the lines seen (the in-process store never changes bytes in place)
// and it is not compared. It returns the rewrite found, if any, and how many
// lines were not seen before. data is kept, not copied.
func (l *appendLog) whole(data []byte, trusted bool) (*rewrite, int) {
	data = complete(data)
	if len(data) >= len(l.cur) && (trusted || bytes.Equal(data[:len(l.cur)], l.cur)) {
		from := len(l.cur)
		l.cur = data
		return nil, l.grew(from)
	}
	old, now := splitLines(l.cur), splitLines(data)
	p := commonPrefix(old, now)
	i, j := keptBlock(old[p:], now[p:])
	rw := &rewrite{line: p + 1, lost: old[p : p+i], truncated: len(now) == p}
	if kept := len(old) - p - i; kept > 0 {
		rw.kept, rw.fresh = kept, j
	}
	if l.hist == nil {
		l.hist = append([]byte(nil), l.cur...)
	}
	newLines := append(now[p:p+rw.fresh:p+rw.fresh], now[p+rw.fresh+rw.kept:]...)
	for _, line := range newLines {
		l.hist = append(append(l.hist, line...), '\n')
	}
	l.total += len(newLines)
	l.cur = data
	l.last = lastStart(data)
	return rw, len(newLines)
}

// grew accounts for the lines of cur from offset from on, just appended.
func (l *appendLog) grew(from int) int {
	added := l.cur[from:]
	n := bytes.Count(added, []byte("\n"))
	if n == 0 {
		return 0
	}
	if l.hist != nil {
		l.hist = append(l.hist, added...)
	}
	l.total += n
	l.last = lastStart(l.cur)
	return n
}

// complete cuts data after its last newline.
func complete(data []byte) []byte { return data[:bytes.LastIndexByte(data, '\n')+1] }

// lastStart is where the last line of complete lines starts.
func lastStart(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	return bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
}

// splitLines splits complete lines, dropping their newlines.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data[:len(data)-1], []byte("\n"))
}

func commonPrefix(a, b [][]byte) int {
	n := 0
	for n < len(a) && n < len(b) && bytes.Equal(a[n], b[n]) {
		n++
	}
	return n
}

// keepBudget bounds the line comparisons keptBlock makes, so a hostile
// rewrite cannot stall the harness; past it, nothing counts as kept.
const keepBudget = 1 << 20

// keptBlock finds the longest tail old[i:] of the old lines that stands,
// whole and in order, in the new lines at some j: the lines that survived a
// rewrite of the lines before them. Lines before i are lost, new lines
// before j are fresh. Without such a tail, i is len(old) and j is 0.
func keptBlock(old, now [][]byte) (i, j int) {
	at := map[string][]int{}
	for k, line := range now {
		at[string(line)] = append(at[string(line)], k)
	}
	budget := keepBudget
	for i = 0; i < len(old); i++ {
		size := len(old) - i
		for _, j = range at[string(old[i])] {
			if j+size > len(now) {
				break
			}
			k := 1
			for k < size && bytes.Equal(old[i+k], now[j+k]) {
				k++
			}
			if k == size {
				return i, j
			}
			if budget -= k; budget <= 0 {
				return len(old), 0
			}
		}
	}
	return len(old), 0
}

// record is the run log's account of a rewrite: the lost lines verbatim
// (as JSON strings: a line that is not UTF-8 keeps its other bytes), so
// that what was written once survives in the run log.
func (rw *rewrite) record(name string, written int, how string) sandbox.LogRecord {
	lost := make([]string, len(rw.lost))
	for i, l := range rw.lost {
		lost[i] = string(l)
	}
	return sandbox.LogRecord{Kind: sandbox.LogRewrite, Line: rw.line, Written: written, Detail: rw.describe(name, how),
		LogRewriteInfo: &sandbox.LogRewriteInfo{File: name, Lost: lost, Fresh: rw.fresh, Kept: rw.kept}}
}

// describe says in one sentence what happened to the file.
func (rw *rewrite) describe(name, how string) string {
	var what []string
	if len(rw.lost) > 0 {
		what = append(what, fmt.Sprintf("%d line(s) the harness had seen, from line %d on, are gone", len(rw.lost), rw.line))
	}
	if rw.fresh > 0 {
		what = append(what, fmt.Sprintf("%d line(s) were put before lines already written", rw.fresh))
	}
	if how == "" {
		how = "rewritten"
		if rw.truncated {
			how = "truncated"
		}
	}
	return fmt.Sprintf("%s was %s: %s; what was written once still counts", name, how, strings.Join(what, " and "))
}
