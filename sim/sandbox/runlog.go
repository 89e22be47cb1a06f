package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/seeds"
)

// RunLogFile is the run log's file name, kept beside the sandbox directory.
const RunLogFile = "run.jsonl"

// Run log record kinds: one record per harness action.
const (
	LogStart     = "start"      // first record: the run's parameters and seed
	LogDeliver   = "deliver"    // a message appended to inbox.jsonl
	LogDuplicate = "duplicate"  // a delivered message's line appended again
	LogApprove   = "approve"    // an approval bound and appended to approvals.jsonl
	LogDefer     = "defer"      // an approval or signal due but not yet bindable
	LogRedeliver = "redeliver"  // an approval line appended again
	LogSignal    = "signal"     // a signal bound and appended to signals.jsonl
	LogPosture   = "posture"    // mode.json rewritten
	LogRules     = "rules"      // rules.json rewritten
	LogJump      = "tick_jump"  // the clock moved by more than one
	LogCrash     = "crash"      // the running instance was discarded
	LogRestart   = "restart"    // a fresh instance was started on the same sandbox
	LogStepError = "step_error" // a step returned an error
	LogTickEnd   = "tick_end"   // the tick's work ended: quiescent, or a forced advance
	LogRewrite   = "rewrite"    // lines of drafts, outbox or audit the harness had seen are gone or moved
	LogUnfired   = "unfired"    // a scheduled item that never fired by the horizon
	LogEnd       = "end"        // last record

	// Records only a process implementation produces.
	LogExit     = "exit"          // the process ended by itself; it stays down until a crash fault restarts it
	LogEscaped  = "escaped"       // processes that left the process group, found after a kill and killed
	LogHung     = "hung"          // the implementation was killed as hung (never quiet, a step never answered); down until a crash fault restarts it
	LogOversize = "oversize"      // an implementation file grew past the read bound; the implementation was killed
	LogTamper   = "tamper"        // a harness file in the sandbox differs from what the harness wrote
	LogReady    = "ready"         // readiness handshake: the instance said it is ready, or the bounded wait ended
	LogBound    = "sandbox_bound" // the run directory grew past its size bound; the implementation was killed for good
)

// LogRecord is one line of the run log. Which fields are set depends on
// Kind; Tick is always the clock's tick when the action happened.
type LogRecord struct {
	Kind string `json:"kind"`
	Tick int    `json:"tick"`

	// start: behind a pointer, as only the first record has them.
	*LogStartInfo

	// deliveries, approvals, signals, faults
	ID          string `json:"id,omitempty"`
	Ref         string `json:"ref,omitempty"` // the scheduled item's id or message id it refers to
	DraftID     string `json:"draft_id,omitempty"`
	ContentHash string `json:"content_hash,omitempty"`
	Decision    string `json:"decision,omitempty"`
	Forge       string `json:"forge,omitempty"`
	SignalType  string `json:"signal_type,omitempty"`
	Target      string `json:"target,omitempty"`
	Posture     string `json:"posture,omitempty"`
	RulesHash   string `json:"rules_hash,omitempty"` // of the rules.json bytes written: the initial ones on start (absent in older logs), the new ones on rules
	To          int    `json:"to,omitempty"`
	Line        int    `json:"line,omitempty"` // the line written, in its file
	Scheduled   *int   `json:"scheduled,omitempty"`
	// Stamped is, for an approval or signal line, the tick the line
	// carries when it is not the record's tick: the tick it was due, under
	// a bundle's stamp_scheduled.
	Stamped *int `json:"stamped,omitempty"`

	// crash; for a rewrite, Written is how many of the tick's listed writes
	// came before it
	AfterWrites int `json:"after_writes,omitempty"`
	// WritesTo, on a crash, is the one log whose lines the fault counted
	// (its writes_to, D138); Written still counts every write.
	WritesTo string `json:"writes_to,omitempty"`
	Written  int    `json:"written,omitempty"`
	// Down, on a crash, is the downtime drawn for it: the restart record
	// comes at the first visited tick at or after the crash's tick plus
	// Down, and the schedule fires unread until then.
	Down int `json:"down,omitempty"`
	// Torn, on a crash, is the file whose write it tore, TornText the bytes
	// that reached it, and Line (for a log) the line they begin.
	Torn     string `json:"torn,omitempty"`
	TornText string `json:"torn_text,omitempty"`

	// rewrite: the log (File) and, in it as it was, the first line that is
	// no longer where it was (Line); the lines from there on that are gone,
	// verbatim (Lost); the lines never seen before that now stand there
	// (Fresh), and the old lines after the lost ones still in the file
	// after them (Kept). Lines after those are appended ones.
	// Only a rewrite has them, so they are behind a pointer.
	*LogRewriteInfo

	// tick_end: the implementation's writes during the tick in order (one
	// entry per appended log line, and state.json for each rewrite), the
	// lines the harness has seen in each log since the run began (its
	// complete lines, for a log only appended to; lines lost to a rewrite
	// still count), whether the advance was forced, and state.json's content
	// when it changed during the tick: as an edit of the version before
	// (StateEdit), or, in older logs and for a state that is not valid
	// UTF-8, in full (State).
	Writes    []string        `json:"writes,omitempty"`
	Lines     map[string]int  `json:"lines,omitempty"`
	Forced    bool            `json:"forced,omitempty"`
	Steps     int             `json:"steps,omitempty"`
	State     json.RawMessage `json:"state,omitempty"`
	StateEdit *StateEdit      `json:"state_edit,omitempty"`
	Detail    string          `json:"detail,omitempty"`
}

// LogStartInfo is the fields of a start record. A record's encoding/json
// form leaves a nil one out, as it does each of its empty fields, and
// decoding any of its keys makes one: the JSON is what it was when the
// fields were the record's own.
type LogStartInfo struct {
	Bundle     string `json:"bundle,omitempty"`
	BundleHash string `json:"bundle_hash,omitempty"`
	Impl       string `json:"impl,omitempty"`
	// Seeds are the seeds the engine was given: its engine seed.
	seeds.Seeds
	Params map[string]string `json:"params,omitempty"`
}

// LogRewriteInfo is the fields of a rewrite record, as LogStartInfo is a
// start record's.
type LogRewriteInfo struct {
	File  string   `json:"file,omitempty"`
	Lost  []string `json:"lost,omitempty"`
	Fresh int      `json:"fresh,omitempty"`
	Kept  int      `json:"kept,omitempty"`
}

var (
	noStart   LogStartInfo
	noRewrite LogRewriteInfo
)

// Start is r's start fields, all zero when it has none; it is for reading
// them: the zero one is shared.
func (r *LogRecord) Start() *LogStartInfo {
	if r.LogStartInfo == nil {
		return &noStart
	}
	return r.LogStartInfo
}

// Rewrite is r's rewrite fields, read as Start's are.
func (r *LogRecord) Rewrite() *LogRewriteInfo {
	if r.LogRewriteInfo == nil {
		return &noRewrite
	}
	return r.LogRewriteInfo
}

// ParseRunLog reads a run log. Unlike an implementation's files, the run log
// is the harness's own output, so a bad line is an error.
func ParseRunLog(data []byte) ([]LogRecord, error) { return ParseRunLogAt(data, nil) }

// ParseRunLogAt is ParseRunLog of data, the whole content of src as read
// from offset 0. When src is not nil, a record's state edit keeps only its
// hash and where it stands in src, and its hunks are read from src again
// when it is applied (D212): their text was most of what a large run's log
// held, and every version it rebuilds is checked against the hash, so a
// file changed since cannot pass for the one read.
func ParseRunLogAt(data []byte, src io.ReaderAt) ([]LogRecord, error) {
	// The run log is amr's own format, held to its nesting bound (D65);
	// the implementation's files are not.
	if err := jsondepth.CheckLines(data, 0); err != nil {
		var de *jsondepth.Error
		if errors.As(err, &de) {
			return nil, LineError{File: RunLogFile, Line: de.Line, Msg: err.Error()}
		}
		return nil, err
	}
	p := newRunLogParser(src, bytes.Count(data, []byte("\n"))+1)
	defer p.close()
	owned := isFrozen(data)
	body := trimBOM(data)
	off := len(data) - len(body)
	for n, rest := 1, body; rest != nil; n++ {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		p.owned = owned
		if err := p.line(raw, n, int64(off)); err != nil {
			return nil, err
		}
		off += len(raw) + 1
	}
	return p.result()
}

// ReadRunLog is ParseRunLogAt of the first size bytes of src, read a line
// at a time instead of whole: a large run's log is hundreds of megabytes,
// and only its records are kept (the state edits' hunks stay in src, as
// ParseRunLogAt keeps them). It reads src twice, first for the nesting
// bound over every line, as ParseRunLogAt checks it before any record.
func ReadRunLog(src io.ReaderAt, size int64) ([]LogRecord, error) {
	lines := 0
	err := eachLine(src, size, func(raw []byte, n int, _ int64) error {
		lines = n
		if err := jsondepth.Check(raw, 0); err != nil {
			return LineError{File: RunLogFile, Line: n, Msg: err.Error()}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	p := newRunLogParser(src, lines)
	defer p.close()
	if err := eachLine(src, size, p.line); err != nil {
		return nil, err
	}
	return p.result()
}

// eachLine calls fn with each line of the first size bytes of src (without
// its newline; the first without a byte order mark), its number and its
// offset in src. A line's bytes are fn's only until it returns.
func eachLine(src io.ReaderAt, size int64, fn func(raw []byte, n int, off int64) error) error {
	r := bufio.NewReaderSize(io.NewSectionReader(src, 0, size), 1<<20)
	var (
		long []byte // a line longer than r's buffer, gathered
		off  int64
	)
	for n := 1; ; n++ {
		raw, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], raw...)
			for err == bufio.ErrBufferFull {
				raw, err = r.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %w", RunLogFile, err)
		}
		next := off + int64(len(raw))
		eof := err == io.EOF
		if !eof {
			raw = raw[:len(raw)-1]
		}
		at := off
		if n == 1 {
			body := trimBOM(raw)
			at += int64(len(raw) - len(body))
			raw = body
		}
		if eof && len(raw) == 0 && n > 1 {
			return nil
		}
		if ferr := fn(raw, n, at); ferr != nil {
			return ferr
		}
		if eof {
			return nil
		}
		off = next
	}
}

// runLogParser makes the records of a run log's lines in order, replaying
// its state edits as it goes: a line that does not decode is an error, and
// so, when every line decodes, is the first edit that does not replay.
type runLogParser struct {
	src       io.ReaderAt
	replay    StateReplay
	replayErr error
	lastAt    *editAt // the held edit of the version replayed last, or nil
	buf       *[]field
	out       []LogRecord
	owned     bool // the lines' bytes are frozen (see object.owned)
}

func newRunLogParser(src io.ReaderAt, lines int) *runLogParser {
	return &runLogParser{src: src, buf: fieldBufs.Get().(*[]field), out: make([]LogRecord, 0, lines)}
}

func (p *runLogParser) close() {
	clear((*p.buf)[:cap(*p.buf)])
	fieldBufs.Put(p.buf)
}

// line takes line n, raw, which stands at offset off of src.
func (p *runLogParser) line(raw []byte, n int, off int64) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	o, fs, ok := decodeObject(raw, *p.buf)
	*p.buf = fs
	if !ok {
		return LineError{File: RunLogFile, Line: n, Msg: "not a JSON object"}
	}
	o.raw, o.n, o.owned = raw, n, p.owned
	r, fast := decodeLogRecordFast(&o)
	if o.err != nil {
		o.err.File, o.err.Line = RunLogFile, n
		return *o.err
	}
	if p.replayErr == nil {
		if _, changed, err := p.replay.Next(r); err != nil {
			p.replayErr = fmt.Errorf("%s:%d: %w", RunLogFile, n, err)
		} else if p.src != nil {
			r.StateEdit = r.StateEdit.lazy(p.src, &o, raw, off, p.lastAt, fast)
			if changed {
				p.lastAt = nil
				if r.StateEdit != nil {
					p.lastAt = r.StateEdit.at
				}
			}
		}
	}
	shareWords(&r)
	p.out = append(p.out, r)
	return nil
}

func (p *runLogParser) result() ([]LogRecord, error) {
	if p.replayErr != nil {
		return nil, p.replayErr
	}
	return p.out, nil
}

// logWords are the words a run log spells again on many of its records:
// the files a tick_end's writes name (hundreds of thousands of them in a
// large run), the record kinds and an approval's decisions. A record holds
// the one shared string of each instead of its own.
var logWords = map[string]string{}

func init() {
	for _, w := range []string{Drafts, Outbox, Audit, State, Inbox, Approvals, Signals, ModelCalls, Mode, Rules, Clock, Fleet,
		LogStart, LogDeliver, LogDuplicate, LogApprove, LogDefer, LogRedeliver, LogSignal, LogPosture, LogRules, LogJump,
		LogCrash, LogRestart, LogStepError, LogTickEnd, LogRewrite, LogUnfired, LogEnd, LogExit, LogEscaped, LogHung,
		LogOversize, LogTamper, LogReady, LogBound, "approve", "reject"} {
		logWords[w] = w
	}
}

func logWord(s string) string {
	if w, ok := logWords[s]; ok {
		return w
	}
	return s
}

// shareWords points the record's kind, decision and writes at logWords'
// strings, and sizes its writes to their number: the decoder grew them by
// doubling.
func shareWords(r *LogRecord) {
	r.Kind, r.Decision = logWord(r.Kind), logWord(r.Decision)
	if len(r.Writes) == 0 {
		return
	}
	ws := r.Writes
	if cap(ws) > len(ws) {
		ws = make([]string, len(r.Writes))
	}
	for i, w := range r.Writes {
		ws[i] = logWord(w)
	}
	r.Writes = ws
}

// decodeLogRecord is one run log line as a record.
func decodeLogRecord(o *object) LogRecord {
	r, _ := decodeLogRecordFast(o)
	return r
}

// decodeLogRecordFast is decodeLogRecord, and reports whether the record
// was made by fastLogRecord: its state edit is then the last state_edit
// member's, as logDecoder decodes that member alone.
func decodeLogRecordFast(o *object) (LogRecord, bool) {
	r, fast := fastLogRecord(o)
	if !fast {
		r = slowLogRecord(o)
	}
	if r.Kind == "" {
		o.fail("kind", "required field is missing")
	}
	return r, fast
}

// slowLogRecord is the record encoding/json makes of o's members, which
// decides what every line fastLogRecord declines is.
func slowLogRecord(o *object) LogRecord {
	var r LogRecord
	raw, _ := json.Marshal(o.keep())
	if err := json.Unmarshal(raw, &r); err != nil {
		o.fail("", err.Error())
	}
	return r
}
