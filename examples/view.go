package examples

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/amr-bench/amr/scenarios"
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
	rules     []scenarios.Rule
	rulesOK   bool
	fleet     []string
	inbox     []sandbox.Message
	signals   []sandbox.SignalRecord
	approvals []sandbox.ApprovalRecord
	drafts    []sandbox.Draft
	outbox    []sandbox.Effect
	audit     []sandbox.AuditRecord
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
}

// load returns the records of data, reusing the parse of a previous content
// that data extends. Only complete lines are kept in the cache.
func (c *logCache[T]) load(data []byte, parse func([]byte) ([]sandbox.Line[T], []sandbox.LineError)) []T {
	if len(data) < len(c.raw) || !bytes.Equal(data[:len(c.raw)], c.raw) {
		c.raw, c.recs = nil, nil
	}
	rest := data[len(c.raw):]
	cut := bytes.LastIndexByte(rest, '\n') + 1
	if cut > 0 {
		c.recs = appendRecs(c.recs, rest[:cut], parse)
		c.raw = data[:len(c.raw)+cut]
	}
	out := c.recs[:len(c.recs):len(c.recs)]
	if cut < len(rest) {
		out = appendRecs(out, rest[cut:], parse)
	}
	return out
}

func appendRecs[T any](recs []T, data []byte, parse func([]byte) ([]sandbox.Line[T], []sandbox.LineError)) []T {
	lines, _ := parse(data)
	for _, l := range lines {
		recs = append(recs, l.Rec)
	}
	return recs
}

// caches are one instance's parse caches, one per file it reads.
type caches struct {
	inbox     logCache[sandbox.Message]
	signals   logCache[sandbox.SignalRecord]
	approvals logCache[sandbox.ApprovalRecord]
	drafts    logCache[sandbox.Draft]
	outbox    logCache[sandbox.Effect]
	audit     logCache[sandbox.AuditRecord]
	rulesRaw  []byte
	rules     []scenarios.Rule
	fleetRaw  []byte
	fleet     []string
}

// inputs are the files a step reads besides the clock, in the order of
// view.raw.
var inputs = []string{
	sandbox.Mode, sandbox.Rules, sandbox.Fleet,
	sandbox.Inbox, sandbox.Signals, sandbox.Approvals,
	sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.State,
}

// readRaw reads every input file.
func readRaw(s sandbox.Store) ([][]byte, error) {
	raw := make([][]byte, len(inputs))
	for i, name := range inputs {
		data, err := s.Read(name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		raw[i] = data
	}
	return raw, nil
}

// read parses the files into a view. Only an unreadable clock is an error:
// without it nothing can be timestamped. A broken mode.json or rules.json
// only holds back admissions until it is readable again.
func (c *caches) read(s sandbox.Store, raw [][]byte) (*view, error) {
	tick, err := sandbox.ReadClock(s)
	if err != nil {
		return nil, fmt.Errorf("reading clock: %w", err)
	}
	v := &view{tick: tick, raw: raw}
	var m sandbox.ModeFile
	if json.Unmarshal(raw[0], &m) == nil && m.Posture != "" {
		v.posture, v.modeOK = m.Posture, true
	}
	if raw[1] != nil {
		v.rulesRaw = raw[1]
		v.rules, v.rulesOK = c.parseRules(raw[1])
	}
	v.fleet = c.parseFleet(raw[2])
	v.inbox = c.inbox.load(raw[3], sandbox.ParseInbox)
	v.signals = c.signals.load(raw[4], sandbox.ParseSignals)
	v.approvals = c.approvals.load(raw[5], sandbox.ParseApprovals)
	v.drafts = c.drafts.load(raw[6], sandbox.ParseDrafts)
	v.outbox = c.outbox.load(raw[7], sandbox.ParseOutbox)
	v.audit = c.audit.load(raw[8], sandbox.ParseAudit)
	v.state, v.stateSeen = raw[9], raw[9] != nil
	return v, nil
}

// parseRules decodes rules.json, reusing the last decode when the bytes did
// not change.
func (c *caches) parseRules(raw []byte) ([]scenarios.Rule, bool) {
	if c.rulesRaw != nil && bytes.Equal(raw, c.rulesRaw) {
		return c.rules, true
	}
	var rules []scenarios.Rule
	if err := json.Unmarshal(raw, &rules); err != nil {
		return nil, false
	}
	c.rulesRaw, c.rules = append([]byte(nil), raw...), rules
	return rules, true
}

// parseFleet reads fleet.json's agents, reusing the last decode when the
// bytes did not change.
func (c *caches) parseFleet(data []byte) []string {
	if c.fleet != nil && bytes.Equal(data, c.fleetRaw) {
		return c.fleet
	}
	c.fleetRaw, c.fleet = append([]byte(nil), data...), decodeFleet(data)
	return c.fleet
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
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// add records a line this instance just wrote, exactly as a fresh read of
// the file would see it. It reports false when the line does not parse: a
// line the responder cannot read back would be written again and again.
func (v *view) add(file string, line []byte) bool {
	n := 0
	switch file {
	case sandbox.Drafts:
		n = len(v.drafts)
		v.drafts = appendRecs(v.drafts, line, sandbox.ParseDrafts)
		return len(v.drafts) > n
	case sandbox.Outbox:
		n = len(v.outbox)
		v.outbox = appendRecs(v.outbox, line, sandbox.ParseOutbox)
		return len(v.outbox) > n
	case sandbox.Audit:
		n = len(v.audit)
		v.audit = appendRecs(v.audit, line, sandbox.ParseAudit)
		return len(v.audit) > n
	}
	return false
}

// auditField reads a string field of an audit record, free-form ones
// included.
func auditField(r sandbox.AuditRecord, name string) string {
	raw, ok := r.Fields[name]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
