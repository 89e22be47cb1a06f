// Package sim is the simulator: a virtual clock walks a bundle's timeline,
// fires its schedule into a sandbox (binding approvals and signals at fire
// time), lets the implementation work until it is quiescent, lands crashes
// at tick boundaries or between any two writes, and keeps a run log of every
// harness action.
//
// An implementation is reached through a driver. The in-process driver steps
// a Go implementation on an in-memory sandbox; a run with it is a pure
// function of (bundle, implementation, seed). The process driver runs any
// program as an OS process on a sandbox directory, under one of three clock
// regimes (quiescence, step protocol, one-shot), with the stub model served
// over loopback HTTP; wall-clock time enters only there, and every forced
// advance, kill and restart is recorded in the run log.
package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// DefaultMaxSteps bounds the steps of one tick before a forced advance.
const DefaultMaxSteps = 64

// Options are a run's parameters besides the bundle and implementation.
type Options struct {
	// Seed is the engine seed (package seeds): it orders same-tick events,
	// and the implementation is handed seeds.Impl of it for choices of its
	// own.
	Seed uint64
	// MaxSteps bounds the steps per tick; 0 means DefaultMaxSteps. For a
	// one-shot process it bounds the invocations per tick.
	MaxSteps int
	// Impl and BundleHash are recorded in the run log's first record.
	Impl       string
	BundleHash string
	// Process, when set, runs the implementation as an OS process and the
	// factory passed to Run is not used.
	Process *ProcessSpec
	// Context cancels a process run: every process is killed and Run
	// returns the context's error. Nil means never.
	Context context.Context
	// OnTick, when set, is told the end of every tick visited and the
	// run's horizon: progress for a caller, never part of the run.
	OnTick func(tick, horizon int)
	// LogTo, when set, is given the run log as it is made, a record at a
	// time, in the bytes WriteLog writes; the Result then holds no log. A
	// run of 10^5 messages makes hundreds of megabytes of it, mostly state
	// edits, which a caller keeping the log on disk need not hold as well.
	// Such a run's Result holds no Parsed either.
	// A write that fails ends the run with its error.
	LogTo io.Writer
}

// Result is what a run leaves: the sandbox and the run log.
type Result struct {
	Files   *sandbox.Memory
	Log     []sandbox.LogRecord
	Ticks   int // timeline ticks visited
	Steps   int
	Crashes int
	Forced  int // forced advances
	// Workdir is a process run's directory: the sandbox it ran in and the
	// process's stdout.log and stderr.log. It is left on disk for the caller
	// to keep or remove (see Cleanup). Empty for in-process runs.
	Workdir string
	// Output is a process run's stdout.log and stderr.log (each bounded by
	// MaxLogBytes), read when the run ended, so they outlive Cleanup.
	Output map[string][]byte
	// Process is what a process run's processes did; nil in process.
	Process *ProcessFacts
	// Parsed holds the engine's own parse of the final audit.jsonl and
	// drafts.jsonl, for the oracles to share; nil for a process run, whose
	// files are read back from disk, and for a run whose log went to
	// Options.LogTo, whose final files are parsed afresh as a kept run's.
	Parsed *sandbox.Parsed
}

// LogBytes renders the run log as JSONL.
func (r *Result) LogBytes() []byte {
	var buf bytes.Buffer
	if err := r.WriteLog(&buf); err != nil {
		panic(fmt.Sprintf("sim: run log record does not marshal: %v", err))
	}
	return buf.Bytes()
}

// WriteLog writes the run log as JSONL, the bytes LogBytes returns, a
// record at a time: a run's log is tens of megabytes at large sizes, and
// writing it out needs no copy of it whole.
func (r *Result) WriteLog(w io.Writer) error {
	enc := logEncoder(w)
	for i := range r.Log {
		if err := enc.Encode(&r.Log[i]); err != nil {
			return err
		}
	}
	return nil
}

// logEncoder writes run log records as lines, as sandbox.MarshalLine
// writes a line; Encode ends each with its newline.
func logEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// Run plays a bundle against an implementation. It returns an error only
// for a bundle the engine cannot play, a process that cannot be set up, or
// a cancelled context; everything the implementation does, however wrong,
// ends up in the sandbox for the checker to judge.
func Run(b *scenarios.Bundle, newImpl sandbox.Factory, opts Options) (*Result, error) {
	if b.Meta.Horizon < 0 || b.Meta.Horizon > scenarios.MaxHorizon {
		return nil, fmt.Errorf("sim: horizon %d out of range", b.Meta.Horizon)
	}
	e := newEngine(b, opts)
	if opts.Process != nil {
		pd, err := newProcDriver(e, *opts.Process)
		if err != nil {
			return nil, err
		}
		e.drv = pd
	} else {
		e.files = sandbox.NewMemory()
		e.drv = newInproc(e, newImpl)
	}
	res, err := e.run()
	if err == nil {
		err = e.logErr
	}
	if err != nil {
		e.drv.abort()
		return nil, err
	}
	return res, nil
}

// harnessFiles is the sandbox as the engine sees it. View returns what the
// implementation has finished writing: for a process, a log's unterminated
// last line is not yet written and is left out.
type harnessFiles interface {
	sandbox.Store
	View(name string) []byte
}

// driver reaches the implementation under test.
type driver interface {
	// begin starts the first instance; the harness files exist.
	begin() error
	// boundaryCrash lands a crash before the tick's events fire.
	boundaryCrash()
	// pause and resume bracket the harness writing a tick's clock and
	// inputs, so the implementation sees them all at once.
	pause()
	resume()
	// work lets the implementation work at the current tick until it is
	// quiet, landing the armed crashes (sorted by AfterWrites, all > 0).
	work(crashes []scenarios.Fault) (tickWork, error)
	// end stops every instance and returns the sandbox to judge.
	end() (*sandbox.Memory, error)
	// abort stops everything after an error; it must be safe to call at
	// any point and more than once.
	abort()
}

// tickWork is what the implementation did in one tick.
type tickWork struct {
	writes []string // one entry per appended log line and state.json rewrite, in order, when known
	forced bool
	// lines are the complete lines of each log at the tick's end, when the
	// driver counted them; otherwise the engine counts.
	lines map[string]int
}

type engine struct {
	b         *scenarios.Bundle
	opts      Options
	files     harnessFiles
	drv       driver
	sched     *schedule
	timeline  []int // the ticks the clock visits
	ticksDone int   // how many of them have ended
	// regrown is set once the log outgrew its estimate (logSize).
	regrown bool
	order   *rng.Rand
	tick    int
	logs    []sandbox.LogRecord
	// logTo encodes the records to Options.LogTo instead of keeping them;
	// logErr is its first failure.
	logTo     *json.Encoder
	logErr    error
	steps     int
	crashes   int
	forced    int
	lastState []byte
	// lastCompact is the last state version recorded as an edit, the base
	// of the next one.
	lastCompact []byte
	// differ makes the state edits, its scratch kept across ticks.
	differ sandbox.StateDiffer
	// lastLines is the last lines map put on a tick_end record: a tick
	// whose counts did not move shares it (records are never modified).
	lastLines map[string]int
	// lastTotals are lastLines' counts in sandbox.ImplLogs order.
	lastTotals []int
	params     map[string]string // extra start parameters of the driver
	// audit and drafts index the implementation's logs, which the engine
	// reads to bind approvals and signals at fire time.
	audit  *sandbox.LogIndex[sandbox.AuditRecord]
	drafts *sandbox.LogIndex[sandbox.Draft]
	// lean, for a run whose log goes to Options.LogTo, answers the audit
	// lookups in audit's place without keeping a parse for the oracles.
	lean *auditLook
	// lookup indexes those logs by work item and message.
	lookup lookup
	// counts count the harness files' lines for the records that name one.
	counts map[string]*lineCount
	// seen follows each of the implementation's logs as the harness saw it
	// written; refresh, set by a driver that sees them only when it looks,
	// looks at one now.
	seen    map[string]*appendLog
	refresh func(name string)
	// clock is the tick last written to the clock file, for the stub
	// model's HTTP handler, which answers on goroutines of its own;
	// clockLine is the buffer the file's line is made in.
	clock     atomic.Int64
	clockLine []byte
	// landing is the tick's crash faults not yet landed, in the order the
	// drivers land them; down is the downtime under way, if any.
	landing []scenarios.Fault
	down    *downtime
	// parsedState is the last parse of state.json the schedule asked for.
	parsedState *stateParse
}

// downtime is a crash's time out: the implementation stays down, and the
// schedule goes on firing, until the first visited tick at or after until.
type downtime struct {
	until   int
	restart func()
}

func newEngine(b *scenarios.Bundle, opts Options) *engine {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	timeline := scenarios.TimelineOf(b)
	seen := map[string]*appendLog{}
	for _, name := range sandbox.ImplLogs {
		seen[name] = &appendLog{}
	}
	e := &engine{b: b, opts: opts, order: rng.Stream(opts.Seed, "order"), timeline: timeline,
		sched: newSchedule(b, timeline),
		audit: sandbox.NewLogIndex(sandbox.ParseAudit), drafts: sandbox.NewLogIndex(sandbox.ParseDrafts),
		seen: seen}
	if opts.LogTo != nil {
		e.logTo = logEncoder(opts.LogTo)
		e.lean, e.audit = &auditLook{}, nil
	} else {
		e.logs = make([]sandbox.LogRecord, 0, logSize(b, timeline))
	}
	return e
}

// logSize estimates a run log's length: a record per tick visited and per
// scheduled item, two per fault.
func logSize(b *scenarios.Bundle, timeline []int) int {
	return len(timeline) + len(b.Inbox) + len(b.Approvals) + len(b.Signals) + 2*len(b.Faults) + 4
}

func (e *engine) run() (*Result, error) {
	if err := e.init(); err != nil {
		return nil, err
	}
	timeline := e.timeline
	for i, t := range timeline {
		e.tick, e.ticksDone = t, i
		if err := e.playTick(); err != nil {
			return nil, err
		}
		if i+1 < len(timeline) && timeline[i+1] > t+1 {
			e.log(sandbox.LogRecord{Kind: sandbox.LogJump, To: timeline[i+1]})
		}
	}
	files, err := e.drv.end()
	if err != nil {
		return nil, err
	}
	e.lastLook(files)
	e.finish()
	res := &Result{Files: files, Log: e.logs, Ticks: len(timeline), Steps: e.steps, Crashes: e.crashes, Forced: e.forced}
	if pd, ok := e.drv.(*procDriver); ok {
		res.Workdir, res.Output, res.Process = pd.workdir, pd.output(), pd.final
	} else {
		res.Parsed = e.parsed(files)
	}
	return res, nil
}

// parsed brings the engine's indexes of audit.jsonl and drafts.jsonl to the
// final files and hands their parse on: an index returns exactly its
// parser's answer for the content it is given, and usually only the lines
// since its last look are left to parse.
func (e *engine) parsed(files *sandbox.Memory) *sandbox.Parsed {
	if e.lean != nil {
		return nil
	}
	p := &sandbox.Parsed{}
	audit := files.View(sandbox.Audit)
	lines, errs := e.audit.Update(audit)
	p.SeedAudit(audit, lines, errs)
	drafts := files.View(sandbox.Drafts)
	dlines, derrs := e.drafts.Update(drafts)
	p.SeedDrafts(drafts, dlines, derrs)
	return p
}

func (e *engine) log(r sandbox.LogRecord) {
	r.Tick = e.tick
	if e.logTo != nil {
		e.encodeLog(r)
		return
	}
	if len(e.logs) == cap(e.logs) && !e.regrown {
		// The estimate counts every scheduled item's record, so past it
		// what is left is mostly the ticks' own (an end, a step error, a
		// jump): room for those, rather than append's quarter more of a
		// log of a hundred megabytes. Past that, append grows it.
		e.regrown = true
		grown := make([]sandbox.LogRecord, len(e.logs), len(e.logs)+3*(len(e.timeline)-e.ticksDone)+16)
		copy(grown, e.logs)
		e.logs = grown
	}
	e.logs = append(e.logs, r)
}

// encodeLog writes r to the kept log. It is apart from log because the
// encoder takes r's address: in log that made every record, kept in memory
// or not, a copy on the heap.
func (e *engine) encodeLog(r sandbox.LogRecord) {
	if e.logErr == nil {
		e.logErr = e.logTo.Encode(&r)
	}
}

func (e *engine) init() error {
	s := seeds.OfEngine(e.opts.Seed)
	params := map[string]string{
		"horizon":   strconv.Itoa(e.b.Meta.Horizon),
		"max_steps": strconv.Itoa(e.opts.MaxSteps),
		"top_level": strconv.Itoa(e.b.Meta.TopLevel),
	}
	for k, v := range e.params {
		params[k] = v
	}
	// The implementation is given the bundle's rules.json bytes unchanged,
	// and the start record says which, so a checker judges rules_hash by
	// what was written.
	rules := e.b.RulesFile()
	e.log(sandbox.LogRecord{Kind: sandbox.LogStart, RulesHash: scenarios.RulesHash(rules),
		LogStartInfo: &sandbox.LogStartInfo{Bundle: e.b.Meta.Name, BundleHash: e.opts.BundleHash,
			Impl: e.opts.Impl, Seeds: s, Params: params}})
	fleet, err := json.Marshal(struct {
		Agents []string `json:"agents"`
	}{e.b.Fleet})
	if err != nil {
		return err
	}
	mode, _ := sandbox.MarshalLine(sandbox.ModeFile{Posture: e.b.Mode.Posture, ChangedAt: e.b.Mode.ChangedAt})
	for _, f := range []struct {
		name string
		data []byte
	}{
		{sandbox.Fleet, append(fleet, '\n')}, {sandbox.Mode, append(mode, '\n')},
		{sandbox.Rules, rules},
		{sandbox.Inbox, nil}, {sandbox.Approvals, nil}, {sandbox.Signals, nil},
	} {
		if err := e.files.Write(f.name, f.data); err != nil {
			return err
		}
	}
	return e.drv.begin()
}

func (e *engine) writeClock() error {
	e.clock.Store(int64(e.tick))
	// The clock file is sandbox.ClockFile as MarshalLine writes it. Both
	// stores copy what they are given, so one buffer serves every tick.
	e.clockLine = strconv.AppendInt(append(e.clockLine[:0], `{"tick":`...), int64(e.tick), 10)
	e.clockLine = append(e.clockLine, "}\n"...)
	return e.files.Write(sandbox.Clock, e.clockLine)
}

func (e *engine) playTick() error {
	e.drv.pause()
	if err := e.writeClock(); err != nil {
		return err
	}
	if e.down != nil && e.tick >= e.down.until {
		e.wake()
	}
	crashes := e.sched.crashesAt(e.tick)
	e.landing = append(e.landing[:0], crashes...)
	for len(crashes) > 0 && crashes[0].AfterWrites == 0 {
		e.drv.boundaryCrash()
		crashes = crashes[1:]
	}
	if err := e.fire(); err != nil {
		return err
	}
	e.drv.resume()
	if e.down != nil {
		// Nobody reads what piled up: the crashes due now find nothing
		// running, and the tick ends with no work.
		for _, c := range crashes {
			e.crashed(sandbox.LogRecord{AfterWrites: c.AfterWrites}, nil)
		}
		e.endTick(tickWork{})
		return nil
	}
	w, err := e.drv.work(crashes)
	if err != nil {
		return err
	}
	e.endTick(w)
	if e.opts.OnTick != nil {
		e.opts.OnTick(e.tick, e.b.Meta.Horizon)
	}
	return nil
}

// crashed records a crash and the restart that follows it; restart starts
// the fresh instance between the two records. A nil restart means nothing
// is started again, and no restart is recorded. A crash fault with a
// downtime defers the restart to the tick the downtime ends (D70); a crash
// while the implementation is already down finds nothing to kill.
func (e *engine) crashed(rec sandbox.LogRecord, restart func()) {
	e.crashes++
	rec.Kind = sandbox.LogCrash
	var f scenarios.Fault
	if len(e.landing) > 0 {
		f, e.landing = e.landing[0], e.landing[1:]
	}
	rec.WritesTo = f.WritesTo
	if e.down != nil {
		rec.Detail = "nothing to kill: the implementation is down"
		e.log(rec)
		return
	}
	if f.Torn && rec.Torn == "" {
		// A process's writes are its own: the harness cannot cut one, and
		// an in-process implementation may write fewer than k times.
		if rec.Detail != "" {
			rec.Detail += "; "
		}
		rec.Detail += "nothing torn: the crash did not land inside a write the harness makes"
	}
	if restart != nil && f.Down > 0 {
		rec.Down = f.Down
		e.log(rec)
		e.down = &downtime{until: e.tick + f.Down, restart: restart}
		return
	}
	e.log(rec)
	if restart == nil {
		return
	}
	restart()
	e.log(sandbox.LogRecord{Kind: sandbox.LogRestart})
}

// isDown reports whether a crash's downtime is under way: a driver stops
// working the tick when a crash it landed started one.
func (e *engine) isDown() bool { return e.down != nil }

// wake ends a downtime: the fresh instance starts at this tick, before the
// tick's schedule fires.
func (e *engine) wake() {
	restart := e.down.restart
	e.down = nil
	restart()
	e.log(sandbox.LogRecord{Kind: sandbox.LogRestart})
}

func (e *engine) endTick(w tickWork) {
	rec := sandbox.LogRecord{Kind: sandbox.LogTickEnd, Writes: w.writes, Forced: w.forced, Lines: w.lines}
	if rec.Lines == nil {
		rec.Lines = e.linesSeen()
	}
	if st := e.files.View(sandbox.State); st != nil && !sameView(st, e.lastState) {
		// The store never changes bytes in place, so the view itself is
		// kept: a copy per changed tick costs the state's size again.
		e.lastState = st
		if compact, ok := sandbox.CompactJSON(st); ok {
			e.recordState(&rec, compact)
		} else {
			rec.Detail = "state.json is not valid JSON"
		}
	}
	if w.forced {
		e.forced++
	}
	e.log(rec)
}

// sameView reports whether two views of a file hold the same bytes: at
// once when they are the same bytes of the store, else byte for byte.
func sameView(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}

// recordState puts a changed, compacted state.json on a tick_end record as an edit of
// the last version recorded, so the run log grows with what changed rather
// than with the state's size on every tick.
func (e *engine) recordState(rec *sandbox.LogRecord, next []byte) {
	if edit, ok := e.differ.Edit(e.lastCompact, next); ok {
		rec.StateEdit = &edit
		e.lastCompact = next
		return
	}
	// A full copy may not read back byte for byte, so the next edit starts
	// from nothing rather than from these bytes.
	rec.State = next
	e.lastCompact = nil
}

func (e *engine) finish() {
	for _, u := range e.sched.unfired() {
		e.log(u)
	}
	e.log(sandbox.LogRecord{Kind: sandbox.LogEnd, Detail: fmt.Sprintf("crashes=%d forced=%d steps=%d", e.crashes, e.forced, e.steps)})
}

// sawLog takes the content of one of the implementation's logs as the
// driver sees it now (trusted: known to extend what was seen), records a
// rewrite of lines already seen, and returns how many lines are new.
// written is how many of the tick's listed writes came before; how, when
// set, says what the driver found in the file's place.
func (e *engine) sawLog(name string, data []byte, trusted bool, written int, how string) int {
	rw, n := e.seen[name].whole(data, trusted)
	if rw != nil {
		e.rewritten(name, rw, written, how)
	}
	return n
}

// rewritten records, in the run log, lines of a log that were lost or moved.
func (e *engine) rewritten(name string, rw *rewrite, written int, how string) {
	e.log(rw.record(name, written, how))
}

// declared returns everything the implementation has written to one of its
// logs, lines it took back since included: what was declared once stays
// declared, for binding approvals and signals.
func (e *engine) declared(name string) []byte {
	if e.refresh != nil {
		e.refresh(name)
	}
	return e.seen[name].history()
}

// linesSeen counts, per log, the lines seen since the run began. Most
// ticks see no new line, so the map of the tick before is returned again
// when every count is the same: a map a tick was a run's most frequent
// allocation but one. The counts are compared in sandbox.ImplLogs order,
// without ranging over either map.
func (e *engine) linesSeen() map[string]int {
	if e.lastLines != nil && len(e.lastTotals) == len(sandbox.ImplLogs) && len(e.seen) == len(sandbox.ImplLogs) {
		same := true
		for i, name := range sandbox.ImplLogs {
			if l := e.seen[name]; l == nil || e.lastTotals[i] != l.total {
				same = false
				break
			}
		}
		if same {
			return e.lastLines
		}
	}
	out := make(map[string]int, len(e.seen))
	for name, l := range e.seen {
		out[name] = l.total
	}
	e.lastLines, e.lastTotals = out, e.lastTotals[:0]
	for _, name := range sandbox.ImplLogs {
		n, ok := out[name]
		if !ok || len(out) != len(sandbox.ImplLogs) {
			// Other logs than these: the next tick builds its own map.
			e.lastTotals = e.lastTotals[:0]
			break
		}
		e.lastTotals = append(e.lastTotals, n)
	}
	return out
}

// lastLook compares the sandbox to judge with what was last seen, so a
// rewrite after the last tick is on record too.
func (e *engine) lastLook(files *sandbox.Memory) {
	for _, name := range sandbox.ImplLogs {
		e.sawLog(name, files.View(name), false, 0, "")
	}
}

// lineCount counts a harness file's lines as it grows, looking only at the
// bytes appended since the last count: the store never changes bytes in
// place, so content at the same address extends what was counted.
type lineCount struct {
	seen     []byte
	newlines int
}

func (c *lineCount) lines(data []byte) int {
	if len(data) < len(c.seen) || len(c.seen) > 0 && &data[0] != &c.seen[0] && !bytes.Equal(data[:len(c.seen)], c.seen) {
		c.seen, c.newlines = nil, 0
	}
	c.newlines += bytes.Count(data[len(c.seen):], []byte("\n"))
	c.seen = data
	n := c.newlines
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// linesOf counts a harness file's lines.
func (e *engine) linesOf(name string) int {
	if e.counts == nil {
		e.counts = map[string]*lineCount{}
	}
	c, ok := e.counts[name]
	if !ok {
		c = &lineCount{}
		e.counts[name] = c
	}
	return c.lines(e.files.View(name))
}

// countLines counts newline-terminated lines plus a final unterminated one.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
