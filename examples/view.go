package examples

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/amr-bench/amr/sim/sandbox"
)

// view is everything one step knows: the sandbox files as they are now,
// parsed. Lines an implementation cannot parse are skipped; judging them is
// the checker's business.
type view struct {
	tick      int
	posture   string
	modeOK    bool
	rulesRaw  []byte
	rules     []rule
	rulesOK   bool
	fleet     []string
	inbox     []sandbox.Message
	signals   []sandbox.SignalRecord
	approvals []sandbox.ApprovalRecord
	drafts    []sandbox.Draft
	outbox    []sandbox.Effect
	audit     []auditRec
	state     []byte
	stateSeen bool
	// raw holds every file read except the clock, in a fixed order, so a
	// step can tell that nothing changed since the files were last settled.
	raw [][]byte
}

// defaultFleet is used when fleet.json is missing or names no agent.
var defaultFleet = []string{"agent-1"}

// logCache keeps the parsed records of one append-only file, so a step
// parses only the lines added since the last one. It holds nothing the files
// do not: a fresh instance rebuilds it from them.
type logCache[T any] struct {
	raw  []byte
	recs []T
	// whole is set when the last load ended on a line boundary, so a line
	// this instance then appends is known to start a line of its own.
	whole bool
	// wrote holds the lines appended by this instance since the last load,
	// whose records are already in recs; the next load checks that the file
	// really holds them before trusting recs.
	wrote []byte
	// resets counts the loads that found the file no longer extends what
	// was read, so the records were parsed again from the start.
	resets int
	// slot holds the parse this cache last shared, for as long as the
	// cache lasts.
	slot *parseSlot[T]
}

// load returns the records of data, reusing the parse of a previous content
// that data extends: this cache's own, or for a cache that holds nothing
// yet, the last one shared. Only complete lines are kept in the cache.
func (c *logCache[T]) load(data []byte, parse func([]T, []byte) []T, shared *sharedLog[T]) []T {
	had, known := len(c.raw), len(c.raw)+len(c.wrote)
	if len(data) < known || !sameBytes(data[:len(c.raw)], c.raw) || !bytes.Equal(data[len(c.raw):known], c.wrote) {
		c.raw, c.recs, had, known = nil, nil, 0, 0
		c.resets++
	}
	if known == 0 && len(data) > 0 && shared != nil {
		known = c.adopt(data, shared.load())
		had = known
	}
	c.raw, c.wrote = data[:known], c.wrote[:0]
	rest := data[known:]
	cut := bytes.LastIndexByte(rest, '\n') + 1
	if cut > 0 {
		c.recs = parse(c.recs, rest[:cut])
		c.raw = data[:known+cut]
	}
	// The lines this instance wrote count too: most of the audit log is
	// the reference's own, which it never parses.
	if shared != nil && len(c.raw) > had {
		shared.publish(c, &logParse[T]{raw: c.raw, recs: c.recs[:len(c.recs):len(c.recs)]})
	}
	c.whole = cut == len(rest)
	out := c.recs[:len(c.recs):len(c.recs)]
	if cut < len(rest) {
		out = parse(out, rest[cut:])
	}
	return out
}

// adopt takes p's records when data starts with the lines p parsed, and
// returns how many bytes of data they cover.
func (c *logCache[T]) adopt(data []byte, p *logParse[T]) int {
	if p == nil || len(p.raw) == 0 || len(p.raw) > len(data) || !sameBytes(data[:len(p.raw)], p.raw) {
		return 0
	}
	// Clipped, so that this cache's appends never reach p's records.
	c.recs = p.recs[:len(p.recs):len(p.recs)]
	return len(p.raw)
}

// logParse is the complete lines of one log as an instance read them, and
// their records; never modified once made.
type logParse[T any] struct {
	raw  []byte
	recs []T
}

// sharedLog is the last parse of one log file by any instance (D220). A
// fresh instance (after a crash, or in the next run) still reads the file
// from its own sandbox; when the file starts with the lines last parsed, it
// takes their records instead of parsing those bytes again: the records are
// a pure function of the bytes. Concurrent runs share it: a parse of other
// bytes is a miss, never a wrong answer. It holds the parse weakly, through
// the publishing cache's own slot: once no cache holds it, as after a run's
// last instance, it goes with them instead of staying for as long as
// nothing replaces it.
type sharedLog[T any] struct {
	mu   sync.Mutex
	last weak.Pointer[parseSlot[T]]
}

// parseSlot is where one cache publishes its parses, each never modified
// once made.
type parseSlot[T any] struct {
	p atomic.Pointer[logParse[T]]
}

func (s *sharedLog[T]) load() *logParse[T] {
	s.mu.Lock()
	slot := s.last.Value()
	s.mu.Unlock()
	if slot == nil {
		return nil
	}
	return slot.p.Load()
}

// publish makes p the shared parse, through the cache's slot.
func (s *sharedLog[T]) publish(c *logCache[T], p *logParse[T]) {
	if c.slot == nil {
		c.slot = &parseSlot[T]{}
	}
	c.slot.p.Store(p)
	s.mu.Lock()
	if s.last.Value() != c.slot {
		s.last = weak.Make(c.slot)
	}
	s.mu.Unlock()
}

var (
	sharedInbox     sharedLog[sandbox.Message]
	sharedSignals   sharedLog[sandbox.SignalRecord]
	sharedApprovals sharedLog[sandbox.ApprovalRecord]
	sharedDrafts    sharedLog[sandbox.Draft]
	sharedOutbox    sharedLog[sandbox.Effect]
	sharedAudit     sharedLog[auditRec]
)

// appended notes a line this instance appended to the file, and its
// record, so the next load need not parse it again. It reports false when
// the last load ended inside a line, which the new line then continues.
func (c *logCache[T]) appended(line []byte, rec T) bool {
	if !c.whole {
		return false
	}
	c.wrote = append(append(c.wrote, line...), '\n')
	c.recs = append(c.recs, rec)
	return true
}

// parsedBy is a file's parser as the caches call it: the records of data's
// lines appended to recs, the lines it refuses skipped.
func parsedBy[T any](parse func([]byte) ([]sandbox.Line[T], []sandbox.LineError)) func([]T, []byte) []T {
	return func(recs []T, data []byte) []T {
		lines, _ := parse(data)
		for _, l := range lines {
			recs = append(recs, l.Rec)
		}
		return recs
	}
}

var (
	parseInbox     = parsedBy(sandbox.ParseInbox)
	parseSignals   = parsedBy(sandbox.ParseSignals)
	parseApprovals = parsedBy(sandbox.ParseApprovals)
	parseDrafts    = parsedBy(sandbox.ParseDrafts)
	parseOutbox    = parsedBy(sandbox.ParseOutbox)
)

// caches are one instance's parse caches, one per file it reads.
type caches struct {
	inbox     logCache[sandbox.Message]
	signals   logCache[sandbox.SignalRecord]
	approvals logCache[sandbox.ApprovalRecord]
	drafts    logCache[sandbox.Draft]
	outbox    logCache[sandbox.Effect]
	audit     logCache[auditRec]
	rulesRaw  []byte
	rules     []rule
	rulesHash string
	fleetRaw  []byte
	fleet     []string
	clockRaw  []byte
	tick      int
	modeRaw   []byte
	posture   string
	modeOK    bool
}

// inputs are the files a step reads besides the clock, in the order of
// view.raw.
var inputs = []string{
	sandbox.Mode, sandbox.Rules, sandbox.Fleet,
	sandbox.Inbox, sandbox.Signals, sandbox.Approvals,
	sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.State,
}

// viewer is a store that can show a file without copying it, as the
// simulator's in-process sandbox does. What it returns is never modified.
type viewer interface {
	View(name string) []byte
}

// readRaw reads every input file, into buf when it is not nil.
func readRaw(s sandbox.Store, buf [][]byte) ([][]byte, error) {
	raw := buf
	if len(raw) != len(inputs) {
		raw = make([][]byte, len(inputs))
	}
	if vw, ok := s.(viewer); ok {
		for i, name := range inputs {
			raw[i] = nil
			if data := vw.View(name); len(data) > 0 {
				raw[i] = data
			}
		}
		return raw, nil
	}
	for i, name := range inputs {
		data, err := s.Read(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		raw[i] = data
	}
	return raw, nil
}

// read parses the files into v, which it makes afresh: nothing of what v
// said before is left. Only an unreadable clock is an error: without it
// nothing can be timestamped. A broken mode.json or rules.json only holds
// back admissions until it is readable again.
func (c *caches) read(s sandbox.Store, raw [][]byte, v *view) error {
	tick, err := c.readClock(s)
	if err != nil {
		return fmt.Errorf("reading clock: %w", err)
	}
	*v = view{tick: tick, raw: raw}
	v.posture, v.modeOK = c.parseMode(raw[0])
	if raw[1] != nil {
		v.rulesRaw = raw[1]
		v.rules, v.rulesOK = c.parseRules(raw[1])
	}
	v.fleet = c.parseFleet(raw[2])
	v.inbox = c.inbox.load(raw[3], parseInbox, &sharedInbox)
	v.signals = c.signals.load(raw[4], parseSignals, &sharedSignals)
	v.approvals = c.approvals.load(raw[5], parseApprovals, &sharedApprovals)
	v.drafts = c.drafts.load(raw[6], parseDrafts, &sharedDrafts)
	v.outbox = c.outbox.load(raw[7], parseOutbox, &sharedOutbox)
	v.audit = c.audit.load(raw[8], parseAuditRecs, &sharedAudit)
	v.state, v.stateSeen = raw[9], raw[9] != nil
	return nil
}

// readClock reads the tick, reusing the last decode when the clock file
// did not change.
func (c *caches) readClock(s sandbox.Store) (int, error) {
	var data []byte
	if vw, ok := s.(viewer); ok {
		data = vw.View(sandbox.Clock)
	} else {
		var err error
		if data, err = s.Read(sandbox.Clock); err != nil {
			return 0, err
		}
	}
	if c.clockRaw != nil && bytes.Equal(data, c.clockRaw) {
		return c.tick, nil
	}
	// data is the file as read or viewed just now: parsing it is what
	// ReadClock would do with a second read.
	tick, err := sandbox.ParseClock(data)
	if err != nil {
		return 0, err
	}
	c.clockRaw, c.tick = append(c.clockRaw[:0], data...), tick
	return tick, nil
}

// parseMode reads the posture from mode.json, reusing the last decode when
// the bytes did not change.
func (c *caches) parseMode(data []byte) (string, bool) {
	if c.modeRaw != nil && bytes.Equal(data, c.modeRaw) {
		return c.posture, c.modeOK
	}
	m := sharedMode(data)
	c.modeRaw, c.posture, c.modeOK = m.raw, m.posture, m.ok
	return m.posture, m.ok
}

// parsedMode is one mode.json's bytes and posture; never modified once
// made.
type parsedMode struct {
	raw     []byte
	posture string
	ok      bool
}

// lastMode is the last mode.json decoded by any instance, shared as
// lastRules is.
var lastMode atomic.Pointer[parsedMode]

func sharedMode(data []byte) *parsedMode {
	if m := lastMode.Load(); m != nil && bytes.Equal(data, m.raw) {
		return m
	}
	var f sandbox.ModeFile
	m := &parsedMode{raw: append([]byte{}, data...)}
	if json.Unmarshal(data, &f) == nil && f.Posture != "" {
		m.posture, m.ok = f.Posture, true
	}
	lastMode.Store(m)
	return m
}

// parseRules decodes rules.json, reusing the last decode when the bytes did
// not change.
func (c *caches) parseRules(raw []byte) ([]rule, bool) {
	if c.rulesRaw != nil && bytes.Equal(raw, c.rulesRaw) {
		return c.rules, true
	}
	p := sharedRules(raw)
	if p == nil {
		return nil, false
	}
	c.rulesRaw, c.rules, c.rulesHash = p.raw, p.rules, p.hash
	return p.rules, true
}

// hashOf is rulesHash(raw), without hashing again the rules.json last
// parsed: every admission under it names the same hash.
func (c *caches) hashOf(raw []byte) string {
	if c.rulesRaw != nil && bytes.Equal(raw, c.rulesRaw) {
		return c.rulesHash
	}
	return rulesHash(raw)
}

// parsedRules is one rules.json's bytes, rules and hash; never modified
// once made.
type parsedRules struct {
	raw   []byte
	rules []rule
	hash  string
}

// lastRules is the last rules.json parsed by any instance. A fresh instance
// (after a crash, or in the next run of the same bundle) still reads
// rules.json from its own sandbox and parses it by the same rules; only
// the parse of bytes already parsed is not made again, a pure function of
// the bytes. It is shared by concurrent runs: one holding other bytes is
// a miss, never a wrong answer.
var lastRules atomic.Pointer[parsedRules]

// sharedRules is the parse of raw, nil when it is not a rule list.
func sharedRules(raw []byte) *parsedRules {
	if p := lastRules.Load(); p != nil && bytes.Equal(raw, p.raw) {
		return p
	}
	rules, err := parseRules(raw)
	if err != nil {
		return nil
	}
	p := &parsedRules{raw: append([]byte(nil), raw...), rules: rules, hash: rulesHash(raw)}
	lastRules.Store(p)
	return p
}

// parseFleet reads fleet.json's agents, reusing the last decode when the
// bytes did not change.
func (c *caches) parseFleet(data []byte) []string {
	if c.fleet != nil && bytes.Equal(data, c.fleetRaw) {
		return c.fleet
	}
	f := sharedFleet(data)
	c.fleetRaw, c.fleet = f.raw, f.agents
	return c.fleet
}

// parsedFleet is one fleet.json's bytes and agents; never modified once
// made.
type parsedFleet struct {
	raw    []byte
	agents []string
}

// lastFleet is the last fleet.json decoded by any instance, shared as
// lastRules is.
var lastFleet atomic.Pointer[parsedFleet]

func sharedFleet(data []byte) *parsedFleet {
	if f := lastFleet.Load(); f != nil && bytes.Equal(data, f.raw) {
		return f
	}
	f := &parsedFleet{raw: append([]byte(nil), data...), agents: decodeFleet(data)}
	lastFleet.Store(f)
	return f
}

func decodeFleet(data []byte) []string {
	var f struct {
		Agents []string `json:"agents"`
	}
	if json.Unmarshal(data, &f) != nil {
		return defaultFleet
	}
	var agents []string
	seen := map[string]bool{}
	for _, a := range f.Agents {
		if a != "" && !seen[a] {
			seen[a] = true
			agents = append(agents, a)
		}
	}
	if len(agents) == 0 {
		return defaultFleet
	}
	return agents
}

// sameFiles reports whether two reads of the input files are
// byte-identical.
func sameFiles(a, b [][]byte) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameBytes(a[i], b[i]) {
			return false
		}
	}
	return true
}

// add records a line this instance just wrote, exactly as a fresh read of
// the file would see it, in the view and in the caches. back, when set, is
// the record the file's parser reads from the line (lineOf). It reports
// false when the line does not parse: a line the responder cannot read back
// would be written again and again.
func (v *view) add(c *caches, file string, line []byte, back any) bool {
	switch file {
	case sandbox.Drafts:
		return addLine(&v.drafts, &c.drafts, line, back, parseDrafts)
	case sandbox.Outbox:
		return addLine(&v.outbox, &c.outbox, line, back, parseOutbox)
	case sandbox.Audit:
		return addLine(&v.audit, &c.audit, line, back, parseAuditRecs)
	}
	return false
}

func addLine[T any](recs *[]T, c *logCache[T], line []byte, back any, parse func([]T, []byte) []T) bool {
	rec, ok := back.(T)
	if !ok {
		parsed := parse(nil, line)
		if len(parsed) != 1 {
			return false
		}
		rec = parsed[0]
	}
	if c.appended(line, rec) {
		// The view showed exactly the cache's records: it still does.
		*recs = c.recs[:len(c.recs):len(c.recs)]
	} else {
		*recs = append(*recs, rec)
	}
	return true
}

// auditField reads a string field of an audit record, free-form ones
// included.
func auditField(r sandbox.AuditRecord, name string) string {
	raw, ok := r.Field(name)
	if !ok {
		return ""
	}
	s, err := sandbox.DecodeString(raw)
	if err != nil {
		return ""
	}
	return s
}

// resets counts the reparses of every log cache: a world kept across
// steps is derived again after one.
func (c *caches) resets() int {
	return c.inbox.resets + c.signals.resets + c.approvals.resets + c.drafts.resets + c.outbox.resets + c.audit.resets
}

// torn reports whether a log's last load ended inside a line.
func (c *caches) torn() bool {
	return !c.inbox.whole || !c.signals.whole || !c.approvals.whole || !c.drafts.whole || !c.outbox.whole || !c.audit.whole
}

// sameBytes reports whether a and b hold the same bytes. Two views of one
// file that start at the same address and have the same length are the
// same bytes without a look at them: a store that shows files without
// copying never changes bytes in place (sim's in-process store says so).
// Without that, every step would compare every file it read whole.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return bytes.Equal(a, b)
}
