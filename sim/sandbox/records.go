package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Message is one line of inbox.jsonl.
type Message struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	From           string `json:"from"`
	Subject        string `json:"subject"`
	Body           string `json:"body"`
	At             int    `json:"at"`
}

// ModelFree is the origin of a draft written without the model.
const ModelFree = "model-free"

// Origin is a draft's origin: the ids of the model calls that produced it,
// or the literal "model-free". In JSON it is that string or a list of ids (a
// single id string is also read).
type Origin struct {
	ModelFree bool
	CallIDs   []string
}

// MarshalJSON writes "model-free" or the list of call ids.
func (o Origin) MarshalJSON() ([]byte, error) {
	if o.ModelFree {
		return json.Marshal(ModelFree)
	}
	ids := o.CallIDs
	if ids == nil {
		ids = []string{}
	}
	return json.Marshal(ids)
}

// UnmarshalJSON reads "model-free", one call id, or a list of call ids.
func (o *Origin) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		if s == ModelFree {
			*o = Origin{ModelFree: true}
			return nil
		}
		if s == "" {
			return fmt.Errorf("origin is empty: want %q or model call ids", ModelFree)
		}
		*o = Origin{CallIDs: []string{s}}
		return nil
	}
	var ids []string
	if err := json.Unmarshal(data, &ids); err != nil {
		return fmt.Errorf("origin must be %q or a list of model call ids", ModelFree)
	}
	if len(ids) == 0 {
		return fmt.Errorf("origin is an empty list: want %q or model call ids", ModelFree)
	}
	*o = Origin{CallIDs: ids}
	return nil
}

// Draft is one line of drafts.jsonl.
type Draft struct {
	DraftID        string `json:"draft_id"`
	WorkID         string `json:"work_id"`
	ConversationID string `json:"conversation_id"`
	Body           string `json:"body"`
	ContentHash    string `json:"content_hash"`
	DeclaredAt     int    `json:"declared_at"`
	Origin         Origin `json:"origin"`
}

// Effect is one line of outbox.jsonl: a sent reply.
type Effect struct {
	EffectID string `json:"effect_id"`
	DraftID  string `json:"draft_id"`
	SentAt   int    `json:"sent_at"`
}

// Signal types of signals.jsonl (spec §2).
const (
	SignalAgentDeath         = "AGENT_DEATH"
	SignalOperatorEscalation = "OPERATOR_ESCALATION"
)

// SignalRecord is one line of signals.jsonl.
type SignalRecord struct {
	SignalID   string `json:"signal_id"`
	SignalType string `json:"signal_type"`
	Target     string `json:"target"`
	At         int    `json:"at"`
}

// ApprovalRecord is one line of approvals.jsonl.
type ApprovalRecord struct {
	ApprovalID  string `json:"approval_id"`
	DraftID     string `json:"draft_id"`
	ContentHash string `json:"content_hash"`
	Decision    string `json:"decision"`
	DecidedAt   int    `json:"decided_at"`
}

// Audit event types the spec requires, and their outcomes.
const (
	EventAdmission  = "admission"
	EventClaim      = "claim"
	EventResolution = "resolution"

	ClaimClaimed   = "claimed"
	ClaimWon       = "won"
	ClaimStoodDown = "stood_down"

	OutcomeCompleted = "completed"
	OutcomeAbandoned = "abandoned"

	ReasonOperatorEscalation = "operator_escalation"
)

// AuditRecord is one line of audit.jsonl. The envelope (event, at) is always
// present; the other typed fields are filled for the required event types.
// The line itself is kept, for free-form entries: Field and Fields read its
// members when asked, so a run's every line does not hold a map (D195).
type AuditRecord struct {
	Event     string `json:"event"`
	At        int    `json:"at"`
	WorkID    string `json:"work_id,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	RulesHash string `json:"rules_hash,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	Outcome   string `json:"outcome,omitempty"`
	Reason    string `json:"reason,omitempty"`
	line      []byte // storage of its own, shared by every copy of the record
}

// Field returns the member name of the record's line, free-form ones
// included: the last of that name, as a map of the line's members holds it.
// The value must not be modified.
func (r AuditRecord) Field(name string) (json.RawMessage, bool) {
	o, buf, ok := r.members()
	defer putFields(buf)
	if !ok {
		return nil, false
	}
	if o.m != nil {
		raw, ok := o.m[name]
		return raw, ok
	}
	var raw json.RawMessage
	found := false
	for _, f := range o.fields {
		if string(f.key) == name {
			raw, found = f.val, true
		}
	}
	return raw, found
}

// Fields returns every member of the record's line, in a map of its own;
// its values must not be modified. A record not read from a line has none.
func (r AuditRecord) Fields() map[string]json.RawMessage {
	o, buf, ok := r.members()
	defer putFields(buf)
	if !ok {
		return nil
	}
	if o.m != nil {
		return o.m
	}
	m := make(map[string]json.RawMessage, len(o.fields))
	for _, f := range o.fields {
		m[intern(f.key)] = f.val[:len(f.val):len(f.val)]
	}
	return m
}

// Line is the line the record was read from (nil for a record made in
// code); it must not be modified.
func (r AuditRecord) Line() []byte { return r.line }

// WithLine is r reading its members from line, one line of audit.jsonl
// without its newline, as the record ParseAudit makes of that line does:
// for a writer that laid the line out itself and knows the envelope and
// required fields it wrote, so it need not parse them back. The line must
// not be modified afterwards.
func (r AuditRecord) WithLine(line []byte) AuditRecord {
	r.line = line[:len(line):len(line)]
	return r
}

func (r AuditRecord) members() (object, *[]field, bool) {
	buf := fieldBufs.Get().(*[]field)
	if r.line == nil {
		return object{}, buf, false
	}
	o, fs, ok := decodeObject(r.line, *buf)
	*buf = fs
	return o, buf, ok
}

func putFields(buf *[]field) {
	clear((*buf)[:cap(*buf)])
	fieldBufs.Put(buf)
}

// WorkItemState is one entry of state.json's work_items.
type WorkItemState struct {
	WorkID        string  `json:"work_id"`
	Status        string  `json:"status"`
	AssignedAgent *string `json:"assigned_agent"`
}

// AgentState is one entry of state.json's agents.
type AgentState struct {
	ID    string `json:"id"`
	Alive bool   `json:"alive"`
}

// Assignment is one entry of state.json's assignments.
type Assignment struct {
	WorkID  string `json:"work_id"`
	AgentID string `json:"agent_id"`
}

// Snapshot is state.json, the snapshot the implementation maintains.
type Snapshot struct {
	WorkItems   []WorkItemState `json:"work_items"`
	Agents      []AgentState    `json:"agents"`
	Assignments []Assignment    `json:"assignments"`
}

// Holder returns the agent the snapshot says holds a work item: its
// work_items entry's assigned_agent, else its first assignments entry; ""
// when neither names one.
func (s Snapshot) Holder(workID string) string {
	for _, w := range s.WorkItems {
		if w.WorkID == workID && w.AssignedAgent != nil && *w.AssignedAgent != "" {
			return *w.AssignedAgent
		}
	}
	for _, a := range s.Assignments {
		if a.WorkID == workID && a.AgentID != "" {
			return a.AgentID
		}
	}
	return ""
}

// ModeFile is mode.json.
type ModeFile struct {
	Posture   string `json:"posture"`
	ChangedAt int    `json:"changed_at"`
}

// ClockFile is the clock file.
type ClockFile struct {
	Tick int `json:"tick"`
}

// ModelCall is one line of model-calls.jsonl, written by the stub. Only
// CallID is required of a line; the rest is what amr's stub adds, zero when
// another harness's stub leaves it out. Kind, Format, ToolCalls, Ignored and
// Rejected appear only on calls that have them, so a plain call's line is
// what it always was.
type ModelCall struct {
	CallID string `json:"call_id"`
	At     int    `json:"at"`
	Prompt string `json:"prompt"`
	Anchor string `json:"anchor"`
	Reply  string `json:"reply"`
	// Kind is the id of the bundle's reply rule that answered the call.
	Kind string `json:"kind,omitempty"`
	// Format is how the reply was shaped when it was not plain text:
	// json_object, json_schema or tool_call.
	Format    string     `json:"format,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Ignored lists the request's features the stub did not honour.
	Ignored []Ignored `json:"ignored,omitempty"`
	// Rejected is set on the line of a request the stub refused with a 4xx:
	// it was answered with an error, not a completion.
	Rejected *Rejected `json:"rejected,omitempty"`
	// Failed is set on the line of a call the bundle made fail: it was
	// answered with an error (or not at all), not a completion.
	Failed *Failed `json:"failed,omitempty"`
}

// Failed is how a call failed: the failure's kind (scenarios.Model*),
// the HTTP status it is answered with over HTTP (0 for none: a reset or a
// timeout), and a rate limit's Retry-After in seconds.
type Failed struct {
	Kind       string `json:"kind"`
	Status     int    `json:"status,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"`
}

// ToolCall is a tool call the stub answered with: the function's name and
// its arguments, a JSON text.
type ToolCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Ignored is one feature of a request the stub did not honour: the request
// field it was asked for in, and what was done instead.
type Ignored struct {
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

// Rejected is a request the stub refused: the HTTP status, the error's code
// and param as the error body gave them, its message, and the request line.
type Rejected struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Param   string `json:"param,omitempty"`
	Message string `json:"message"`
	Request string `json:"request"`
}

// Line is one parsed line of a JSONL file, with its 1-based line number.
type Line[T any] struct {
	N   int
	Rec T
}

// LineError is a line that is not a valid record: not JSON, not an object,
// or missing or mistyping a required field.
type LineError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e LineError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// object is a JSON object with typed accessors that record the first
// problem, so a parser reads like a list of required fields. Its members
// are fields, as the fast path read them (aliasing the line), or m, as
// encoding/json did.
type object struct {
	fields []field
	m      map[string]json.RawMessage
	err    *LineError
	raw    []byte // the line
	n      int    // its number in the file
	// owned says the line's bytes are the record's for good, never to be
	// modified: its strings may then be slices of them rather than copies.
	owned bool
}

// get returns a member's value.
func (o *object) get(name string) (json.RawMessage, bool) {
	if o.m != nil {
		raw, ok := o.m[name]
		return raw, ok
	}
	for _, f := range o.fields {
		if string(f.key) == name {
			return f.val, true
		}
	}
	return nil, false
}

// keep returns the members as a map with storage of its own, for a record
// that holds on to them.
func (o *object) keep() map[string]json.RawMessage {
	if o.m != nil {
		return o.m
	}
	n := 0
	for _, f := range o.fields {
		n += len(f.val)
	}
	buf := make([]byte, 0, n)
	m := make(map[string]json.RawMessage, len(o.fields))
	for _, f := range o.fields {
		start := len(buf)
		buf = append(buf, f.val...)
		m[intern(f.key)] = buf[start:len(buf):len(buf)]
	}
	return m
}

func (o *object) fail(field, msg string) {
	if o.err == nil {
		o.err = &LineError{Field: field, Msg: msg}
	}
}

func (o *object) has(field string) bool {
	_, ok := o.get(field)
	return ok
}

func (o *object) str(field string, nonEmpty bool) string {
	raw, ok := o.get(field)
	if !ok {
		o.fail(field, "required field is missing")
		return ""
	}
	s, err := o.text(raw)
	if err != nil {
		o.fail(field, "must be a string")
		return ""
	}
	if nonEmpty && s == "" {
		o.fail(field, "must not be empty")
	}
	return s
}

// text decodes a string member as DecodeString does; from an owned line,
// a string without escapes is its bytes in the line, not a copy.
func (o *object) text(raw []byte) (string, error) {
	if !o.owned {
		return DecodeString(raw)
	}
	if in, ok := plainBytes(raw); ok {
		if len(in) == 0 {
			return "", nil
		}
		return unsafe.String(unsafe.SliceData(in), len(in)), nil
	}
	return DecodeString(raw)
}

func (o *object) tick(field string) int {
	raw, ok := o.get(field)
	if !ok {
		o.fail(field, "required field is missing")
		return 0
	}
	n, ok := tickValue(raw)
	if !ok {
		o.fail(field, "must be a non-negative whole number of ticks")
	}
	return n
}

// TickValue reads a tick: a JSON number whose value is a whole number from
// 0 to 2^40. JSON has one number type (RFC 8259 §6), so 3, 3.0 and 30e-1
// are the same tick, whatever spelling a runtime's encoder chose.
func TickValue(raw json.RawMessage) (int, bool) { return tickValue(raw) }

func tickValue(raw json.RawMessage) (int, bool) {
	s := string(bytes.TrimSpace(raw))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return wholeNumber(s)
	}
	if n < 0 || n > 1<<40 {
		return 0, false
	}
	return int(n), true
}

// maxExponent bounds the exponent of a number read exactly, so a hostile
// line cannot make the reader build a huge power of ten.
const maxExponent = 64

// wholeNumber reads a JSON number spelled with a fraction or an exponent
// when its value is exactly a whole tick.
func wholeNumber(s string) (int, bool) {
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') || !json.Valid([]byte(s)) {
		return 0, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() || r.Sign() < 0 || r.Num().Cmp(big.NewInt(1<<40)) > 0 {
		return 0, false
	}
	return int(r.Num().Int64()), true
}

func (o *object) oneOf(field string, allowed ...string) string {
	s := o.str(field, true)
	if o.err != nil {
		return s
	}
	for _, a := range allowed {
		if s == a {
			return a
		}
	}
	o.fail(field, fmt.Sprintf("%q is not one of %q", s, allowed))
	return s
}

// fieldBufs holds the buffers parseLines reads one line's fields into.
var fieldBufs = sync.Pool{New: func() any { b := make([]field, 0, 16); return &b }}

// parseLines splits a JSONL file and parses each non-blank line with fn.
// A final line without a newline is still a line: the harness judges what an
// implementation wrote, not how it ended the file.
func parseLines[T any](file string, data []byte, fn func(*object) T) ([]Line[T], []LineError) {
	var (
		out  = make([]Line[T], 0, bytes.Count(data, []byte("\n"))+1)
		errs []LineError
		buf  = fieldBufs.Get().(*[]field) // one line's fields, reused
	)
	data = trimBOM(data)
	owned := isFrozen(data)
	defer func() {
		clear((*buf)[:cap(*buf)]) // hold on to no line
		fieldBufs.Put(buf)
	}()
	for n, rest := 1, data; rest != nil; n++ {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		o, fs, ok := decodeObject(raw, *buf)
		*buf = fs
		if !ok {
			errs = append(errs, LineError{File: file, Line: n, Msg: "not a JSON object"})
			continue
		}
		o.raw, o.n, o.owned = raw, n, owned
		rec := fn(&o)
		if o.err != nil {
			o.err.File, o.err.Line = file, n
			errs = append(errs, *o.err)
			continue
		}
		out = append(out, Line[T]{N: n, Rec: rec})
	}
	if len(out) == 0 {
		out = nil
	}
	return out, errs
}

// utf8BOM is the byte order mark some runtimes write at the start of a
// UTF-8 file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// trimBOM drops a byte order mark at the start of a file: RFC 8259 §8.1
// lets a parser ignore it, and a runtime that writes one states the same
// records. Anywhere else it is part of a line.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// TrimBOM is trimBOM for the readers of the sandbox's single-record files
// (mode.json, clock).
func TrimBOM(data []byte) []byte { return trimBOM(data) }

// ParseInbox parses inbox.jsonl.
func ParseInbox(data []byte) ([]Line[Message], []LineError) {
	return parseLines(Inbox, data, func(o *object) Message {
		return Message{ID: o.str("id", true), ConversationID: o.str("conversation_id", true), From: o.str("from", true),
			Subject: o.str("subject", false), Body: o.str("body", false), At: o.tick("at")}
	})
}

// ParseDrafts parses drafts.jsonl.
func ParseDrafts(data []byte) ([]Line[Draft], []LineError) {
	return parseLines(Drafts, data, func(o *object) Draft {
		d := Draft{DraftID: o.str("draft_id", true), WorkID: o.str("work_id", true),
			ConversationID: o.str("conversation_id", true), Body: o.str("body", false),
			ContentHash: o.str("content_hash", true), DeclaredAt: o.tick("declared_at")}
		raw, ok := o.get("origin")
		if !ok {
			o.fail("origin", "required field is missing")
		} else if err := decodeOrigin(raw, &d.Origin); err != nil {
			o.fail("origin", err.Error())
		}
		return d
	})
}

// ParseOutbox parses outbox.jsonl.
func ParseOutbox(data []byte) ([]Line[Effect], []LineError) {
	return parseLines(Outbox, data, func(o *object) Effect {
		return Effect{EffectID: o.str("effect_id", true), DraftID: o.str("draft_id", true), SentAt: o.tick("sent_at")}
	})
}

// ParseSignals parses signals.jsonl.
func ParseSignals(data []byte) ([]Line[SignalRecord], []LineError) {
	return parseLines(Signals, data, func(o *object) SignalRecord {
		return SignalRecord{SignalID: o.str("signal_id", true), SignalType: o.str("signal_type", true),
			Target: o.str("target", true), At: o.tick("at")}
	})
}

// ParseApprovals parses approvals.jsonl.
func ParseApprovals(data []byte) ([]Line[ApprovalRecord], []LineError) {
	return parseLines(Approvals, data, func(o *object) ApprovalRecord {
		return ApprovalRecord{ApprovalID: o.str("approval_id", true), DraftID: o.str("draft_id", true),
			ContentHash: o.str("content_hash", true), Decision: o.str("decision", true), DecidedAt: o.tick("decided_at")}
	})
}

// ParseAudit parses audit.jsonl. Every line needs the envelope; admission,
// claim and resolution lines need their required fields. Other event types
// are free-form.
func ParseAudit(data []byte) ([]Line[AuditRecord], []LineError) {
	// One copy for all the lines: the records keep their lines, and the
	// caller may reuse its buffer, unless it never will (Freeze).
	if !isFrozen(data) {
		data = append([]byte(nil), data...)
	}
	return parseLines(Audit, data, func(o *object) AuditRecord {
		o.owned = true
		r := AuditRecord{Event: o.str("event", true), At: o.tick("at"), line: o.raw[:len(o.raw):len(o.raw)]}
		switch r.Event {
		case EventAdmission:
			r.WorkID, r.MessageID, r.RulesHash = o.str("work_id", true), o.str("message_id", true), o.str("rules_hash", true)
		case EventClaim:
			r.WorkID, r.AgentID = o.str("work_id", true), o.str("agent_id", true)
			r.Outcome = o.oneOf("outcome", ClaimClaimed, ClaimWon, ClaimStoodDown)
			r.Reason = o.optionalReason()
		case EventResolution:
			r.WorkID = o.str("work_id", true)
			r.Outcome = o.oneOf("outcome", OutcomeCompleted, OutcomeAbandoned)
			r.Reason = o.optionalReason()
		}
		return r
	})
}

// optionalReason reads reason, which the spec lists as a field of claims and
// resolutions: it must be present (a string, or null for none).
func (o *object) optionalReason() string {
	raw, ok := o.get("reason")
	if !ok {
		o.fail("reason", "required field is missing")
		return ""
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		return ""
	}
	s, err := o.text(raw)
	if err != nil {
		o.fail("reason", "must be a string or null")
	}
	return s
}

// ParseModelCalls parses model-calls.jsonl, the stub's log. The spec asks
// one thing of a line: the id of the call, which drafts cite in their
// origin. It is read from call_id, or from id on a line without call_id.
// The other fields are amr's stub's own: read when present and well typed,
// left empty otherwise. A line errs only when it is not a JSON object or
// has no usable call id.
func ParseModelCalls(data []byte) ([]Line[ModelCall], []LineError) {
	return parseLines(ModelCalls, data, func(o *object) ModelCall {
		c := ModelCall{CallID: o.callID(), Prompt: o.optionalStr("prompt"), Anchor: o.optionalStr("anchor"),
			Reply: o.optionalStr("reply"), Kind: o.optionalStr("kind"), Format: o.optionalStr("format")}
		if raw, ok := o.get("at"); ok {
			c.At, _ = tickValue(raw)
		}
		c.readExtras(o)
		return c
	})
}

// callID reads a stub call's id: call_id, as amr's stub writes it, or id.
func (o *object) callID() string {
	field := "call_id"
	if !o.has(field) && o.has("id") {
		field = "id"
	}
	if !o.has(field) {
		o.fail("call_id", "required field is missing (the call's id, as call_id or id)")
		return ""
	}
	return o.str(field, true)
}

// optionalStr reads a string field that may be missing; a value of another
// type reads as "".
func (o *object) optionalStr(field string) string {
	raw, ok := o.get(field)
	if !ok {
		return ""
	}
	s, err := o.text(raw)
	if err != nil {
		return ""
	}
	return s
}

// ParseState parses state.json: an object with the three lists of the spec's
// minimal schema, each entry with its required fields.
func ParseState(data []byte) (Snapshot, *LineError) {
	fail := func(field, msg string) (Snapshot, *LineError) {
		return Snapshot{}, &LineError{File: State, Line: 1, Field: field, Msg: msg}
	}
	top, _, ok := decodeObject(trimBOM(data), nil)
	if !ok {
		return fail("", "not a JSON object")
	}
	var s Snapshot
	for _, key := range []string{"work_items", "agents", "assignments"} {
		raw, ok := top.get(key)
		if !ok {
			return fail(key, "required field is missing")
		}
		items, err := decodeObjects(raw)
		if err != nil {
			return fail(key, "must be a list of objects")
		}
		for i := range items {
			o := &items[i]
			s = appendStateEntry(s, key, o)
			if o.err != nil {
				return fail(fmt.Sprintf("%s[%d].%s", key, i, o.err.Field), o.err.Msg)
			}
		}
	}
	return s, nil
}

// appendStateEntry reads one entry of a state.json list into its place in s;
// a problem with it is left on o.
func appendStateEntry(s Snapshot, key string, o *object) Snapshot {
	switch key {
	case "work_items":
		w := WorkItemState{WorkID: o.str("work_id", true), Status: o.str("status", true)}
		// The schema lists assigned_agent on every work item: null says
		// no agent holds it, a missing field says nothing at all.
		raw, ok := o.get("assigned_agent")
		switch {
		case !ok:
			o.fail("assigned_agent", "required field is missing (null when no agent holds the item)")
		case string(bytes.TrimSpace(raw)) != "null":
			a := o.str("assigned_agent", false)
			w.AssignedAgent = &a
		}
		s.WorkItems = append(s.WorkItems, w)
	case "agents":
		a := AgentState{ID: o.str("id", true)}
		if raw, ok := o.get("alive"); !ok || decodeBool(raw, &a.Alive) != nil {
			o.fail("alive", "required boolean is missing or not a boolean")
		}
		s.Agents = append(s.Agents, a)
	case "assignments":
		s.Assignments = append(s.Assignments, Assignment{WorkID: o.str("work_id", true), AgentID: o.str("agent_id", true)})
	}
	return s
}
