package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// stamp places a line or an event in time: the tick it was observed at and
// its order within that tick. At one tick the harness fires before the
// implementation works, so harness lines sort before implementation lines.
type stamp struct {
	tick int
	seq  int
}

// Orders within a tick. Implementation lines of a run with a log get their
// position in the tick's writes; without a log their order within a tick is
// unknown and they all get seqImpl.
const (
	seqCrashBoundary = -3 // a crash at the tick boundary, before the harness fires
	seqHarness       = -2 // every harness line: deliveries, approvals, signals
	seqAfterHarness  = -1 // after the harness fired, before the implementation wrote
	seqImpl          = 0
	seqEnd           = math.MaxInt32 // after everything of the tick
)

// before reports whether a is known to come before b.
func (a stamp) before(b stamp) bool {
	return a.tick < b.tick || a.tick == b.tick && a.seq < b.seq
}

// by reports whether a was observed by the end of tick t.
func (a stamp) by(t int) bool { return a.tick <= t }

func endOf(t int) stamp { return stamp{t, seqEnd} }

// message is one distinct message of the inbox, in delivery order.
type message struct {
	sandbox.Message
	line      int   // first inbox.jsonl line, 0 when known only from the bundle
	at        stamp // first delivery
	vis       int   // visible tick
	first     bool  // first message of its conversation
	threadLen int
	senderHis int
	order     int      // position in delivery order
	judgement *[2]bool // may and must be admitted (judge), once asked
	reply     replyDue
}

// draft, effect and auditLine point at their records in the shared parse.
type draft struct {
	*sandbox.Draft
	line int
	at   stamp
}

type effect struct {
	*sandbox.Effect
	line  int
	at    stamp
	draft *draft // first declaration of its draft id, nil when undeclared
}

// work returns the work item the effect is for, or "".
func (e *effect) work() string {
	if e.draft == nil {
		return ""
	}
	return e.draft.WorkID
}

type approval struct {
	sandbox.ApprovalRecord
	line   int
	at     stamp
	draft  *draft // the draft its id names, nil when none was declared
	valid  bool   // names a draft declared before it, with the same hash
	copies int    // lines carrying this approval id (redeliveries)
	first  bool   // first line of its approval id
	// tampered is set on a line the bundle does not explain (D30): it is
	// not what the harness wrote, so it authorizes nothing.
	tampered bool
}

type signal struct {
	sandbox.SignalRecord
	line int
	at   stamp
}

type auditLine struct {
	// A run's audit lines are most of its lines: a copy each doubled
	// their part of the heap.
	*sandbox.AuditRecord
	line int
	at   stamp
}

// badLine is a line of an implementation log that did not parse.
type badLine struct {
	sandbox.LineError
	at  stamp
	raw string // the line's bytes, without its newline
}

// crash is one crash of the implementation: the moment it landed and where
// the evidence is.
type crash struct {
	at stamp
	// logIndex is its run log record's index, or fault its place in the
	// bundle's faults (-1 with a run log): the evidence is made from them
	// only for a finding.
	logIndex, fault int
}

func (c crash) evidence() string {
	if c.fault >= 0 {
		return fmt.Sprintf("bundle:faults[%d]", c.fault)
	}
	return runLogRef(c.logIndex)
}

// snapshot is one version of state.json.
type snapshot struct {
	snap    sandbox.Snapshot
	err     *sandbox.LineError
	missing bool
}

// tickEnd is one visited tick of a run log.
type tickEnd struct {
	tick   int
	forced bool
	state  int // the version of facts.states at the tick's end
}

// facts is everything the invariants look at, parsed once and indexed.
type facts struct {
	b *scenarios.Bundle
	// bx finds the bundle's messages and approvals by id.
	bx *scenarios.Index
	// parsed is the run's shared parse (Input.Parsed), nil when the checker
	// parses alone.
	parsed   *sandbox.Parsed
	top      int
	tl       timeline
	regimes  regimes
	ordered  bool // a run log gives observed ticks and order within ticks
	messages []*message
	msgByID  map[string]*message

	drafts      []*draft
	draftByID   map[string]*draft // first declaration
	draftsByWrk map[string][]*draft
	effects     []*effect
	effByWork   map[string][]*effect
	approvals   []*approval
	escalations []*signal
	deaths      []*signal
	audit       []*auditLine
	admissions  []*auditLine
	claims      []*auditLine
	resolutions []*auditLine
	resByWork   map[string][]*auditLine
	admitted    map[string]*auditLine // work id -> its first admission
	workIDs     []string              // admitted work ids, in admission order
	modelCalls  map[string]bool
	refused     map[string]bool // ids of requests the stub refused: no completion came of them
	failed      map[string]bool // ids of calls that failed (D74): no completion came of them either
	bad         []badLine
	crashes     []crash
	downs       []downSpan          // the crashes' downtimes, in time order
	torn        map[tornAt]string   // lines a crash tore, by the run log: the bytes that reached each (D75)
	tampers     []sandbox.LogRecord // run log records of harness files the implementation changed
	tamperRefs  []string
	unfired     map[string]int // scheduled item id -> index of its unfired run log record
	fleetLoss   *[]goneSpan    // when the implementation's whole fleet was dead (D28, D42), computed once
	diffs       []harnessDiff  // harness files that disagree with what the harness wrote
	repeatCount map[string]int
	appendLogs  map[string]*appendLog // drafts, outbox and audit as they were appended
	answers     *answers              // the messages unadmitted work items answer (D32), computed once
	lookups     *lookups              // indexes built on first use (lookups.go)
	ctxBuf      []int                 // contexts' list, reused
	claimGroups *claimGroups          // claimsByWork, once asked
	drafted     []string              // draftedWork, once asked
	escs        *[]escalation         // escalationsOf, once asked

	fixtureDefects []FixtureDefect // lines of harness-written files that cannot be read

	states   *stateHistory // versions of state.json over the run
	final    snapshot      // state.json as left in the sandbox
	tickEnds []tickEnd
	holdings map[int][]holding // death tick -> what the version in force then gave out (nil: none readable)

	obligations tally // what each safety and liveness check judged (see judged)
}

func build(in Input) *facts {
	b := in.Bundle
	f := &facts{b: b, bx: b.Index(), top: clampLevel(b.Meta.TopLevel), tl: newTimeline(b), parsed: in.Parsed}
	f.regimes = newRegimes(b, f.tl, in.Log)
	f.ordered = hasTickEnds(in.Log)
	file := func(name string) []byte { return in.Files[name] }

	f.parseImplLogs(file, in.Log)
	f.parseHarnessLogs(file, in.Log)
	f.parseState(file(sandbox.State), in.Log)
	f.parseCrashes(in.Log)
	f.parseDowntimes(in.Log)
	f.unfired = map[string]int{}
	for i := range in.Log {
		r := &in.Log[i]
		if r.Kind == sandbox.LogTamper {
			f.tampers = append(f.tampers, *r)
			f.tamperRefs = append(f.tamperRefs, runLogRef(i))
		}
		if r.Kind == sandbox.LogUnfired && r.Ref == "" {
			f.unfired[r.ID] = i
		}
	}
	f.parseModelCalls(file(sandbox.ModelCalls))
	f.index()
	return f
}

func clampLevel(l int) int {
	if l < MinLevel {
		return MinLevel
	}
	if l > MaxLevel {
		return MaxLevel
	}
	return l
}

func hasTickEnds(log []sandbox.LogRecord) bool {
	for i := range log {
		r := &log[i]
		if r.Kind == sandbox.LogTickEnd {
			return true
		}
	}
	return false
}

// observed maps each line of an implementation log to the tick whose
// tick_end first counts it and its position in that tick's writes.
type observed struct {
	stamps []stamp // by line number; [0] unused
	last   int
}

// tickCounts is one tick end of the run log and its line counts of the
// implementation's logs, in sandbox.ImplLogs order: the appended reading and
// the stamps of all three read them, and a lookup in a record's map of
// counts costs more than the rest of their work on the record.
type tickCounts struct {
	r *sandbox.LogRecord
	i int // its index in the run log
	n [3]int
}

// implIndex is the place of an implementation log in sandbox.ImplLogs.
func implIndex(name string) int {
	for k, n := range sandbox.ImplLogs {
		if n == name {
			return k
		}
	}
	panic("checker: " + name + " is not an implementation log")
}

func implCounts(log []sandbox.LogRecord) []tickCounts {
	n := 0
	for i := range log {
		if log[i].Kind == sandbox.LogTickEnd {
			n++
		}
	}
	out := make([]tickCounts, 0, n)
	for i := range log {
		r := &log[i]
		if r.Kind != sandbox.LogTickEnd {
			continue
		}
		c := tickCounts{r: r, i: i}
		for k, name := range sandbox.ImplLogs {
			c.n[k] = r.Lines[name]
		}
		out = append(out, c)
	}
	return out
}

// observe reads the stamps of the first maxLines lines of the k-th of the
// implementation's logs; counts in the log beyond what the file holds are
// ignored.
func observe(ticks []tickCounts, k int, maxLines int) observed {
	// No more than maxLines lines get a stamp: room for them all at once.
	o := observed{stamps: make([]stamp, 1, maxLines+1)}
	name := sandbox.ImplLogs[k]
	prev := 0
	var pos []int // the positions of name in a tick's writes, reused
	for _, t := range ticks {
		r := t.r
		o.last = r.Tick
		// A file the record does not count reads as 0: never past prev.
		count := t.n[k]
		if count <= prev {
			continue
		}
		pos = pos[:0]
		for i, w := range r.Writes {
			if w == name {
				pos = append(pos, i)
			}
		}
		for n := prev + 1; n <= count && n <= maxLines; n++ {
			seq := seqEnd - 1
			if k := n - prev - 1; k < len(pos) {
				seq = pos[k]
			}
			o.stamps = append(o.stamps, stamp{r.Tick, seq})
		}
		prev = count
	}
	return o
}

// at returns the observed stamp of line n; a line no tick_end counted is
// placed at the end of the run.
func (o observed) at(n int) stamp {
	if n > 0 && n < len(o.stamps) {
		return o.stamps[n]
	}
	return endOf(o.last)
}

// implStamp returns a function placing implementation lines in time: by the
// run log when there is one, else by the line's own timestamp.
func (f *facts) implStamp(ticks []tickCounts, k int, data []byte) func(n, own int) stamp {
	if !f.ordered {
		return func(_, own int) stamp { return stamp{own, seqImpl} }
	}
	o := observe(ticks, k, bytes.Count(data, []byte("\n"))+1)
	return func(n, _ int) stamp { return o.at(n) }
}

// parseImplLogs reads drafts, outbox and audit as they were appended: a
// line taken back since still counts (appendonly.go).
func (f *facts) parseImplLogs(file func(string) []byte, log []sandbox.LogRecord) {
	ticks := implCounts(log)
	f.appendLogs = make(map[string]*appendLog, len(sandbox.ImplLogs))
	for k, name := range sandbox.ImplLogs {
		f.appendLogs[name] = appendOnly(k, file(name), log, ticks)
	}
	file = func(name string) []byte { return f.appendLogs[name].data }
	data := file(sandbox.Drafts)
	dst, derrs := f.parsed.Drafts(data)
	at := f.implStamp(ticks, implIndex(sandbox.Drafts), data)
	// One block for the file's records: a run has a few dozen of them.
	ds := make([]draft, len(dst))
	f.drafts = make([]*draft, len(dst))
	for i := range dst {
		l := &dst[i]
		ds[i] = draft{Draft: &l.Rec, line: l.N, at: at(l.N, l.Rec.DeclaredAt)}
		f.drafts[i] = &ds[i]
	}
	f.addBad(derrs, at, data, "declared_at")

	data = file(sandbox.Outbox)
	out, oerrs := f.parsed.Outbox(data)
	at = f.implStamp(ticks, implIndex(sandbox.Outbox), data)
	es := make([]effect, len(out))
	f.effects = make([]*effect, len(out))
	for i := range out {
		l := &out[i]
		es[i] = effect{Effect: &l.Rec, line: l.N, at: at(l.N, l.Rec.SentAt)}
		f.effects[i] = &es[i]
	}
	f.addBad(oerrs, at, data, "sent_at")

	data = file(sandbox.Audit)
	aud, aerrs := f.parsed.Audit(data)
	at = f.implStamp(ticks, implIndex(sandbox.Audit), data)
	as := make([]auditLine, len(aud))
	f.audit = make([]*auditLine, len(aud))
	for i := range aud {
		l := &aud[i]
		as[i] = auditLine{AuditRecord: &l.Rec, line: l.N, at: at(l.N, l.Rec.At)}
		f.audit[i] = &as[i]
	}
	f.addBad(aerrs, at, data, "at")
}

// addBad records the lines that did not parse. Without a run log a bad line
// is placed by its own timestamp field when that much of it can be read.
func (f *facts) addBad(errs []sandbox.LineError, at func(n, own int) stamp, data []byte, field string) {
	if len(errs) == 0 {
		return
	}
	lines := bytes.Split(data, []byte("\n"))
	for _, e := range errs {
		own, raw := 0, ""
		if e.Line >= 1 && e.Line <= len(lines) {
			own, raw = looseTick(lines[e.Line-1], field), string(lines[e.Line-1])
		}
		f.bad = append(f.bad, badLine{LineError: e, at: at(e.Line, own), raw: raw})
	}
}

// looseTick reads a whole-number field of a line that may be otherwise
// invalid; 0 when it cannot.
func looseTick(line []byte, field string) int {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return 0
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(m[field])))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// parseHarnessLogs builds the harness's inputs from what the harness wrote
// (D30): the run log's records when there is a log, else the sandbox lines
// the bundle explains and the escalations it proves were written. Every
// disagreement of a harness file with them is kept for L0.harness-files.
func (f *facts) parseHarnessLogs(file func(string) []byte, log []sandbox.LogRecord) {
	if len(log) > 0 {
		f.harnessFromLog(file, log)
	} else {
		f.harnessFromBundle(file)
	}
	// The first escalation of a work item is the earliest one, wherever
	// its line is.
	sortByStamp(f.escalations, func(s *signal) (stamp, int) { return s.at, s.line })
	f.judgeFixtureFiles(file, log)
}

// setMessages takes the distinct messages as delivered, in delivery order,
// adds the bundle's messages missing from them at their visible tick, and
// works out the thread facts.
func (f *facts) setMessages(delivered []*message) {
	f.msgByID = map[string]*message{}
	for _, m := range delivered {
		if _, dup := f.msgByID[m.ID]; dup {
			continue
		}
		f.msgByID[m.ID] = m
		f.messages = append(f.messages, m)
	}
	for _, d := range f.b.Inbox {
		if _, ok := f.msgByID[d.ID]; ok {
			continue
		}
		v, ok := f.tl.visible(d.At)
		if !ok {
			continue
		}
		m := &message{Message: sandbox.Message(d), at: stamp{v, seqHarness}}
		f.msgByID[m.ID] = m
		f.messages = append(f.messages, m)
	}
	sortStable(f.messages, func(a, b *message) bool { return a.at.tick < b.at.tick })
	conv, sender := map[string]int{}, map[string]int{}
	for i, m := range f.messages {
		m.order = i
		m.vis = m.at.tick
		m.first = conv[m.ConversationID] == 0
		conv[m.ConversationID]++
		m.threadLen = conv[m.ConversationID]
		m.senderHis = sender[m.From]
		sender[m.From]++
	}
}

// parseState reads the final state.json and, from the run log, the version
// in force at the end of every tick: each version as what it changed
// (stateHistory), read by a follower that decodes only changed entries, so
// a run's versions cost what changed in them and only one is held whole.
// What the agent-death check needs of the version in force at each death
// is taken as the versions go by.
func (f *facts) parseState(data []byte, log []sandbox.LogRecord) {
	ends := 0
	for i := range log {
		if log[i].Kind == sandbox.LogTickEnd {
			ends++
		}
	}
	h := newStateHistory(ends)
	f.tickEnds = make([]tickEnd, 0, ends)
	f.states = h
	f.holdings = map[int][]holding{}
	var pending []int // death ticks whose version in force is not known yet
	for _, s := range f.deaths {
		pending = append(pending, s.at.tick)
	}
	sort.Ints(pending)
	var replay sandbox.StateReplay
	var follow sandbox.StateFollower
	var cur sandbox.Snapshot // the latest version read, when it is the latest
	inForce := -1            // the version at the last tick end, -1 before the first
	for i := range log {
		r := &log[i]
		if r.Kind != sandbox.LogTickEnd {
			continue
		}
		for len(pending) > 0 && pending[0] <= r.Tick {
			f.holdings[pending[0]] = holdingsOf(h, inForce, cur)
			pending = pending[1:]
		}
		version, changed, err := replay.Next(*r)
		switch {
		case err != nil:
			// Only a run log that did not come through ParseRunLog gets here.
			h.addUnread(false, &sandbox.LineError{File: sandbox.State, Line: 1, Msg: "the run log's " + err.Error()})
		case changed && len(bytes.TrimSpace(version)) == 0:
			h.addUnread(true, nil)
		case changed:
			snap, perr, ch := follow.Next(version)
			h.addRead(snap, perr, ch, &follow)
			cur = snap
		case r.Detail != "" && bytes.Contains([]byte(r.Detail), []byte(sandbox.State)):
			h.addUnread(false, &sandbox.LineError{File: sandbox.State, Line: 1, Msg: "not a JSON object"})
		}
		inForce = h.last()
		f.tickEnds = append(f.tickEnds, tickEnd{tick: r.Tick, forced: r.Forced, state: inForce})
	}
	for _, t := range pending {
		f.holdings[t] = holdingsOf(h, inForce, cur)
	}
	// Read after the replay, which needs none of it: the replay's versions
	// and the final file's parse are then never held together.
	f.final = readSnapshot(data)
}

// holding is one entry of a snapshot that gives a work item to an agent:
// a work_items entry's assigned_agent or an assignments entry.
type holding struct{ work, agent string }

// holdingsOf lists the holdings of version v, in the snapshot's order
// (work_items, then assignments), when v is readable and cur is it; nil
// for no readable version.
func holdingsOf(h *stateHistory, v int, cur sandbox.Snapshot) []holding {
	if !h.readable(v) {
		return nil
	}
	out := []holding{}
	for _, wi := range cur.WorkItems {
		if wi.AssignedAgent != nil {
			out = append(out, holding{wi.WorkID, *wi.AssignedAgent})
		}
	}
	for _, a := range cur.Assignments {
		out = append(out, holding{a.WorkID, a.AgentID})
	}
	return out
}

func readSnapshot(data []byte) snapshot {
	if len(bytes.TrimSpace(data)) == 0 {
		return snapshot{missing: true}
	}
	s, err := sandbox.ParseState(data)
	return snapshot{snap: s, err: err}
}

// parseCrashes reads the crashes from the run log, or from the bundle's
// schedule without one. A crash inside a tick is placed right after the
// harness fired: no earlier than it really landed, which can only make an
// item look pending that was in fact resolved later in the same tick.
func (f *facts) parseCrashes(log []sandbox.LogRecord) {
	if f.ordered {
		for i := range log {
			r := &log[i]
			if r.Kind != sandbox.LogCrash {
				continue
			}
			seq := seqAfterHarness
			if r.AfterWrites == 0 {
				seq = seqCrashBoundary
			}
			f.crashes = append(f.crashes, crash{at: stamp{r.Tick, seq}, logIndex: i, fault: -1})
			if r.Torn != "" && r.Line > 0 {
				if f.torn == nil {
					f.torn = map[tornAt]string{}
				}
				f.torn[tornAt{r.Torn, r.Line}] = r.TornText
			}
		}
		return
	}
	for i, fl := range f.b.Faults {
		if fl.Kind != scenarios.FaultCrash {
			continue
		}
		v, ok := f.tl.visible(fl.At)
		if !ok {
			continue
		}
		seq := seqAfterHarness
		if fl.AfterWrites == 0 {
			seq = seqCrashBoundary
		}
		f.crashes = append(f.crashes, crash{at: stamp{v, seq}, fault: i})
	}
	sortStable(f.crashes, func(a, b crash) bool { return a.at.before(b.at) })
}

func runLogRef(i int) string { return sandbox.RunLogFile + ":" + strconv.Itoa(i+1) }

// index builds the lookups every invariant shares.
func (f *facts) index() {
	// Each list stays in its file's line order: one file is written in
	// time order, and without a run log its lines' own ticks may disagree.
	f.draftByID = make(map[string]*draft, len(f.drafts))
	for _, d := range f.drafts {
		if _, ok := f.draftByID[d.DraftID]; !ok {
			f.draftByID[d.DraftID] = d
		}
	}
	f.draftsByWrk = groupBy(f.drafts, func(d *draft) string { return d.WorkID },
		func(d *draft) bool { return f.draftByID[d.DraftID] == d })
	for _, e := range f.effects {
		e.draft = f.draftByID[e.DraftID]
	}
	f.effByWork = groupBy(f.effects, (*effect).work, func(e *effect) bool { return e.work() != "" })
	copies := make(map[string]int, len(f.approvals))
	for _, a := range f.approvals {
		copies[a.ApprovalID]++
		a.first = copies[a.ApprovalID] == 1
		a.draft = f.draftByID[a.DraftID]
		a.valid = !a.tampered && a.draft != nil && f.declaredBefore(a.draft, a.at) && a.draft.ContentHash == a.ContentHash
	}
	for _, a := range f.approvals {
		a.copies = copies[a.ApprovalID]
	}
	var nAdm, nClaim, nRes int
	for _, a := range f.audit {
		switch a.Event {
		case sandbox.EventAdmission:
			nAdm++
		case sandbox.EventClaim:
			nClaim++
		case sandbox.EventResolution:
			nRes++
		}
	}
	f.admissions, f.claims, f.resolutions = make([]*auditLine, 0, nAdm), make([]*auditLine, 0, nClaim), make([]*auditLine, 0, nRes)
	f.admitted = make(map[string]*auditLine, nAdm)
	f.workIDs = make([]string, 0, nAdm)
	for _, a := range f.audit {
		switch a.Event {
		case sandbox.EventAdmission:
			f.admissions = append(f.admissions, a)
			if _, ok := f.admitted[a.WorkID]; !ok {
				f.admitted[a.WorkID] = a
				f.workIDs = append(f.workIDs, a.WorkID)
			}
		case sandbox.EventClaim:
			f.claims = append(f.claims, a)
		case sandbox.EventResolution:
			f.resolutions = append(f.resolutions, a)
		}
	}
	f.resByWork = groupBy(f.resolutions, func(a *auditLine) string { return a.WorkID }, nil)
}

// declaredBefore reports whether a draft existed when an approval was
// written. Without a log only ticks are compared: another harness may write
// an approval in the same tick after the draft.
func (f *facts) declaredBefore(d *draft, at stamp) bool {
	if f.ordered {
		return d.at.before(at)
	}
	return d.at.tick <= at.tick
}

func sortByStamp[T any](s []T, key func(T) (stamp, int)) {
	sortStable(s, func(x, y T) bool {
		a, la := key(x)
		b, lb := key(y)
		if a != b {
			return a.before(b)
		}
		return la < lb
	})
}

// origin tags the drafting origin over every declared draft (spec §5).
func (f *facts) origin() string {
	model, free := false, false
	for _, d := range f.drafts {
		if d.Origin.ModelFree {
			free = true
		} else {
			model = true
		}
	}
	switch {
	case model && free:
		return OriginMixed
	case model:
		return OriginModelBased
	case free:
		return OriginModelFree
	}
	return OriginNone
}

// ref renders file:line evidence.
func ref(file string, line int) string { return file + ":" + strconv.Itoa(line) }

// messageRef is a message's evidence: its first inbox line, or the bundle.
func (m *message) ref() string {
	if m.line > 0 {
		return ref(sandbox.Inbox, m.line)
	}
	return "bundle:inbox/" + m.ID
}

// messageOf returns the message a work item was admitted for.
func (f *facts) messageOf(work string) *message {
	a, ok := f.admitted[work]
	if !ok {
		return nil
	}
	return f.msgByID[a.MessageID]
}

// worksOf returns the distinct work ids admitted for a message, in order.
// The list is the lookup's own: callers read it and never append to it.
func (f *facts) worksOf(msg string) []string { return f.look().worksByMsg[msg] }

// effectsOf returns the effects of a work item's drafts, in line order.
func (f *facts) effectsOf(work string) []*effect { return f.effByWork[work] }

// resolutionsOf returns a work item's resolution records, in line order.
func (f *facts) resolutionsOf(work string) []*auditLine { return f.resByWork[work] }

// latestDraft returns the last draft of a work item declared before at.
func (f *facts) latestDraft(work string, at stamp) *draft {
	var last *draft
	for _, d := range f.draftsByWrk[work] {
		if d.at.before(at) {
			last = d
		}
	}
	return last
}

// rawString reads a string field of a free-form audit record.
func rawString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// rawStrings reads a list of strings of a free-form audit record.
func rawStrings(raw json.RawMessage) []string {
	var s []string
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s
}
