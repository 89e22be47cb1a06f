package history

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Compile builds one run's history. It never fails and never panics: an
// implementation line that does not parse is listed in Skipped and takes no
// part; a harness line or log record it cannot place is left out.
//
// With a run log the order is the one the harness saw: at each tick its own
// actions in the order it logged them, then the implementation's writes in
// the order the tick's tick_end lists them, a crash inside the tick placed
// after the writes that preceded it, and a forced advance last. A model call
// is placed right before the first draft of its tick that cites it, or,
// cited by none, right after the tick's harness actions. Without a run log
// the order is rebuilt by tick from the files' own timestamps: harness lines
// first, then model calls, then drafts, audit and outbox lines, each in file
// order; crashes and posture and rules changes come from the bundle.
func Compile(in Input) *History {
	c := newCompiler(in)
	// The final state is read before the operations are made: its parse is
	// large and only its work items are kept.
	final, state := c.finalState()
	c.ops = make([]Op, 0, c.size())
	if hasTickEnd(in.Log) {
		c.h.Ordering = OrderRunLog
		c.fromLog()
	} else {
		c.h.Ordering = OrderFiles
		c.fromFiles()
	}
	switch state {
	case stateRead:
		c.emitFinal(final)
	case stateUnread:
		c.h.Skipped = append(c.h.Skipped, ref(sandbox.State, 1))
	}
	c.finish()
	c.h.Admission = admissionOf(in, c.bx)
	return c.h
}

// What finalState found of the last state.json.
const (
	stateNone   = iota // absent or empty
	stateRead          // parsed: its operation is the history's last
	stateUnread        // did not parse: skipped
)

// finalState is the operation of the implementation's last state.json.
func (c *compiler) finalState() (Op, int) {
	data, ok := c.in.Files[sandbox.State]
	if !ok || len(data) == 0 {
		return Op{}, stateNone
	}
	st, perr := sandbox.ParseState(data)
	if perr != nil {
		return Op{}, stateUnread
	}
	op := Op{Actor: ActorImpl, Type: OpState}
	op.at(sandbox.State, 1)
	if len(st.WorkItems) > 0 { // an empty list stays nil, as before
		op.W().Items = make([]Item, 0, len(st.WorkItems))
	}
	for _, w := range st.WorkItems {
		op.W().Items = append(op.W().Items, Item{WorkID: w.WorkID, Status: w.Status})
	}
	return op, stateRead
}

// emitFinal appends the final state's operation at the clock's tick, or,
// without a clock that reads, the last operation's.
func (c *compiler) emitFinal(op Op) {
	var clock sandbox.ClockFile
	if json.Unmarshal(c.in.Files[sandbox.Clock], &clock) == nil {
		op.Tick = clock.Tick
	} else if n := len(c.ops); n > 0 {
		op.Tick = c.ops[n-1].Tick
	}
	c.emit(op)
}

// size bounds the history's length: an operation per harness action,
// implementation line and model call, and the final state. Without a run
// log a crash of the bundle can add its restart and an escalation of the
// bundle its restored signal. An estimate short by one made the history's
// slice grow, a quarter more, with both copies held (a sixth of the live
// heap at its peak).
func (c *compiler) size() int {
	n := len(c.calls) + 1
	for _, x := range c.impl {
		n += x.ops
	}
	if c.in.Log == nil {
		n += len(c.inbox) + len(c.approvals) + len(c.signals)
		if b := c.in.Bundle; b != nil {
			n += len(b.Faults)
			for _, f := range b.Faults {
				if f.Kind == scenarios.FaultCrash {
					n++
				}
			}
			for _, s := range b.Signals {
				if s.Type == scenarios.OperatorEscalation {
					n++
				}
			}
		}
		return n
	}
	for _, r := range c.in.Log {
		switch r.Kind {
		case sandbox.LogDeliver, sandbox.LogDuplicate, sandbox.LogApprove, sandbox.LogRedeliver, sandbox.LogSignal,
			sandbox.LogPosture, sandbox.LogRules, sandbox.LogCrash, sandbox.LogRestart:
			n++
		case sandbox.LogTickEnd:
			if r.Forced {
				n++
			}
		}
	}
	return n
}

func hasTickEnd(log []sandbox.LogRecord) bool {
	for _, r := range log {
		if r.Kind == sandbox.LogTickEnd {
			return true
		}
	}
	return false
}

// implFiles are the implementation's logs, in the order a history without
// a run log puts lines of one tick.
var implFiles = []string{sandbox.Drafts, sandbox.Audit, sandbox.Outbox}

type compiler struct {
	in Input
	bx *scenarios.Index // the bundle's messages and approvals by id
	h  *History
	// inbox and approvals point at the records in the shared parse: a
	// copy of each line was held beside it.
	inbox     map[int]*sandbox.Message
	approvals map[int]*sandbox.ApprovalRecord
	signals   map[int]sandbox.SignalRecord
	// impl indexes every implementation line, by file and line number, to
	// its record in the parse (drafts, outbox, audit) and its self-reported
	// tick. The operation is made from the record when asked (implOp), so a
	// large run's operations are held once, in the history, not also line by
	// line (D196).
	impl   map[string]*lineIndex
	drafts []sandbox.Line[sandbox.Draft]
	outbox []sandbox.Line[sandbox.Effect]
	audit  []sandbox.Line[sandbox.AuditRecord]
	calls  []modelCall
	// callsAt indexes calls by tick, in the order of model-calls.jsonl, so
	// closing a tick reads its own calls, not every call of the run.
	callsAt map[int][]int
	placed  map[string]bool  // call ids already in the history
	rules   map[string]*Rare // rulesRare's values, by hash
	// private is set when the implementation kept private files: the run
	// log's crash positions then count writes the history cannot see.
	private bool
	ops     []Op

	// written holds each implementation log as the harness saw it
	// written, lines taken back included (preserved.go).
	written map[string]writtenLog
	// seg is closeTick's segment, kept from tick to tick so its room is
	// made once for the run's largest tick rather than again every tick.
	seg []slot
}

func newCompiler(in Input) *compiler {
	inbox, _ := in.Parsed.Inbox(in.Files[sandbox.Inbox])
	approvals, _ := in.Parsed.Approvals(in.Files[sandbox.Approvals])
	signals, _ := in.Parsed.Signals(in.Files[sandbox.Signals])
	calls, _ := in.Parsed.ModelCalls(in.Files[sandbox.ModelCalls])
	c := &compiler{in: in, bx: in.Bundle.Index(), h: &History{Format: Format, Fleet: []string{}, Skipped: []string{}},
		inbox: make(map[int]*sandbox.Message, len(inbox)), approvals: make(map[int]*sandbox.ApprovalRecord, len(approvals)),
		signals: make(map[int]sandbox.SignalRecord, len(signals)), impl: map[string]*lineIndex{},
		placed: make(map[string]bool, len(calls)), callsAt: map[int][]int{}, rules: map[string]*Rare{},
		calls: make([]modelCall, 0, len(calls))}
	if in.Bundle != nil {
		c.h.Scenario = in.Bundle.Meta.Name
	} else {
		for _, r := range in.Log {
			if r.Kind == sandbox.LogStart {
				c.h.Scenario = r.Start().Bundle
			}
		}
	}
	c.h.Fleet = c.fleet()
	for name := range in.Files {
		if strings.HasPrefix(name, sandbox.PrivateDir) {
			c.private = true
		}
	}
	for i := range inbox {
		c.inbox[inbox[i].N] = &inbox[i].Rec
	}
	for i := range approvals {
		c.approvals[approvals[i].N] = &approvals[i].Rec
	}
	for _, l := range signals {
		c.signals[l.N] = l.Rec
	}
	c.parseImpl()
	for _, l := range calls {
		// A request the stub refused, or a call it failed, got an error,
		// not a completion: it is no model call a draft can come from.
		if l.Rec.Rejected != nil || l.Rec.Failed != nil {
			continue
		}
		c.callsAt[l.Rec.At] = append(c.callsAt[l.Rec.At], len(c.calls))
		c.calls = append(c.calls, modelCall{tick: l.Rec.At, id: l.Rec.CallID, line: l.N})
	}
	return c
}

// modelCall is a completed call of model-calls.jsonl: its operation is
// made when it is placed, so a run's calls are held once, in the history.
type modelCall struct {
	tick int
	id   string
	line int
}

func (m modelCall) op() Op {
	op := Op{Tick: m.tick, Actor: ActorStub, Type: OpModelCall, Rare: &Rare{CallID: m.id}}
	op.at(sandbox.ModelCalls, m.line)
	return op
}

// fleet is the agents the run started with: fleet.json, else the bundle's.
func (c *compiler) fleet() []string {
	var f struct {
		Agents []string `json:"agents"`
	}
	if json.Unmarshal(c.in.Files[sandbox.Fleet], &f) == nil && len(f.Agents) > 0 {
		return append([]string{}, f.Agents...)
	}
	if c.in.Bundle != nil && len(c.in.Bundle.Fleet) > 0 {
		return append([]string{}, c.in.Bundle.Fleet...)
	}
	return []string{}
}

func ref(file string, line int) string { return file + ":" + strconv.Itoa(line) }

// withSrc is op with its source set to src.
func withSrc(op Op, src loc) Op {
	op.setLoc(src)
	return op
}

// loc is where an operation comes from: line of file when file is set,
// otherwise raw as written. A run's harness lines are cited by file and
// line, so their compact source is set directly rather than written out as
// text and read back.
type loc struct {
	file string
	line int
	raw  string
}

func lineOf(file string, line int) loc { return loc{file: file, line: line} }

func rawLoc(src string) loc { return loc{raw: src} }

// setLoc sets the source to l, as SetSrc would set it from l written out.
func (op *Op) setLoc(l loc) {
	if l.file == "" {
		op.SetSrc(l.raw)
		return
	}
	op.at(l.file, l.line)
}

// noOp marks an implementation line without an operation.
const noOp = -1

// parseImpl indexes every implementation line, as written, to the record
// its operation is made from.
func (c *compiler) parseImpl() {
	c.written = make(map[string]writtenLog, len(implFiles))
	shapes := shapesOf(implFiles, c.in.Log)
	for k, f := range implFiles {
		c.impl[f] = &lineIndex{}
		c.written[f] = readWritten(f, c.in.Files[f], c.in.Log, shapes[k])
	}
	skip := func(errs []sandbox.LineError) {
		for _, e := range errs {
			c.impl[e.File].set(e.Line, noOp, 0)
			c.h.Skipped = append(c.h.Skipped, c.written[e.File].srcOf(e.File, e.Line))
		}
	}
	var errs []sandbox.LineError
	c.drafts, errs = c.in.Parsed.Drafts(c.written[sandbox.Drafts].data)
	skip(errs)
	for i, l := range c.drafts {
		c.put(sandbox.Drafts, l.N, l.Rec.DeclaredAt, i)
	}
	c.outbox, errs = c.in.Parsed.Outbox(c.written[sandbox.Outbox].data)
	skip(errs)
	for i, l := range c.outbox {
		c.put(sandbox.Outbox, l.N, l.Rec.SentAt, i)
	}
	c.audit, errs = c.in.Parsed.Audit(c.written[sandbox.Audit].data)
	skip(errs)
	for i, l := range c.audit {
		switch l.Rec.Event {
		case sandbox.EventAdmission, sandbox.EventClaim, sandbox.EventResolution:
		default:
			i = noOp
		}
		c.put(sandbox.Audit, l.N, l.Rec.At, i)
	}
	sort.Strings(c.h.Skipped)
}

func (c *compiler) put(file string, line, tick, rec int) {
	c.impl[file].set(line, rec, tick)
}

// lineIndex is one implementation log's lines, by number: the index of
// each one's record in the parse, or noOp, and its self-reported tick.
type lineIndex struct {
	rec  []int32 // at line-1: the record's index plus one, noOp, or 0 for no such line
	tick []int
	ops  int // the lines with an operation
}

func (x *lineIndex) set(line, rec, tick int) {
	if line < 1 {
		return
	}
	for len(x.rec) < line {
		x.rec, x.tick = append(x.rec, 0), append(x.tick, 0)
	}
	if x.rec[line-1] > 0 {
		x.ops--
	}
	x.rec[line-1], x.tick[line-1] = noOp, tick
	if rec != noOp {
		x.rec[line-1] = int32(rec + 1)
		x.ops++
	}
}

// record is the index of the line's record, when it has an operation.
func (x *lineIndex) record(line int) (int, bool) {
	if x == nil || line < 1 || line > len(x.rec) || x.rec[line-1] <= 0 {
		return 0, false
	}
	return int(x.rec[line-1] - 1), true
}

// ownTick is the tick the line reports, 0 for a line without one.
func (x *lineIndex) ownTick(line int) int {
	if x == nil || line < 1 || line > len(x.tick) {
		return 0
	}
	return x.tick[line-1]
}

// lines lists, in order, the numbers of the lines the log has: with an
// operation or not.
func (x *lineIndex) lines() []int {
	if x == nil {
		return nil
	}
	var out []int
	for i, r := range x.rec {
		if r != 0 {
			out = append(out, i+1)
		}
	}
	return out
}

// implOp returns the operation of an implementation line, if it has one.
// It is made afresh: the caller may stamp it with the tick the harness saw
// it at.
func (c *compiler) implOp(file string, line int) (Op, bool) {
	i, ok := c.impl[file].record(line)
	if !ok {
		return Op{}, false
	}
	op := Op{Actor: ActorImpl}
	c.written[file].setSrc(&op, file, line)
	switch file {
	case sandbox.Drafts:
		d := c.drafts[i].Rec
		op.Type, op.DraftID, op.WorkID, op.ConversationID = OpDraft, d.DraftID, d.WorkID, d.ConversationID
		op.ContentHash = d.ContentHash
		if d.Origin.ModelFree || len(d.Origin.CallIDs) > 0 {
			op.Rare = &Rare{ModelFree: d.Origin.ModelFree, Calls: append([]string(nil), d.Origin.CallIDs...)}
		}
	case sandbox.Outbox:
		e := c.outbox[i].Rec
		op.Type, op.W().EffectID, op.DraftID = OpSend, e.EffectID, e.DraftID
	case sandbox.Audit:
		r := c.audit[i].Rec
		op.WorkID = r.WorkID
		switch r.Event {
		case sandbox.EventAdmission:
			op.Type, op.MessageID, op.Rare = OpAdmit, r.MessageID, c.rulesRare(r.RulesHash)
		case sandbox.EventClaim:
			op.Type, op.AgentID, op.Outcome, op.Reason = OpClaim, r.AgentID, r.Outcome, r.Reason
		case sandbox.EventResolution:
			op.Type, op.Outcome, op.Reason = OpResolve, r.Outcome, r.Reason
		}
	}
	return op, true
}

// rulesRare is the rare fields of an admission under the rules hash h: one
// value for every admission under it, since a run's many admissions cite
// only the few rule sets it had and nothing writes an admission's Rare once
// it is made.
func (c *compiler) rulesRare(h string) *Rare {
	if h == "" {
		return nil
	}
	r, ok := c.rules[h]
	if !ok {
		r = &Rare{RulesHash: h}
		c.rules[h] = r
	}
	return r
}

func (c *compiler) emit(op Op) { c.ops = append(c.ops, op) }

// finish numbers the operations and decides, for every approve line,
// whether it binds a draft declared before it.
func (c *compiler) finish() {
	type decl struct {
		hash  string
		tick  int
		index int
	}
	first := map[string]decl{}
	for i := range c.ops {
		c.ops[i].Index = i
		if r := c.ops[i].Rare; r != nil && r.zero() {
			c.ops[i].Rare = nil
		}
		if op := c.ops[i]; op.Type == OpDraft {
			if _, ok := first[op.DraftID]; !ok {
				first[op.DraftID] = decl{op.ContentHash, op.Tick, i}
			}
		}
	}
	for i := range c.ops {
		op := &c.ops[i]
		if op.Type != OpApprove {
			continue
		}
		d, ok := first[op.DraftID]
		// Without a run log, a draft stamped with the approval's own tick
		// may have been written before it: another harness may approve in
		// the tick a draft was declared.
		before := ok && (d.index < i || (c.h.Ordering == OrderFiles && d.tick <= op.Tick))
		// A copy of its own: two operations copied from one value share
		// their Rare, and each gets its own verdict.
		r := *op.R()
		switch {
		case !before:
			r.Forged = ForgedDangling
		case d.hash != op.ContentHash:
			r.Forged = ForgedHashMismatch
		default:
			r.Forged = ForgedNo
		}
		op.Rare = &r
	}
	c.h.Ops = c.ops
}

// message returns the op of a deliver or duplicate record: the message the
// run log says the harness delivered, whatever the sandbox's line now says
// (D30). The inbox line is cited when it still holds that message.
func (c *compiler) message(typ OpType, line int, id string, tick int, src loc) Op {
	op := Op{Tick: tick, Actor: ActorHarness, Type: typ, MessageID: id}
	op.setLoc(src)
	if m, ok := c.inbox[line]; ok && (id == "" || m.ID == id) {
		op.MessageID, op.ConversationID = m.ID, m.ConversationID
		op.at(sandbox.Inbox, line)
	}
	if c.in.Bundle != nil {
		if d, ok := c.bx.Message(op.MessageID); ok {
			op.ConversationID = d.ConversationID
		}
	}
	return op
}

// approval is the op of an approve or redeliver record: what the run log
// says the harness wrote (a redelivery repeats the line first fired for its
// id), whatever the sandbox's line now says.
func (c *compiler) approval(line int, rec *sandbox.LogRecord, tick int, src loc, repeat bool) Op {
	op := Op{Tick: tick, Actor: ActorHarness, Type: OpApprove, DraftID: rec.DraftID, ContentHash: rec.ContentHash,
		Rare: &Rare{ApprovalID: rec.ID, Decision: rec.Decision, Repeat: repeat}}
	if _, ok := c.approvals[line]; ok {
		op.at(sandbox.Approvals, line)
	} else {
		op.setLoc(src)
	}
	return op
}

func signalOp(s sandbox.SignalRecord, tick int, src loc) Op {
	op := Op{Tick: tick, Actor: ActorHarness, Type: OpSignal, Rare: &Rare{SignalID: s.SignalID, SignalType: s.SignalType}}
	op.setLoc(src)
	switch s.SignalType {
	case scenarios.AgentDeath:
		op.AgentID = s.Target
	default:
		op.WorkID = s.Target
	}
	return op
}

// --- with a run log ---

// tickState collects one tick's harness actions and crashes until its
// tick_end arrives.
type tickState struct {
	harness []Op
	crashes []midCrash
}

// midCrash is a crash inside a tick: after the written-th write since the
// previous crash (or the tick's start).
type midCrash struct {
	written int
	ops     []Op // the crash and its restart
}

func (c *compiler) fromLog() {
	consumed := map[string]int{}
	fired := map[string]*sandbox.LogRecord{} // the first approve record of an id: a copy each was 520 bytes
	var ts tickState
	lastMid := false
	end := 0 // the last tick a tick_end closed
	for i := range c.in.Log {
		r := &c.in.Log[i] // a record is some 500 bytes: read in place, not copied
		var src loc
		if r.Kind != sandbox.LogTickEnd || r.Forced {
			src = lineOf(sandbox.RunLogFile, i+1)
		}
		t := r.Tick
		switch r.Kind {
		case sandbox.LogDeliver:
			ts.harness = append(ts.harness, c.message(OpDeliver, r.Line, r.ID, t, src))
		case sandbox.LogDuplicate:
			ts.harness = append(ts.harness, c.message(OpDuplicate, r.Line, r.ID, t, src))
		case sandbox.LogApprove:
			if _, ok := fired[r.ID]; !ok {
				fired[r.ID] = &c.in.Log[i]
			}
			ts.harness = append(ts.harness, c.approval(r.Line, r, t, src, false))
		case sandbox.LogRedeliver:
			rec := *r
			if f, ok := fired[r.ID]; ok {
				rec.DraftID, rec.ContentHash, rec.Decision = f.DraftID, f.ContentHash, f.Decision
			}
			ts.harness = append(ts.harness, c.approval(r.Line, &rec, t, src, true))
		case sandbox.LogSignal:
			s := sandbox.SignalRecord{SignalID: r.ID, SignalType: r.SignalType, Target: r.Target, At: t}
			if _, ok := c.signals[r.Line]; ok {
				src = lineOf(sandbox.Signals, r.Line)
			}
			ts.harness = append(ts.harness, signalOp(s, t, src))
		case sandbox.LogPosture:
			ts.harness = append(ts.harness, withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpPosture, Rare: &Rare{Posture: r.Posture}}, src))
		case sandbox.LogRules:
			ts.harness = append(ts.harness, withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpRules, Rare: &Rare{RulesHash: r.RulesHash}}, src))
		case sandbox.LogCrash:
			op := withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpCrash, Rare: &Rare{Down: r.Down}}, src)
			lastMid = r.AfterWrites > 0
			if lastMid {
				op.Approximate = c.private
				ts.crashes = append(ts.crashes, midCrash{written: r.Written, ops: []Op{op}})
			} else {
				ts.harness = append(ts.harness, op)
			}
		case sandbox.LogRestart:
			op := withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpRestart}, src)
			if lastMid && len(ts.crashes) > 0 {
				last := &ts.crashes[len(ts.crashes)-1]
				last.ops = append(last.ops, op)
			} else {
				ts.harness = append(ts.harness, op)
			}
		case sandbox.LogTickEnd:
			c.closeTick(r, ts, consumed, src)
			// closeTick copies the operations out, so the next tick reuses the array.
			ts, lastMid, end = tickState{harness: ts.harness[:0]}, false, t
		}
	}
	// Whatever no tick_end accounted for (a log cut short) goes last.
	for _, op := range ts.harness {
		op.Approximate = true
		c.emit(op)
	}
	c.leftovers(consumed, end)
}

// slot is one position in a tick's implementation segment: a line's
// operation (shared, not yet stamped with the tick), whether its place is
// approximate, and whether it counts toward crash positions.
// slot is one line of a tick's segment: its operation is made from the
// line when it is placed, so the burst's largest tick does not hold a copy
// of every operation it places beside the history's own.
type slot struct {
	file    string
	line    int
	has     bool // whether the line has an operation
	approx  bool
	isWrite bool
}

func (c *compiler) slotOf(file string, line int, approx bool) slot {
	_, ok := c.impl[file].record(line)
	return slot{file: file, line: line, has: ok, approx: approx, isWrite: !approx}
}

// citedCalls are the model calls a draft line cites, as its operation
// lists them.
func (c *compiler) citedCalls(s slot) []string {
	if !s.has || s.file != sandbox.Drafts {
		return nil
	}
	i, _ := c.impl[s.file].record(s.line)
	return c.drafts[i].Rec.Origin.CallIDs
}

func (c *compiler) closeTick(end *sandbox.LogRecord, ts tickState, consumed map[string]int, src loc) {
	t := end.Tick
	for _, op := range ts.harness {
		c.emit(op)
	}
	// The segment: one slot per write the tick_end lists, in order.
	last := map[string]int{}
	for i, w := range end.Writes {
		last[w] = i
	}
	seg := c.seg[:0]
	defer func() { c.seg = seg[:0] }()
	for i, w := range end.Writes {
		if _, ok := c.impl[w]; !ok {
			seg = append(seg, slot{isWrite: true}) // state.json and the like
			continue
		}
		consumed[w]++
		seg = append(seg, c.slotOf(w, consumed[w], false))
		if i == last[w] {
			// An append that wrote several lines: the rest follow it.
			for consumed[w] < end.Lines[w] {
				consumed[w]++
				seg = append(seg, c.slotOf(w, consumed[w], true))
			}
		}
	}
	for _, f := range implFiles {
		for consumed[f] < end.Lines[f] {
			consumed[f]++
			seg = append(seg, c.slotOf(f, consumed[f], true))
		}
	}
	// Calls of this tick cited by a draft of this tick go right before it;
	// the others right after the harness actions.
	cited := map[string]bool{}
	for _, s := range seg {
		for _, id := range c.citedCalls(s) {
			cited[id] = true
		}
	}
	for _, i := range c.callsAt[t] {
		if call := c.calls[i]; !cited[call.id] && !c.placed[call.id] {
			c.placeCall(call.op(), false)
		}
	}
	// Crash positions count writes since the previous crash. A tick whose
	// writes the log does not list places its crashes only roughly.
	if len(end.Writes) == 0 && len(seg) > 0 {
		for k := range ts.crashes {
			for j := range ts.crashes[k].ops {
				ts.crashes[k].ops[j].Approximate = true
			}
		}
	}
	var at []int
	pos := 0
	for _, cr := range ts.crashes {
		pos += cr.written
		at = append(at, pos)
	}
	writes, next := 0, 0
	flush := func() {
		for next < len(ts.crashes) && at[next] <= writes {
			for _, op := range ts.crashes[next].ops {
				c.emit(op)
			}
			next++
		}
	}
	flush()
	for _, s := range seg {
		if s.has {
			op, _ := c.implOp(s.file, s.line)
			if op.Type == OpDraft {
				c.placeCited(op, t)
			}
			op.Tick, op.Approximate = t, s.approx
			c.emit(op)
		}
		if s.isWrite {
			writes++
			flush()
		}
	}
	for ; next < len(ts.crashes); next++ {
		for _, op := range ts.crashes[next].ops {
			c.emit(op)
		}
	}
	if end.Forced {
		c.emit(withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpForcedAdvance}, src))
	}
}

// placeCited puts the not yet placed calls of tick t that a draft cites
// right before it, in the order of model-calls.jsonl.
func (c *compiler) placeCited(d Op, t int) {
	want := map[string]bool{}
	for _, id := range d.R().Calls {
		want[id] = true
	}
	for _, i := range c.callsAt[t] {
		if call := c.calls[i]; want[call.id] && !c.placed[call.id] {
			c.placeCall(call.op(), false)
		}
	}
}

func (c *compiler) placeCall(call Op, approx bool) {
	c.placed[call.R().CallID] = true
	call.Approximate = approx
	c.emit(call)
}

// leftovers appends the lines no tick_end accounted for, ordered by their
// own ticks and marked approximate. The harness saw an implementation line
// no tick_end counts only when the run ended, so it is stamped with the
// last tick a tick_end closed: with a run log, an implementation's own
// timestamps are never its time (decision D2). A model call keeps its tick,
// which the stub wrote.
func (c *compiler) leftovers(consumed map[string]int, end int) {
	type rest struct {
		op   Op
		rank int
	}
	var rs []rest
	for _, call := range c.calls {
		if !c.placed[call.id] {
			rs = append(rs, rest{call.op(), 0})
			c.placed[call.id] = true
		}
	}
	for rank, f := range implFiles {
		for _, line := range c.impl[f].lines() {
			if line <= consumed[f] {
				continue
			}
			op, ok := c.implOp(f, line)
			if !ok {
				continue
			}
			op.Tick = c.impl[f].ownTick(line)
			rs = append(rs, rest{op, rank + 1})
		}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].op.Tick != rs[j].op.Tick {
			return rs[i].op.Tick < rs[j].op.Tick
		}
		return rs[i].rank < rs[j].rank
	})
	for _, r := range rs {
		r.op.Approximate = true
		if r.rank > 0 {
			r.op.Tick = end
		}
		c.emit(r.op)
	}
}

// --- without a run log ---

// Classes of operations within one tick of a file-order history.
const (
	classHarness = iota
	classStub
	classImpl
)

// restart is when the fresh instance after a crash fault started, read
// from the bundle as the engine plays it: at once, or when the crash's
// downtime ends (down is then the downtime); a crash that lands while the
// implementation is down restarts nothing.
type restart struct {
	tick, down int
	up         bool
}

// restartsOf also returns the crash faults in the order they land, which
// is the order their operations must take: a downtime's restart is the
// first restart after its crash (outagesOf), so an immediate crash that
// lands first at the same tick must come, with its restart, before it.
func restartsOf(b *scenarios.Bundle, tl timeline) (map[int]restart, []int) {
	var idx []int
	for i, f := range b.Faults {
		if f.Kind != scenarios.FaultCrash {
			continue
		}
		if _, ok := tl.visible(f.At); ok {
			idx = append(idx, i)
		}
	}
	at := func(i int) int { t, _ := tl.visible(b.Faults[i].At); return t }
	sort.SliceStable(idx, func(x, y int) bool {
		a, c := b.Faults[idx[x]], b.Faults[idx[y]]
		return at(idx[x]) < at(idx[y]) || at(idx[x]) == at(idx[y]) && a.AfterWrites < c.AfterWrites
	})
	out := map[int]restart{}
	downUntil, forever := -1, false
	for _, i := range idx {
		t := at(i)
		if forever || t < downUntil {
			out[i] = restart{}
			continue
		}
		f := b.Faults[i]
		if f.Down <= 0 {
			out[i] = restart{tick: t, up: true}
			continue
		}
		r := restart{down: f.Down}
		if r.tick, r.up = tl.visible(t + f.Down); !r.up {
			r.tick = 0
		}
		out[i] = r
		downUntil, forever = r.tick, !r.up
	}
	return out, idx
}

// keyed is the sort key of the operation emitted seq-th.
type keyed struct {
	tick  int
	class int
	rank  int
	seq   int
}

// fromFiles emits every operation as it finds it, each with its key, and
// then puts the history in the order of the keys in place, so a large
// run's operations are held once while they are sorted.
func (c *compiler) fromFiles() {
	var ks []keyed
	base := len(c.ops)
	add := func(op Op, class, rank int) {
		ks = append(ks, keyed{tick: op.Tick, class: class, rank: rank, seq: len(ks)})
		c.emit(op)
	}
	tl := newTimeline(c.in.Bundle)
	if b := c.in.Bundle; b != nil {
		for i, f := range b.Faults {
			t, ok := tl.visible(f.At)
			if !ok {
				continue
			}
			src := rawLoc("bundle:faults[" + strconv.Itoa(i) + "]")
			switch f.Kind {
			case scenarios.FaultPosture:
				add(withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpPosture, Rare: &Rare{Posture: f.Posture}}, src), classHarness, 1)
			case scenarios.FaultRules:
				hash := scenarios.RulesHash(f.RulesFile()) // the bytes the bundle gives, unchanged
				add(withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpRules, Rare: &Rare{RulesHash: hash}}, src), classHarness, 2)
			}
		}
		restarts, landing := restartsOf(b, tl)
		for _, i := range landing {
			// Where a crash inside a tick landed is unknown without the
			// log: it is placed at the tick's start, its restart at once
			// or when its downtime ends.
			f := b.Faults[i]
			t, _ := tl.visible(f.At)
			src := rawLoc("bundle:faults[" + strconv.Itoa(i) + "]")
			approx := f.AfterWrites > 0
			r := restarts[i]
			add(withSrc(Op{Tick: t, Actor: ActorHarness, Type: OpCrash, Approximate: approx, Rare: &Rare{Down: r.down}}, src), classHarness, 0)
			if r.up {
				add(withSrc(Op{Tick: r.tick, Actor: ActorHarness, Type: OpRestart, Approximate: approx}, src), classHarness, 0)
			}
		}
	}
	dupTicks, redeliverTicks := c.faultTicks(tl)
	seen := map[string]int{}
	for _, n := range sortedKeys(c.inbox) {
		m := *c.inbox[n]
		op := Op{Actor: ActorHarness, Type: OpDeliver, MessageID: m.ID, ConversationID: m.ConversationID}
		op.at(sandbox.Inbox, n)
		// A message of the bundle was delivered with the bundle's content at
		// its tick, whatever the line now says (D30), or later, at the tick
		// its line says when only that differs: another harness stamps a
		// late delivery with the tick it made it (D35).
		if c.in.Bundle != nil {
			if d, ok := c.bx.Message(m.ID); ok {
				line := m
				m = sandbox.Message(d)
				line.At = d.At
				if _, inRun := tl.visible(c.inbox[n].At); line == m && c.inbox[n].At > d.At && inRun {
					m.At = c.inbox[n].At
				}
				op.ConversationID = d.ConversationID
			}
		}
		op.Tick, _ = tl.visible(m.At)
		if k := seen[m.ID]; k > 0 {
			op.Type = OpDuplicate
			op.Tick, op.Approximate = nth(dupTicks[m.ID], k-1, op.Tick)
		}
		seen[m.ID]++
		add(op, classHarness, 3)
	}
	var skipApproval, skipSignal map[int]bool
	var restored []Op
	if c.in.Bundle != nil {
		bb := c.bounds()
		skipApproval, skipSignal = c.unexplained(bb)
		kept := map[string]bool{}
		for n, s := range c.signals {
			if !skipSignal[n] {
				kept[s.SignalID] = true
			}
		}
		restored = c.restoredEscalations(bb, kept)
	}
	seen = map[string]int{}
	for _, n := range sortedKeys(c.approvals) {
		if skipApproval[n] {
			continue
		}
		a := c.approvals[n]
		op := Op{Tick: a.DecidedAt, Actor: ActorHarness, Type: OpApprove, DraftID: a.DraftID, ContentHash: a.ContentHash,
			Rare: &Rare{ApprovalID: a.ApprovalID, Decision: a.Decision}}
		op.at(sandbox.Approvals, n)
		if k := seen[a.ApprovalID]; k > 0 {
			op.W().Repeat = true
			op.Tick, op.Approximate = nth(redeliverTicks[a.ApprovalID], k-1, op.Tick)
		}
		seen[a.ApprovalID]++
		add(op, classHarness, 4)
	}
	for _, n := range sortedKeys(c.signals) {
		if skipSignal[n] {
			continue
		}
		s := c.signals[n]
		add(signalOp(s, s.At, lineOf(sandbox.Signals, n)), classHarness, 5)
	}
	for _, op := range restored {
		add(op, classHarness, 5)
	}
	for _, call := range c.calls {
		add(call.op(), classStub, 0)
		c.placed[call.id] = true
	}
	for rank, f := range implFiles {
		for _, line := range c.impl[f].lines() {
			if op, ok := c.implOp(f, line); ok {
				op.Tick = c.impl[f].ownTick(line)
				add(op, classImpl, rank)
			}
		}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.tick != b.tick {
			return a.tick < b.tick
		}
		if a.class != b.class {
			return a.class < b.class
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.seq < b.seq
	})
	from := make([]int, len(ks))
	for i, k := range ks {
		from[i] = k.seq
	}
	permute(c.ops[base:], from)
}

// permute puts ops[from[i]] at i for every i, in place; from must be a
// permutation, and is left the identity.
func permute(ops []Op, from []int) {
	for i := range from {
		if from[i] == i {
			continue
		}
		held, j := ops[i], i
		for {
			k := from[j]
			from[j] = j
			if k == i {
				ops[j] = held
				break
			}
			ops[j] = ops[k]
			j = k
		}
	}
}

// faultTicks lists, per message and per approval, the visible ticks of the
// bundle's duplicate and redeliver faults, in bundle order: the n-th repeat
// of a line in a file is taken to be the n-th such fault.
func (c *compiler) faultTicks(tl timeline) (dups, redeliveries map[string][]int) {
	dups, redeliveries = map[string][]int{}, map[string][]int{}
	if c.in.Bundle == nil {
		return
	}
	for _, f := range c.in.Bundle.Faults {
		t, ok := tl.visible(f.At)
		if !ok {
			continue
		}
		switch f.Kind {
		case scenarios.FaultDuplicate:
			dups[f.MessageID] = append(dups[f.MessageID], t)
		case scenarios.FaultRedeliver:
			redeliveries[f.ApprovalID] = append(redeliveries[f.ApprovalID], t)
		}
	}
	return
}

// nth returns ticks[k], or the fallback marked approximate.
func nth(ticks []int, k, fallback int) (int, bool) {
	if k < len(ticks) {
		// A repeat fires no earlier than the line it copies.
		if ticks[k] >= fallback {
			return ticks[k], false
		}
	}
	return fallback, true
}

func sortedKeys[T any](m map[int]T) []int {
	out := make([]int, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// timeline is the ticks a bundle's clock visits: 0 to the horizon, a tick
// jump at a by b moving straight from a to a+b.
type timeline []int

// It is built here, not taken from scenarios, so the oracle does not share
// the checker's reading of the clock. A horizon past the limit is read as
// the limit, and a jump that would land past the horizon ends the timeline
// at its tick, tested before adding so a huge jump cannot overflow.
func newTimeline(b *scenarios.Bundle) timeline {
	if b == nil {
		return nil
	}
	horizon := min(max(b.Meta.Horizon, 0), scenarios.MaxHorizon)
	jumps := map[int]int{}
	for _, f := range b.Faults {
		if f.Kind == scenarios.FaultTickJump {
			jumps[f.At] = f.By
		}
	}
	var tl timeline
	for t := 0; t <= horizon; {
		tl = append(tl, t)
		by := jumps[t]
		switch {
		case by <= 1:
			t++
		case by > horizon-t:
			return tl
		default:
			t += by
		}
	}
	return tl
}

// visible returns the first visited tick at or after t. Without a bundle
// every tick is visited.
func (tl timeline) visible(t int) (int, bool) {
	if tl == nil {
		return t, true
	}
	i := sort.SearchInts(tl, t)
	if i >= len(tl) {
		return t, false
	}
	return tl[i], true
}
