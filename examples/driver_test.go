package examples

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/require"
)

// This file is a small stand-in for the engine: a clock, harness events
// written straight into the sandbox, steps until a step writes nothing to
// the logs, and crashes after the k-th write of the implementation.

// anchors are the test model's anchors, in the order the stub uses them.
var anchors = []string{"ORD-1", "ORD-2", "ORD-3"}

// fakeModel answers like the stub: it echoes the first anchor (in anchors
// order) that the prompt carries.
type fakeModel struct {
	calls   int
	prompts []string
	fail    map[int]string // call number -> the kind it fails with, as a failing endpoint's (D74)
}

func (m *fakeModel) Complete(prompt string) (sandbox.Completion, error) {
	m.calls++
	m.prompts = append(m.prompts, prompt)
	id := fmt.Sprintf("call-%d", m.calls)
	if kind, ok := m.fail[m.calls]; ok {
		return sandbox.Completion{}, &sandbox.ModelError{CallID: id, Kind: kind}
	}
	for _, a := range anchors {
		if strings.Contains(prompt, a) {
			return sandbox.Completion{CallID: id, Text: "About order " + a + ": it ships tomorrow."}, nil
		}
	}
	return sandbox.Completion{CallID: id, Text: "Could you tell us your order number?"}, nil
}

// crashStore counts the implementation's writes and fails every write after
// the armed one, as a crash does.
type crashStore struct {
	mem     *sandbox.Memory
	trace   *[]string // every write in order, harness and implementation
	taken   *[]string // outbox lines the implementation took back
	armed   int
	n       int
	crashed bool
}

func (c *crashStore) Read(name string) ([]byte, error) { return c.mem.Read(name) }
func (c *crashStore) Names() []string                  { return c.mem.Names() }

func (c *crashStore) Append(name string, line []byte) error {
	if err := c.allow(name); err != nil {
		return err
	}
	if err := c.mem.Append(name, line); err != nil {
		return err
	}
	c.count("impl:" + name)
	return nil
}

func (c *crashStore) Write(name string, data []byte) error {
	if err := c.allow(name); err != nil {
		return err
	}
	old := c.mem.View(name)
	if err := c.mem.Write(name, data); err != nil {
		return err
	}
	if name == sandbox.Outbox && !bytes.HasPrefix(data, old) {
		for _, l := range bytes.SplitAfter(old, []byte("\n")) {
			if len(l) > 0 && !bytes.Contains(data, l) {
				*c.taken = append(*c.taken, string(l))
			}
		}
	}
	c.count("impl:" + name)
	return nil
}

func (c *crashStore) allow(name string) error {
	if c.crashed {
		return sandbox.ErrCrashed
	}
	if sandbox.IsHarnessFile(name) {
		return sandbox.ErrReadOnly
	}
	return nil
}

func (c *crashStore) count(what string) {
	*c.trace = append(*c.trace, what)
	c.n++
	if c.armed > 0 && c.n >= c.armed {
		c.crashed = true
	}
}

// tb is what the driver needs from a test: *testing.T or *rapid.T.
type tb interface {
	require.TestingT
	Helper()
	Fatalf(format string, args ...any)
}

// harness drives one implementation through a hand-written timeline.
type harness struct {
	t        tb
	mem      *sandbox.Memory
	model    *fakeModel
	factory  sandbox.Factory
	impl     sandbox.Implementation
	seed     uint64
	tick     int
	trace    []string
	taken    []string // outbox lines the implementation took back
	crashes  int
	maxSteps int
	forced   int
	errs     []error
	stayDown bool              // a crash ends the tick: the fresh instance starts at the next one
	fired    map[string][]byte // approval id -> line, for redelivery
	// torn are the lines a torn crash left, by file and line, with the
	// bytes it left (D75): the harness's, not bad records of the
	// implementation's.
	torn map[string]map[int]string
}

// notTorn drops the parse errors of lines a torn crash left.
func (h *harness) notTorn(file string, errs []sandbox.LineError) []sandbox.LineError {
	var out []sandbox.LineError
	for _, e := range errs {
		if _, torn := h.torn[file][e.Line]; !torn {
			out = append(out, e)
		}
	}
	return out
}

func newHarness(t tb, f sandbox.Factory, fleet []string, rules []scenarios.Rule) *harness {
	t.Helper()
	h := &harness{t: t, mem: sandbox.NewMemory(), model: &fakeModel{}, factory: f, seed: 7,
		maxSteps: 64, fired: map[string][]byte{}}
	fleetJSON, err := json.Marshal(map[string][]string{"agents": fleet})
	require.NoError(t, err)
	h.put(sandbox.Fleet, append(fleetJSON, '\n'))
	h.put(sandbox.Rules, scenarios.RulesBytes(rules))
	h.setPosture("normal")
	for _, name := range []string{sandbox.Inbox, sandbox.Approvals, sandbox.Signals} {
		h.put(name, nil)
	}
	h.impl = f()
	return h
}

// supportRules admits every message whose subject mentions an order.
func supportRules() []scenarios.Rule {
	s := "order"
	return []scenarios.Rule{{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: &s}}}
}

func (h *harness) put(name string, data []byte) {
	require.NoError(h.t, h.mem.Write(name, data))
}

func (h *harness) appendLine(name string, v any) []byte {
	line, err := sandbox.MarshalLine(v)
	require.NoError(h.t, err)
	require.NoError(h.t, h.mem.Append(name, line))
	h.trace = append(h.trace, "harness:"+name)
	return line
}

func (h *harness) setPosture(p string) {
	line, err := sandbox.MarshalLine(sandbox.ModeFile{Posture: p, ChangedAt: h.tick})
	require.NoError(h.t, err)
	h.put(sandbox.Mode, append(line, '\n'))
}

func (h *harness) setRules(rules []scenarios.Rule) { h.put(sandbox.Rules, scenarios.RulesBytes(rules)) }

// at moves the clock to tick, fires the events, and steps until quiet.
func (h *harness) at(tick int, events ...func(*harness)) *harness {
	return h.atCrash(tick, 0, events...)
}

// atCrash is at with a crash landing right after the implementation's k-th
// write of the tick (k > 0), or at the tick boundary (k < 0).
func (h *harness) atCrash(tick, k int, events ...func(*harness)) *harness {
	h.t.Helper()
	require.GreaterOrEqual(h.t, tick, h.tick)
	h.tick = tick
	line, err := sandbox.MarshalLine(sandbox.ClockFile{Tick: tick})
	require.NoError(h.t, err)
	h.put(sandbox.Clock, append(line, '\n'))
	if k < 0 {
		h.restart()
	}
	for _, e := range events {
		e(h)
	}
	h.settle(k)
	return h
}

// atCrashStop is atCrash where the crashed instance stays down until the
// next tick, as a process that takes time to restart would.
func (h *harness) atCrashStop(tick, k int, events ...func(*harness)) *harness {
	h.stayDown = true
	defer func() { h.stayDown = false }()
	return h.atCrash(tick, k, events...)
}

// idle visits every tick up to tick with nothing firing.
func (h *harness) idle(tick int) *harness {
	for h.tick < tick {
		h.at(h.tick + 1)
	}
	return h
}

func (h *harness) restart() {
	h.crashes++
	h.impl = h.factory()
}

func (h *harness) settle(crashAfter int) {
	store := &crashStore{mem: h.mem, trace: &h.trace, taken: &h.taken, armed: max(crashAfter, 0)}
	env := &sandbox.Env{Files: store, Model: h.model, Seed: h.seed}
	for steps := 0; ; steps++ {
		if steps >= h.maxSteps {
			h.forced++
			return
		}
		before := h.logLines()
		err := h.impl.Step(env)
		if store.crashed {
			h.restart()
			if h.stayDown {
				return
			}
			store = &crashStore{mem: h.mem, trace: &h.trace, taken: &h.taken}
			env.Files = store
			continue
		}
		if err != nil {
			h.errs = append(h.errs, fmt.Errorf("tick %d: %w", h.tick, err))
		}
		if h.logLines() == before {
			return
		}
	}
}

func (h *harness) logLines() int {
	n := 0
	for _, name := range sandbox.ImplLogs {
		n += bytes.Count(h.mem.View(name), []byte("\n"))
	}
	return n
}

// Harness events.

func deliver(id, conv, from, subject, body string) func(*harness) {
	return func(h *harness) {
		h.appendLine(sandbox.Inbox, sandbox.Message{ID: id, ConversationID: conv, From: from,
			Subject: subject, Body: body, At: h.tick})
	}
}

// order delivers a message whose subject mentions an order.
func order(id, conv, from, anchor string) func(*harness) {
	return deliver(id, conv, from, "Order "+anchor, "Where is order "+anchor+"?")
}

func duplicate(id string) func(*harness) {
	return func(h *harness) {
		for _, l := range bytes.Split(h.mem.View(sandbox.Inbox), []byte("\n")) {
			var m sandbox.Message
			if json.Unmarshal(l, &m) == nil && m.ID == id {
				require.NoError(h.t, h.mem.Append(sandbox.Inbox, l))
				h.trace = append(h.trace, "harness:"+sandbox.Inbox)
				return
			}
		}
		h.t.Fatalf("duplicate of undelivered message %s", id)
	}
}

// approve binds the latest draft of the work item admitted for the message,
// as the engine does at fire time.
func approve(id, messageID, decision string) func(*harness) {
	return func(h *harness) {
		d, ok := h.latestDraft(messageID)
		require.True(h.t, ok, "no draft to approve for %s", messageID)
		h.fired[id] = h.appendLine(sandbox.Approvals, sandbox.ApprovalRecord{ApprovalID: id, DraftID: d.DraftID,
			ContentHash: d.ContentHash, Decision: decision, DecidedAt: h.tick})
	}
}

// forge appends an approval that binds no declared draft: a made-up draft id
// carrying the real hash, or the real draft id with a wrong hash.
func forge(id, messageID string, dangling bool) func(*harness) {
	return func(h *harness) {
		d, ok := h.latestDraft(messageID)
		require.True(h.t, ok)
		rec := sandbox.ApprovalRecord{ApprovalID: id, DraftID: d.DraftID, ContentHash: d.ContentHash,
			Decision: "approve", DecidedAt: h.tick}
		if dangling {
			rec.DraftID = "draft-forged-" + id
		} else {
			sum := sha256.Sum256([]byte("forged " + id))
			rec.ContentHash = "sha256:" + hex.EncodeToString(sum[:])
		}
		h.appendLine(sandbox.Approvals, rec)
	}
}

func redeliver(id string) func(*harness) {
	return func(h *harness) {
		line, ok := h.fired[id]
		require.True(h.t, ok)
		require.NoError(h.t, h.mem.Append(sandbox.Approvals, line))
		h.trace = append(h.trace, "harness:"+sandbox.Approvals)
	}
}

func escalate(id, messageID string) func(*harness) {
	return func(h *harness) {
		work := h.workFor(messageID)
		require.NotEmpty(h.t, work, "escalation of unadmitted %s", messageID)
		h.appendLine(sandbox.Signals, sandbox.SignalRecord{SignalID: id, SignalType: "OPERATOR_ESCALATION",
			Target: work, At: h.tick})
	}
}

// killOwner kills the agent state.json assigns to the message's work item.
func killOwner(id, messageID string) func(*harness) {
	return func(h *harness) {
		agent := h.assigned(h.workFor(messageID))
		require.NotEmpty(h.t, agent, "no agent assigned for %s", messageID)
		kill(id, agent)(h)
	}
}

func kill(id, agent string) func(*harness) {
	return func(h *harness) {
		h.appendLine(sandbox.Signals, sandbox.SignalRecord{SignalID: id, SignalType: "AGENT_DEATH",
			Target: agent, At: h.tick})
	}
}

func posture(p string) func(*harness) { return func(h *harness) { h.setPosture(p) } }

// Reading the artifacts.

func (h *harness) audit() []sandbox.AuditRecord {
	lines, errs := sandbox.ParseAudit(h.mem.View(sandbox.Audit))
	require.Empty(h.t, h.notTorn(sandbox.Audit, errs))
	return recs(lines)
}

func (h *harness) drafts() []sandbox.Draft {
	lines, errs := sandbox.ParseDrafts(h.mem.View(sandbox.Drafts))
	require.Empty(h.t, h.notTorn(sandbox.Drafts, errs))
	return recs(lines)
}

func (h *harness) outbox() []sandbox.Effect {
	lines, errs := sandbox.ParseOutbox(h.mem.View(sandbox.Outbox))
	require.Empty(h.t, h.notTorn(sandbox.Outbox, errs))
	return recs(lines)
}

func (h *harness) state() sandbox.Snapshot {
	s, err := sandbox.ParseState(h.mem.View(sandbox.State))
	require.Nil(h.t, err)
	return s
}

func recs[T any](lines []sandbox.Line[T]) []T {
	out := make([]T, len(lines))
	for i, l := range lines {
		out[i] = l.Rec
	}
	return out
}

func (h *harness) workFor(messageID string) string {
	for _, r := range h.audit() {
		if r.Event == sandbox.EventAdmission && r.MessageID == messageID {
			return r.WorkID
		}
	}
	return ""
}

func (h *harness) latestDraft(messageID string) (sandbox.Draft, bool) {
	work := h.workFor(messageID)
	ds := h.drafts()
	for i := len(ds) - 1; i >= 0; i-- {
		if ds[i].WorkID == work {
			return ds[i], true
		}
	}
	return sandbox.Draft{}, false
}

// assigned reads the agent state.json assigns to a work item, as the engine
// does to bind an AGENT_DEATH; "" when there is none (yet).
func (h *harness) assigned(work string) string {
	st, err := sandbox.ParseState(h.mem.View(sandbox.State))
	if err != nil {
		return ""
	}
	for _, w := range st.WorkItems {
		if w.WorkID == work && w.AssignedAgent != nil {
			return *w.AssignedAgent
		}
	}
	return ""
}

// events returns the audit records of one event type for a work item.
func (h *harness) events(event, work string) []sandbox.AuditRecord {
	var out []sandbox.AuditRecord
	for _, r := range h.audit() {
		if r.Event == event && (r.WorkID == work || auditField(r, "work_id") == work) {
			out = append(out, r)
		}
	}
	return out
}

// sends counts the outbox lines whose draft belongs to the work item.
func (h *harness) sends(work string) int {
	owner := map[string]string{}
	for _, d := range h.drafts() {
		owner[d.DraftID] = d.WorkID
	}
	n := 0
	for _, e := range h.outbox() {
		if owner[e.DraftID] == work || owner[strings.TrimPrefix(e.EffectID, "e-")] == work {
			n++
		}
	}
	return n
}

// files is every sandbox file, for comparing runs byte for byte.
func (h *harness) files() map[string]string {
	out := map[string]string{}
	for _, name := range h.mem.Names() {
		out[name] = string(h.mem.View(name))
	}
	return out
}

// glued reports whether the implementation wrote on right after a torn
// half line, so the line holds the torn bytes and more: a record lost.
func (h *harness) glued() bool {
	for file, lines := range h.torn {
		all := strings.Split(string(h.mem.View(file)), "\n")
		for n, text := range lines {
			if n <= len(all) && len(all[n-1]) > len(text) && strings.HasPrefix(all[n-1], text) {
				return true
			}
		}
	}
	return false
}
