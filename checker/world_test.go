package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// world builds a bundle, a sandbox and the run log that the engine would
// have written for it, by hand, one line at a time. Calls are made in time
// order; every implementation write is recorded with the tick it happens at
// so the run log can be rebuilt from them.
type world struct {
	t       testing.TB
	b       *scenarios.Bundle
	files   map[string][]byte
	writes  []implWrite
	harness []sandbox.LogRecord
	forced  map[int]bool
	calls   int
	unfired []sandbox.LogRecord // records the engine writes after the last tick
}

type implWrite struct {
	tick  int
	file  string
	state []byte // content for a state.json rewrite
}

const (
	anchor1 = "ORD-1001"
	anchor2 = "ORD-2002"
	agent1  = "agent-1"
	agent2  = "agent-2"
)

func str(s string) *string { return &s }

// newWorld starts a scenario: a fleet of two, rules admitting subjects with
// "order", and the stub's anchors.
func newWorld(t testing.TB, top, horizon int) *world {
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta:   scenarios.Meta{Name: "l-test", Version: 1, TopLevel: top, Horizon: horizon},
		Fleet:  []string{agent1, agent2},
		Mode:   scenarios.Mode{Posture: "normal"},
		Rules:  []scenarios.Rule{{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}}},
		Model:  scenarios.Model{Anchors: []string{anchor1, anchor2}, Reply: "About {{anchor}}.", ReplyNoAnchor: "Which order?"},
	}
	b.Normalize()
	return &world{t: t, b: b, files: map[string][]byte{}, forced: map[int]bool{}}
}

func (w *world) appendLine(file string, line []byte) {
	w.files[file] = append(append(w.files[file], line...), '\n')
}

func (w *world) lineCount(file string) int {
	n := 0
	for _, c := range w.files[file] {
		if c == '\n' {
			n++
		}
	}
	return n
}

func mustLine(t testing.TB, v any) []byte {
	line, err := sandbox.MarshalLine(v)
	require.NoError(t, err)
	return line
}

// impl appends an implementation line at tick.
func (w *world) impl(file string, tick int, line []byte) {
	for _, x := range w.writes {
		require.LessOrEqual(w.t, x.tick, tick, "writes must be made in time order")
	}
	w.appendLine(file, line)
	w.writes = append(w.writes, implWrite{tick: tick, file: file})
}

// hline appends a harness line at tick and logs it with what it says, as
// the engine does.
func (w *world) hline(file string, tick int, kind, id string, v any) {
	w.appendLine(file, mustLine(w.t, v))
	r := sandbox.LogRecord{Kind: kind, Tick: tick, ID: id, Line: w.lineCount(file)}
	switch rec := v.(type) {
	case sandbox.ApprovalRecord:
		r.DraftID, r.ContentHash, r.Decision = rec.DraftID, rec.ContentHash, rec.Decision
	case sandbox.SignalRecord:
		r.SignalType, r.Target = rec.SignalType, rec.Target
	}
	w.harness = append(w.harness, r)
}

func (w *world) visible(at int) int {
	v, ok := newTimeline(w.b).visible(at)
	require.True(w.t, ok)
	return v
}

// deliver schedules a message and writes its inbox line at its visible tick.
func (w *world) deliver(id, conv, from, subject, body string, at int) {
	d := scenarios.Delivery{ID: id, ConversationID: conv, From: from, Subject: subject, Body: body, At: at}
	w.b.Inbox = append(w.b.Inbox, d)
	w.hline(sandbox.Inbox, w.visible(at), sandbox.LogDeliver, id, sandbox.Message(d))
}

// duplicate writes a message's inbox line again.
func (w *world) duplicate(id string, tick int) {
	d, ok := w.b.Message(id)
	require.True(w.t, ok)
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: tick, Kind: scenarios.FaultDuplicate, MessageID: id})
	w.hline(sandbox.Inbox, tick, sandbox.LogDuplicate, id, sandbox.Message(d))
}

// schedule adds an approval to the bundle's schedule without firing it.
func (w *world) schedule(id, msg string, at int, decision, forge string) {
	w.b.Approvals = append(w.b.Approvals, scenarios.Approval{ID: id, At: at,
		Match: scenarios.Match{MessageID: msg}, Decision: decision, Forge: forge})
}

// fire writes an approval line.
func (w *world) fire(id, draftID, hash, decision string, tick int) {
	w.hline(sandbox.Approvals, tick, sandbox.LogApprove, id, sandbox.ApprovalRecord{ApprovalID: id, DraftID: draftID,
		ContentHash: hash, Decision: decision, DecidedAt: tick})
}

// redeliver schedules a redelivery of an approval fired at firstTick and
// appends the harness's exact copy of its line at tick.
func (w *world) redeliver(id, draftID, hash, decision string, firstTick, tick int) {
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: tick, Kind: scenarios.FaultRedeliver, ApprovalID: id})
	w.hline(sandbox.Approvals, tick, sandbox.LogRedeliver, id, sandbox.ApprovalRecord{ApprovalID: id, DraftID: draftID,
		ContentHash: hash, Decision: decision, DecidedAt: firstTick})
}

// approve schedules and fires a valid approval of a draft at tick.
func (w *world) approve(id, msg, draftID string, tick int) {
	w.schedule(id, msg, tick, scenarios.DecisionApprove, "")
	w.fire(id, draftID, hashOf(w.body(draftID)), scenarios.DecisionApprove, tick)
}

// escalate schedules an escalation of a message and fires it at tick,
// naming work.
func (w *world) escalate(id, msg, work string, tick int) {
	w.b.Signals = append(w.b.Signals, scenarios.Signal{ID: id, At: tick, Type: scenarios.OperatorEscalation,
		Target: scenarios.Match{MessageID: msg}})
	if work != "" {
		w.hline(sandbox.Signals, tick, sandbox.LogSignal, id, sandbox.SignalRecord{SignalID: id,
			SignalType: scenarios.OperatorEscalation, Target: work, At: tick})
	}
}

// kill schedules and fires an AGENT_DEATH.
func (w *world) kill(id, agent string, tick int) {
	w.b.Signals = append(w.b.Signals, scenarios.Signal{ID: id, At: tick, Type: scenarios.AgentDeath,
		Target: scenarios.Match{AgentID: agent}})
	w.hline(sandbox.Signals, tick, sandbox.LogSignal, id, sandbox.SignalRecord{SignalID: id,
		SignalType: scenarios.AgentDeath, Target: agent, At: tick})
}

// crash schedules a crash and logs it.
func (w *world) crash(tick, afterWrites int) {
	w.b.Faults = append(w.b.Faults, scenarios.Fault{At: tick, Kind: scenarios.FaultCrash, AfterWrites: afterWrites})
	w.harness = append(w.harness, sandbox.LogRecord{Kind: sandbox.LogCrash, Tick: tick, AfterWrites: afterWrites},
		sandbox.LogRecord{Kind: sandbox.LogRestart, Tick: tick})
}

func hashOf(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (w *world) rulesHash() string {
	return scenarios.RulesHash(scenarios.RulesBytes(w.b.Rules))
}

func (w *world) admit(work, msg string, tick int) {
	w.admitHash(work, msg, w.rulesHash(), tick)
}

func (w *world) admitHash(work, msg, hash string, tick int) {
	w.impl(sandbox.Audit, tick, mustLine(w.t, map[string]any{"event": "admission", "at": tick,
		"work_id": work, "message_id": msg, "rules_hash": hash}))
}

func (w *world) claim(work, agent, outcome string, tick int) {
	w.impl(sandbox.Audit, tick, mustLine(w.t, map[string]any{"event": "claim", "at": tick,
		"work_id": work, "agent_id": agent, "outcome": outcome, "reason": nil}))
}

func (w *world) resolve(work, outcome, reason string, tick int) {
	w.impl(sandbox.Audit, tick, mustLine(w.t, map[string]any{"event": "resolution", "at": tick,
		"work_id": work, "outcome": outcome, "reason": reason}))
}

// auditAt writes a free-form audit record.
func (w *world) auditAt(tick int, fields map[string]any) {
	fields["at"] = tick
	w.impl(sandbox.Audit, tick, mustLine(w.t, fields))
}

// draft declares a draft made by one stub call, which is logged too.
func (w *world) draft(id, work, conv, body string, tick int) {
	w.calls++
	call := fmt.Sprintf("call-%d", w.calls)
	w.appendLine(sandbox.ModelCalls, mustLine(w.t, sandbox.ModelCall{CallID: call, At: tick, Prompt: "p", Reply: body}))
	w.impl(sandbox.Drafts, tick, mustLine(w.t, sandbox.Draft{DraftID: id, WorkID: work, ConversationID: conv, Body: body,
		ContentHash: hashOf(body), DeclaredAt: tick, Origin: sandbox.Origin{CallIDs: []string{call}}}))
}

// body returns the body of the first declaration of a draft.
func (w *world) body(draftID string) string {
	lines, _ := sandbox.ParseDrafts(w.files[sandbox.Drafts])
	for _, l := range lines {
		if l.Rec.DraftID == draftID {
			return l.Rec.Body
		}
	}
	return ""
}

func (w *world) send(effectID, draftID string, tick int) {
	w.sendAt(effectID, draftID, tick, tick)
}

// sendAt writes an outbox line at tick whose own sent_at says own.
func (w *world) sendAt(effectID, draftID string, tick, own int) {
	w.impl(sandbox.Outbox, tick, mustLine(w.t, sandbox.Effect{EffectID: effectID, DraftID: draftID, SentAt: own}))
}

// raw writes an arbitrary implementation line.
func (w *world) raw(file string, tick int, line string) { w.impl(file, tick, []byte(line)) }

// item is one work item of a state snapshot.
type item struct{ work, status, agent string }

// state rewrites state.json at tick: the items (each assigned as listed),
// and the agents with the dead ones marked.
func (w *world) state(tick int, items []item, dead ...string) {
	s := sandbox.Snapshot{WorkItems: []sandbox.WorkItemState{}, Agents: []sandbox.AgentState{}, Assignments: []sandbox.Assignment{}}
	for _, it := range items {
		wi := sandbox.WorkItemState{WorkID: it.work, Status: it.status}
		if it.agent != "" {
			wi.AssignedAgent = str(it.agent)
			s.Assignments = append(s.Assignments, sandbox.Assignment{WorkID: it.work, AgentID: it.agent})
		}
		s.WorkItems = append(s.WorkItems, wi)
	}
	for _, a := range w.b.Fleet {
		alive := true
		for _, d := range dead {
			alive = alive && d != a
		}
		s.Agents = append(s.Agents, sandbox.AgentState{ID: a, Alive: alive})
	}
	data, err := json.Marshal(s)
	require.NoError(w.t, err)
	w.rawState(tick, data)
}

// rawState rewrites state.json with arbitrary bytes.
func (w *world) rawState(tick int, data []byte) {
	for _, x := range w.writes {
		require.LessOrEqual(w.t, x.tick, tick, "writes must be made in time order")
	}
	w.files[sandbox.State] = append([]byte(nil), data...)
	w.writes = append(w.writes, implWrite{tick: tick, file: sandbox.State, state: append([]byte(nil), data...)})
}

// input returns what the checker judges, with or without the run log.
func (w *world) input(withLog bool) Input {
	files := map[string][]byte{}
	for k, v := range w.files {
		files[k] = append([]byte(nil), v...)
	}
	for name, data := range w.fixtureFiles() {
		if _, ok := files[name]; !ok {
			files[name] = data
		}
	}
	in := Input{Bundle: w.b.Clone(), Files: files}
	if withLog {
		in.Log = w.runLog()
	}
	return in
}

// fixtureFiles are mode.json, the clock and rules.json as the harness
// leaves them at the end of the run: the last posture and rules in force,
// the last visited tick.
func (w *world) fixtureFiles() map[string][]byte {
	tl := newTimeline(w.b)
	mode := sandbox.ModeFile{Posture: w.b.Mode.Posture, ChangedAt: w.b.Mode.ChangedAt}
	rules := w.b.RulesFile()
	for _, f := range w.changes() {
		v, _ := tl.visible(f.At)
		if f.Kind == scenarios.FaultPosture {
			mode = sandbox.ModeFile{Posture: f.Posture, ChangedAt: v}
		} else {
			rules = f.RulesFile()
		}
	}
	// Called inside fuzz targets too, where w.t must not be used.
	modeLine, _ := sandbox.MarshalLine(mode)
	clockLine, _ := sandbox.MarshalLine(sandbox.ClockFile{Tick: tl.last()})
	return map[string][]byte{
		sandbox.Mode:  append(modeLine, '\n'),
		sandbox.Clock: append(clockLine, '\n'),
		sandbox.Rules: rules,
	}
}

// changes are the bundle's posture and rules changes due within the
// horizon, in the order they land.
func (w *world) changes() []scenarios.Fault {
	tl := newTimeline(w.b)
	var out []scenarios.Fault
	for _, f := range w.b.Faults {
		if _, ok := tl.visible(f.At); ok && (f.Kind == scenarios.FaultPosture || f.Kind == scenarios.FaultRules) {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := tl.visible(out[i].At)
		b, _ := tl.visible(out[j].At)
		return a < b
	})
	return out
}

// runLog rebuilds the engine's run log: harness records and crashes at
// their ticks, then one tick_end per visited tick with the implementation's
// writes, line counts and state.
func (w *world) runLog() []sandbox.LogRecord {
	log := []sandbox.LogRecord{{Kind: sandbox.LogStart}}
	var harness []sandbox.LogRecord
	for _, f := range w.changes() {
		v, _ := newTimeline(w.b).visible(f.At)
		if f.Kind == scenarios.FaultPosture {
			harness = append(harness, sandbox.LogRecord{Kind: sandbox.LogPosture, Tick: v, Posture: f.Posture})
		} else {
			harness = append(harness, sandbox.LogRecord{Kind: sandbox.LogRules, Tick: v,
				RulesHash: scenarios.RulesHash(scenarios.RulesBytes(f.Rules))})
		}
	}
	harness = append(harness, w.harness...)
	sort.SliceStable(harness, func(i, j int) bool { return harness[i].Tick < harness[j].Tick })
	counts := map[string]int{}
	var lastState []byte
	h := 0
	for _, t := range newTimeline(w.b) {
		for h < len(harness) && harness[h].Tick <= t {
			log = append(log, harness[h])
			h++
		}
		end := sandbox.LogRecord{Kind: sandbox.LogTickEnd, Tick: t, Lines: map[string]int{}, Forced: w.forced[t]}
		for _, x := range w.writes {
			if x.tick != t {
				continue
			}
			end.Writes = append(end.Writes, x.file)
			if x.file == sandbox.State {
				lastState = x.state
				continue
			}
			counts[x.file]++
		}
		for _, name := range sandbox.ImplLogs {
			end.Lines[name] = counts[name]
		}
		if lastState != nil {
			if json.Valid(lastState) {
				end.State = append([]byte(nil), lastState...)
			} else {
				end.Detail = "state.json is not valid JSON"
			}
			lastState = nil
		}
		log = append(log, end)
	}
	log = append(log, w.unfired...)
	return append(log, sandbox.LogRecord{Kind: sandbox.LogEnd, Tick: newTimeline(w.b).last()})
}

// Common story: one customer message, admitted, claimed, drafted with its
// anchor, approved, sent and resolved.
const (
	bodyOK    = "About ORD-1001: it ships tomorrow."
	subjectM1 = "Order ORD-1001 late"
)

// opened delivers m1 at 1 and has the implementation admit, claim and draft
// it at tick 1.
func opened(t testing.TB, top, horizon int) *world {
	w := newWorld(t, top, horizon)
	w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
	w.admit("w1", "m1", 1)
	w.claim("w1", agent1, sandbox.ClaimWon, 1)
	w.draft("d1", "w1", "c1", bodyOK, 1)
	w.state(1, []item{{"w1", "drafted", agent1}})
	return w
}

// happy is the correct history of the common story.
func happy(t testing.TB, top int) *world {
	w := opened(t, top, 30)
	w.approve("ap1", "m1", "d1", 2)
	w.send("e1", "d1", 2)
	w.resolve("w1", sandbox.OutcomeCompleted, "sent", 2)
	w.state(2, []item{{"w1", sandbox.OutcomeCompleted, agent1}})
	return w
}

// ids lists the distinct invariant ids of a verdict, sorted.
func ids(v Verdict) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range v.Violations {
		if !seen[x.Invariant] {
			seen[x.Invariant] = true
			out = append(out, x.Invariant)
		}
	}
	sort.Strings(out)
	return out
}

// only returns the violations of one invariant.
func only(v Verdict, id string) []Violation {
	var out []Violation
	for _, x := range v.Violations {
		if x.Invariant == id {
			out = append(out, x)
		}
	}
	return out
}

// readings runs fn for the reading with a run log and the one without.
func readings(t *testing.T, fn func(t *testing.T, withLog bool)) {
	t.Run("log", func(t *testing.T) { fn(t, true) })
	t.Run("nolog", func(t *testing.T) { fn(t, false) })
}
