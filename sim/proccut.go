package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Cut is where a crash after k writes landed in an earlier process run:
// the Index-th such crash of Tick (in the order they landed, which is the
// order of their write counts) killed the implementation once Writes
// writes of the tick had been seen. A replay given the cut kills at Writes
// instead of the fault's k, so it cuts the implementation's work where the
// earlier run did: best effort, as every kill of a process is.
type Cut struct {
	Tick   int `json:"tick"`
	Index  int `json:"index"`
	Writes int `json:"writes"`
}

// CutsOf returns the cuts of a run log's crashes after k writes. A crash
// that landed at the tick's end because the implementation wrote fewer than
// k times needs no cut: a replay that writes as little lands it there too.
func CutsOf(log []sandbox.LogRecord) []Cut {
	var cuts []Cut
	index := map[int]int{}
	for _, r := range log {
		if r.Kind != sandbox.LogCrash || r.AfterWrites <= 0 {
			continue
		}
		i := index[r.Tick]
		index[r.Tick]++
		// A crash that counted one log's lines lands by the same rule in a
		// replay (D138): Written counts every write, so it says neither
		// where that rule landed it nor whether it landed at the tick's end.
		if r.WritesTo == "" && r.Written >= r.AfterWrites {
			cuts = append(cuts, Cut{Tick: r.Tick, Index: i, Writes: r.Written})
		}
	}
	return cuts
}

// formatCuts renders cuts for the run log's start record: "TICK.INDEX=WRITES"
// separated by spaces, in tick order.
func formatCuts(cuts []Cut) string {
	sorted := append([]Cut(nil), cuts...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Tick != sorted[j].Tick {
			return sorted[i].Tick < sorted[j].Tick
		}
		return sorted[i].Index < sorted[j].Index
	})
	parts := make([]string, len(sorted))
	for i, c := range sorted {
		parts[i] = fmt.Sprintf("%d.%d=%d", c.Tick, c.Index, c.Writes)
	}
	return strings.Join(parts, " ")
}

// armed is a tick's crashes after k writes that have not landed yet, in
// landing order, with the write count each lands at.
type armed struct {
	faults []scenarios.Fault
	at     []int
	// logs is, for each crash that counts one log's lines (D138), that
	// log; "" counts every write.
	logs []string
	// base is the write count when the first of them was armed: writes
	// are counted from there; logBase is the lines of the first one's log
	// then.
	base, logBase int
	watch         *watcher
}

// arm prepares the tick's crashes after k writes, landing each at its
// replayed cut when the spec has one (a cut counts every write).
func (d *procDriver) arm(tick int, crashes []scenarios.Fault) *armed {
	a := &armed{faults: crashes, base: d.watch.writes, watch: d.watch}
	for i, c := range crashes {
		k, log := c.AfterWrites, c.WritesTo
		for _, cut := range d.spec.Cuts {
			if cut.Tick == tick && cut.Index == i && cut.Writes > 0 {
				k, log = cut.Writes, ""
			}
		}
		a.at = append(a.at, k)
		a.logs = append(a.logs, log)
	}
	a.rebase()
	return a
}

// rebase counts the next crash's writes from now.
func (a *armed) rebase() {
	a.base = a.watch.writes
	if a.pending() {
		a.logBase = a.watch.logTotal(a.logs[0])
	}
}

// pending reports whether a crash is still armed.
func (a *armed) pending() bool { return len(a.faults) > 0 }

// counted is how far the next crash has come: the writes seen since it
// was armed (writes), or its log's new lines.
func (a *armed) counted(writes int) int {
	if a.logs[0] != "" {
		return a.watch.logTotal(a.logs[0]) - a.logBase
	}
	return writes - a.base
}

// due reports whether the implementation has written enough for the next
// crash to land.
func (a *armed) due(writes int) bool { return a.pending() && a.counted(writes) >= a.at[0] }

// pop drops the crash that landed and counts the next one from now.
func (a *armed) pop() {
	a.faults, a.at, a.logs = a.faults[1:], a.at[1:], a.logs[1:]
	a.rebase()
}

// landNext lands the next armed crash now and arms the one after it.
func (d *procDriver) landNext(a *armed) {
	d.crashNow(a.faults[0].AfterWrites, a.at[0], a.base)
	d.gate.cutOff()
	if len(a.faults) > 1 {
		d.watch.rebase()
		d.gate.arm()
	}
	a.pop()
}

// landRest lands the crashes the implementation did not write enough to
// reach, at the tick's end.
func (d *procDriver) landRest(a *armed) {
	d.gate.open()
	for a.pending() {
		d.crashNow(a.faults[0].AfterWrites, a.at[0], a.base)
		a.pop()
	}
}

// logTotal is the complete lines of one of the implementation's logs seen
// since the run began, or for state.json the versions of it seen (D157).
func (w *watcher) logTotal(name string) int {
	if name == sandbox.State {
		return w.states
	}
	for _, c := range w.logs {
		if c.name == name {
			return c.seen.total
		}
	}
	return 0
}

// lookForCut looks at the sandbox while a crash is armed: it lands the
// next crash when its writes are reached, and gives up on an
// implementation that wrote a file past the bound. It reports whether the
// running instance was killed.
func (d *procDriver) lookForCut(a *armed) bool {
	d.watch.poll(true)
	if d.checkOversize() {
		return true
	}
	if !a.due(d.watch.writes) {
		return false
	}
	d.landNext(a)
	return true
}

// lookOrStop answers a traced stop, or looks at the sandbox (a poll, a held
// model call); it reports whether the running instance was killed.
func (d *procDriver) lookOrStop(a *armed, stop *traceStop) bool {
	if stop != nil {
		return d.atStop(stop, a)
	}
	return d.lookForCut(a)
}

// answer lets a model call held at the gate go on, or refuses it.
func answer(held chan bool, ok bool) {
	if held != nil {
		held <- ok
	}
}

// callGate makes every model call a point where the harness looks at the
// sandbox while a crash after k writes is armed. Between two looks a
// process gets further than the cut; a model call is the one step of its
// work the harness serves itself, so it holds the call, looks, lands the
// crash if it is due, and refuses the call of an instance that is being
// killed, as the in-process stub refuses a crashed instance. Without it a
// process killed after its k-th write could still have called the model,
// leaving a call no draft cites.
type callGate struct {
	mu  sync.Mutex
	cur *gateRound // nil when no crash is armed: calls go through at once
}

// gateRound is the gate while one crash is armed.
type gateRound struct {
	ask    chan chan bool // a held call asks the driver to look
	passed chan struct{}  // closed when the crash is disarmed: held calls go on
	cut    chan struct{}  // closed when the crash landed: held calls are refused
}

// arm holds the calls that come from now on.
func (g *callGate) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cur = &gateRound{ask: make(chan chan bool), passed: make(chan struct{}), cut: make(chan struct{})}
}

// open lets every call go through: no crash is armed any more.
func (g *callGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur != nil {
		close(g.cur.passed)
		g.cur = nil
	}
}

// cutOff refuses every call still held: the instance that made them was
// killed.
func (g *callGate) cutOff() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur != nil {
		close(g.cur.cut)
		g.cur = nil
	}
}

// requests is where the driver receives held calls; nil (never ready)
// when no crash is armed.
func (g *callGate) requests() <-chan chan bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur == nil {
		return nil
	}
	return g.cur.ask
}

// pass is called by the stub before it answers a call. It returns at once
// when no crash is armed; otherwise it waits until the driver has looked
// at the sandbox, and reports whether the call may be answered.
func (g *callGate) pass() bool {
	g.mu.Lock()
	r := g.cur
	g.mu.Unlock()
	if r == nil {
		return true
	}
	reply := make(chan bool, 1)
	select {
	case r.ask <- reply:
		return <-reply
	case <-r.passed:
		return true
	case <-r.cut:
		return false
	}
}

// Ways a process run lands its crashes after k writes (D105), as the run
// log's start record (params.cut) and the process facts (cut) name them.
const (
	CutTrace = "trace" // stopped before each file-changing call: exact
	CutWatch = "watch" // looks at the sandbox, held at inotify events: best effort
)

// chooseCut decides how this run lands its crashes after k writes: traced
// where the machine allows it, by watching otherwise, and says which and
// why. A run without such a crash needs neither and says nothing.
func (d *procDriver) chooseCut() {
	needed := false
	for _, f := range d.e.b.Faults {
		if f.Kind == scenarios.FaultCrash && f.AfterWrites > 0 {
			needed = true
		}
	}
	if !needed {
		return
	}
	why := ""
	switch {
	case d.spec.Regime == RegimeQuiescence:
		// Its pause between ticks is a group stop, which a tracee does not
		// take as a signal (D106).
		why = "the quiescence regime pauses the process with SIGSTOP, which tracing would undo"
	case d.spec.NoTrace:
		why = "tracing turned off"
	default:
		why = traceRefused()
	}
	if why == "" {
		d.traced, d.cutBy = true, CutTrace
	} else {
		d.cutBy = CutWatch + ": " + why
	}
	d.facts.Cut = d.cutBy
}

// traceInstance reports whether the instance about to start is traced: in
// a run that cuts by tracing, only one that can be running while a crash
// after k writes is armed. A one-shot invocation lives inside its tick, so
// it is traced when it starts armed. Any other instance lives until the
// next crash fault kills it (none runs while the implementation is down,
// and a crash landed then finds nothing to kill), so it is traced when
// that crash is one after k writes. A traced instance stops at every write
// it makes, to the pipes and sockets too, for its whole life (D224).
func (d *procDriver) traceInstance(armed bool) bool {
	if !d.traced {
		return false
	}
	if d.spec.Regime == RegimeOnce {
		return armed
	}
	if d.crashKs == nil {
		d.crashKs = []int{}
		for _, t := range d.e.timeline {
			for _, c := range d.e.sched.crashesAt(t) {
				d.crashKs = append(d.crashKs, c.AfterWrites)
			}
		}
	}
	next := d.e.crashes
	return next < len(d.crashKs) && d.crashKs[next] > 0
}

// curTraced reports whether the running instance is traced.
func (d *procDriver) curTraced() bool { return d.cur != nil && d.cur.tr != nil }

// traceStops is where the traced instance's stops arrive; nil (never
// ready) when none is traced.
func (d *procDriver) traceStops() <-chan *traceStop {
	if d.cur == nil || d.cur.tr == nil {
		return nil
	}
	return d.cur.tr.stops
}

// armTrace makes the running instance stop at its file-changing calls, or
// (on false) lets them run.
func (d *procDriver) armTrace(on bool) {
	if d.cur == nil || d.cur.tr == nil {
		return
	}
	if on {
		d.cur.tr.arm()
	} else {
		d.cur.tr.disarm()
	}
}

// tornCut is the torn write a traced crash is landing (D107): the call
// let run with a shortened length, or the rename of a file cut short.
type tornCut struct {
	file string
	log  bool // a line of a log, else a whole file's new content
}

// atStop answers a stop of the traced instance: the implementation is
// stopped before a call that changes a file of its sandbox, or right after
// one the harness let run. Every call before it has run, so a look now
// sees exactly what was written: the crash lands when its writes are
// reached, before anything else is changed. It reports whether the
// instance was killed.
func (d *procDriver) atStop(st *traceStop, a *armed) bool {
	if !a.pending() {
		st.reply <- traceVerdict{}
		return false
	}
	d.watch.poll(true)
	switch {
	case d.watch.oversize != "" && !d.gone:
		st.reply <- traceVerdict{kill: true}
		d.checkOversize()
		return true
	case a.due(d.watch.writes) || st.exit && d.tearing != nil:
		st.reply <- traceVerdict{kill: true}
		d.landNext(a)
		return true
	case st.exit:
		st.reply <- traceVerdict{}
		return false
	}
	v := traceVerdict{}
	if a.counted(d.watch.writes) == a.at[0]-1 && (a.logs[0] == "" || st.path == a.logs[0]) {
		v = d.lastWrite(st, a.faults[0].Torn, a.logs[0] != "")
	}
	st.reply <- v
	return false
}

// lastWrite is the verdict for a call that may be the write the crash
// lands after. A write of several lines is cut to its first, so the crash
// lands after exactly k lines; a torn crash lets half the line through, or
// cuts the file a rename puts in place of a counted one to half its size.
// A file the crash is aimed at (writes_to) counts whatever ignore_writes
// says: the bundle named it.
func (d *procDriver) lastWrite(st *traceStop, torn, aimed bool) traceVerdict {
	isWrite := st.call == "write" || st.call == "pwrite64"
	counted := sandbox.IsImplLog(st.path) || aimed || d.watch.counts == nil || d.watch.counts(st.path)
	switch {
	case isWrite && sandbox.IsImplLog(st.path) && st.line > 0:
		if torn {
			d.tearing = &tornCut{file: st.path, log: true}
			return traceVerdict{short: max(1, st.line/2)}
		}
		return traceVerdict{short: st.line}
	case !torn || !counted:
		return traceVerdict{}
	case isWrite && st.n > 0 && !sandbox.IsImplLog(st.path):
		d.tearing = &tornCut{file: st.path}
		return traceVerdict{short: max(1, st.n/2)}
	case strings.HasPrefix(st.call, "rename") && st.from != "" && !sandbox.IsImplLog(st.path):
		src := filepath.Join(d.root, filepath.FromSlash(st.from))
		if info, err := os.Lstat(src); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
			if os.Truncate(src, max(1, info.Size()/2)) == nil {
				d.tearing = &tornCut{file: st.path}
			}
		}
	}
	return traceVerdict{}
}

// tornRecord fills a crash record with what a torn cut left: the line
// without its newline (its number, its bytes), or the file cut short.
// The torn line is no complete line, so the watch did not count it: the
// torn write is the k-th all the same, as in process.
func (d *procDriver) tornRecord(rec *sandbox.LogRecord) {
	t := d.tearing
	d.tearing = nil
	if t == nil {
		return
	}
	data, _, err := readRegular(filepath.Join(d.root, filepath.FromSlash(t.file)), 0, d.spec.MaxFileBytes)
	if err != nil || len(data) == 0 {
		return
	}
	if !t.log {
		rec.Torn, rec.TornText = t.file, string(data)
		return
	}
	i := bytes.LastIndexByte(data, '\n')
	if i == len(data)-1 {
		return // the line was ended after all: nothing torn
	}
	rec.Torn, rec.TornText = t.file, string(data[i+1:])
	rec.Line = bytes.Count(data, []byte("\n")) + 1
	rec.Written++
}
