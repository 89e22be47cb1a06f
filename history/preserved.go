package history

import (
	"bytes"
	"strconv"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Drafts, outbox and audit are append-only (spec §2: "there is no unsend").
// The run log keeps, in rewrite records, every line the harness saw written
// that the implementation later took back or moved. The history reads each
// log as it was written: the lines numbered in the order the harness first
// saw them, taken-back ones included, each operation's Src saying where its
// line is now (file:line) or where it survives (run.jsonl:N).

// writtenLog is one implementation log as the harness saw it written.
type writtenLog struct {
	data []byte   // the lines in the order seen, one per line; blank when lost without a trace
	src  []string // where line n is, at src[n-1]; nil when that is the file's line n
}

// logShape is what deciding how to read one implementation log takes from
// the run log: whether it rewrote the log, how many lines its rewrites took
// back, and the most lines of it a tick_end counted.
type logShape struct {
	rewrites   bool
	lost, most int
}

// shapesOf is each named log's shape, from one pass over the run log.
func shapesOf(names []string, log []sandbox.LogRecord) []logShape {
	out := make([]logShape, len(names))
	for i := range log {
		r := &log[i]
		switch r.Kind {
		case sandbox.LogTickEnd:
			for k, name := range names {
				out[k].most = max(out[k].most, r.Lines[name])
			}
		case sandbox.LogRewrite:
			for k, name := range names {
				if r.Rewrite().File == name {
					out[k].rewrites = true
					out[k].lost += len(r.Rewrite().Lost)
				}
			}
		}
	}
	return out
}

// readWritten reads one implementation log from the file and the run log,
// whose shape for this log is shape.
func readWritten(name string, file []byte, log []sandbox.LogRecord, shape logShape) writtenLog {
	inFile := bytes.Count(file, []byte("\n"))
	if len(file) > 0 && file[len(file)-1] != '\n' {
		inFile++
	}
	limit := inFile + shape.lost // no more lines were seen than the artifacts hold
	rewrites := shape.rewrites
	if !rewrites && shape.most <= inFile {
		// Only appended to, and no line counted that the file lacks: the
		// file is the log as written, and nothing need be built line by line.
		return writtenLog{data: file}
	}
	var (
		pos   []int // the number of the line at each position of the file, from 0
		lines [][]byte
		srcs  []string
		most  int // the most lines the run log counted
	)
	number := func() int {
		lines, srcs = append(lines, nil), append(srcs, "")
		return len(lines) - 1
	}
	upTo := func(n int) {
		most = max(most, n)
		for len(lines) < n && len(lines) < limit {
			pos = append(pos, number())
		}
	}
	for i, r := range log {
		if r.Kind == sandbox.LogTickEnd {
			upTo(r.Lines[name])
			continue
		}
		if r.Kind != sandbox.LogRewrite || r.Rewrite().File != name || r.Line < 1 || r.Rewrite().Fresh < 0 || r.Rewrite().Kept < 0 {
			continue
		}
		from := r.Line - 1
		span := len(r.Rewrite().Lost) + r.Rewrite().Kept
		// The tick's own appends before the rewrite come before it.
		upTo(len(lines) + from + span - len(pos))
		if from+span > len(pos) {
			continue
		}
		at := ref(sandbox.RunLogFile, i+1)
		for k, text := range r.Rewrite().Lost {
			lines[pos[from+k]], srcs[pos[from+k]] = []byte(text), at
		}
		kept := pos[from+len(r.Rewrite().Lost):]
		rebuilt := append([]int(nil), pos[:from]...)
		for k := 0; k < r.Rewrite().Fresh && len(lines) < limit; k++ {
			rebuilt = append(rebuilt, number())
		}
		pos = append(rebuilt, kept...)
		most = max(most, len(lines))
	}
	if !rewrites && most <= inFile {
		return writtenLog{data: file}
	}
	onFile := splitFile(file)
	for p, n := range pos {
		if p < len(onFile) {
			lines[n], srcs[n] = onFile[p], ref(name, p+1)
		}
	}
	for p := len(pos); p < len(onFile); p++ {
		lines, srcs = append(lines, onFile[p]), append(srcs, ref(name, p+1))
	}
	return writtenLog{data: append(bytes.Join(lines, []byte("\n")), '\n'), src: srcs}
}

// splitFile splits a file into its lines, an unterminated last one
// included.
func splitFile(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// setSrc sets op's source to srcOf(file, n).
func (w writtenLog) setSrc(op *Op, file string, n int) {
	if w.src == nil || n < 1 || n > len(w.src) || w.src[n-1] == "" {
		op.at(file, n)
		return
	}
	op.SetSrc(w.src[n-1])
}

// srcOf is where line n of an implementation log, numbered as written, is.
func (w writtenLog) srcOf(file string, n int) string {
	if w.src == nil || n < 1 || n > len(w.src) || w.src[n-1] == "" {
		return file + ":" + strconv.Itoa(n)
	}
	return w.src[n-1]
}
