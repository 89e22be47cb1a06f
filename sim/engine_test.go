package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// toy is a minimal implementation for engine tests: it admits every new
// message as work "w-<id>", declares one model-based draft, and sends it on
// an approval line naming its draft. It keeps nothing in memory.
type toy struct{}

func (toy) Step(env *sandbox.Env) error {
	tick, err := sandbox.ReadClock(env.Files)
	if err != nil {
		return err
	}
	read := func(name string) []byte { d, _ := env.Files.Read(name); return d }
	inbox, _ := sandbox.ParseInbox(read(sandbox.Inbox))
	audit, _ := sandbox.ParseAudit(read(sandbox.Audit))
	drafts, _ := sandbox.ParseDrafts(read(sandbox.Drafts))
	outbox, _ := sandbox.ParseOutbox(read(sandbox.Outbox))
	approvals, _ := sandbox.ParseApprovals(read(sandbox.Approvals))
	admitted := map[string]bool{}
	for _, a := range audit {
		admitted[a.Rec.MessageID] = true
	}
	for _, m := range inbox {
		if admitted[m.Rec.ID] {
			continue
		}
		admitted[m.Rec.ID] = true
		return sandbox.AppendJSON(env.Files, sandbox.Audit, sandbox.AuditRecord{Event: "admission", At: tick,
			WorkID: "w-" + m.Rec.ID, MessageID: m.Rec.ID, RulesHash: "x"})
	}
	drafted := map[string]bool{}
	for _, d := range drafts {
		drafted[d.Rec.WorkID] = true
	}
	for _, a := range audit {
		if drafted[a.Rec.WorkID] {
			continue
		}
		c, err := env.Model.Complete("about " + a.Rec.MessageID)
		if err != nil {
			return err
		}
		return sandbox.AppendJSON(env.Files, sandbox.Drafts, sandbox.Draft{DraftID: "d-" + a.Rec.WorkID,
			WorkID: a.Rec.WorkID, ConversationID: "c", Body: c.Text, ContentHash: "h-" + a.Rec.WorkID,
			DeclaredAt: tick, Origin: sandbox.Origin{CallIDs: []string{c.CallID}}})
	}
	sent := map[string]bool{}
	for _, o := range outbox {
		sent[o.Rec.DraftID] = true
	}
	for _, a := range approvals {
		if !sent[a.Rec.DraftID] && strings.HasPrefix(a.Rec.DraftID, "d-") {
			return sandbox.AppendJSON(env.Files, sandbox.Outbox, sandbox.Effect{EffectID: "e-" + a.Rec.DraftID,
				DraftID: a.Rec.DraftID, SentAt: tick})
		}
	}
	return nil
}

func toyBundle() *scenarios.Bundle {
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta:   scenarios.Meta{Name: "l0-toy", Version: 1, TopLevel: 0, Horizon: 12},
		Fleet:  []string{"agent-1"},
		Mode:   scenarios.Mode{Posture: "normal"},
		Model:  scenarios.Model{Anchors: []string{"m1"}, Reply: "re {{anchor}} ({{call_id}})", ReplyNoAnchor: "re"},
		Inbox:  []scenarios.Delivery{{ID: "m1", ConversationID: "c1", From: "a@x", Subject: "s", Body: "b", At: 1}},
		Approvals: []scenarios.Approval{
			{ID: "ap1", At: 0, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve"},
		},
	}
	b.Normalize()
	return b
}

func run(t *testing.T, b *scenarios.Bundle, f sandbox.Factory, seed uint64) *Result {
	t.Helper()
	res, err := Run(b, f, Options{Seed: seed, Impl: "toy"})
	require.NoError(t, err)
	return res
}

func kinds(res *Result, kind string) []sandbox.LogRecord {
	var out []sandbox.LogRecord
	for _, r := range res.Log {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

func TestApprovalDefersUntilADraftExists(t *testing.T) {
	res := run(t, toyBundle(), func() sandbox.Implementation { return toy{} }, 1)
	approves := kinds(res, sandbox.LogApprove)
	require.Len(t, approves, 1)
	assert.Equal(t, 2, approves[0].Tick, "scheduled at 0, bound at the first tick after a draft exists")
	assert.Equal(t, "d-w-m1", approves[0].DraftID)
	assert.Equal(t, "h-w-m1", approves[0].ContentHash)
	assert.Equal(t, 0, *approves[0].Scheduled)
	out, _ := sandbox.ParseOutbox(res.Files.View(sandbox.Outbox))
	require.Len(t, out, 1)
	calls, errs := sandbox.ParseModelCalls(res.Files.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 1)
	assert.Equal(t, "re m1 (call-0001)", calls[0].Rec.Reply)
}

func TestSameSeedSameBytes(t *testing.T) {
	b := toyBundle()
	b.Faults = append(b.Faults, scenarios.Fault{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 2})
	a := run(t, b, func() sandbox.Implementation { return toy{} }, 9)
	c := run(t, b, func() sandbox.Implementation { return toy{} }, 9)
	assert.Equal(t, a.LogBytes(), c.LogBytes())
	assert.Equal(t, a.Files.Files(), c.Files.Files())
}

func TestCrashLandsAfterTheKthWrite(t *testing.T) {
	for k := 1; k <= 3; k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			b := toyBundle()
			b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: k}}
			starts := 0
			res := run(t, b, func() sandbox.Implementation { starts++; return toy{} }, 1)
			crashes := kinds(res, sandbox.LogCrash)
			require.Len(t, crashes, 1)
			// The toy writes twice at tick 1; a later crash lands at the tick's end.
			assert.Equal(t, min(k, 2), crashes[0].Written)
			assert.Equal(t, 2, starts)
			// The toy re-derives everything, so nothing is lost or doubled.
			out, _ := sandbox.ParseOutbox(res.Files.View(sandbox.Outbox))
			assert.Len(t, out, 1)
		})
	}
}

func TestCrashBeyondTheTicksWritesLandsAtItsEnd(t *testing.T) {
	b := toyBundle()
	b.Faults = []scenarios.Fault{{At: 5, Kind: scenarios.FaultCrash, AfterWrites: 50}}
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	crashes := kinds(res, sandbox.LogCrash)
	require.Len(t, crashes, 1)
	assert.Equal(t, 5, crashes[0].Tick)
	assert.Equal(t, 0, crashes[0].Written)
}

func TestTickJumpSkipsTicksAndFiresAtLanding(t *testing.T) {
	b := toyBundle()
	b.Meta.Horizon = 30
	b.Inbox[0].At = 5
	b.Faults = []scenarios.Fault{{At: 2, Kind: scenarios.FaultTickJump, By: 10}}
	assert.Equal(t, scenarios.Timeline{0, 1, 2, 12, 13}, scenarios.TimelineOf(b)[:5])
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	d := kinds(res, sandbox.LogDeliver)
	require.Len(t, d, 1)
	assert.Equal(t, 12, d[0].Tick)
	inbox, _ := sandbox.ParseInbox(res.Files.View(sandbox.Inbox))
	assert.Equal(t, 5, inbox[0].Rec.At, "the line keeps its scheduled tick")
	require.Len(t, kinds(res, sandbox.LogJump), 1)
}

func TestDuplicatesAndRedeliveriesRepeatTheExactLine(t *testing.T) {
	b := toyBundle()
	b.Faults = []scenarios.Fault{
		{At: 3, Kind: scenarios.FaultDuplicate, MessageID: "m1"},
		{At: 4, Kind: scenarios.FaultRedeliver, ApprovalID: "ap1"},
	}
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	inbox := bytes.Split(bytes.TrimSpace(res.Files.View(sandbox.Inbox)), []byte("\n"))
	require.Len(t, inbox, 2)
	assert.Equal(t, inbox[0], inbox[1])
	ap := bytes.Split(bytes.TrimSpace(res.Files.View(sandbox.Approvals)), []byte("\n"))
	require.Len(t, ap, 2)
	assert.Equal(t, ap[0], ap[1])
}

func TestForgeriesAreWrittenWrong(t *testing.T) {
	b := toyBundle()
	b.Approvals = []scenarios.Approval{
		{ID: "f1", At: 3, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve", Forge: scenarios.ForgeDangling},
		{ID: "f2", At: 3, Match: scenarios.Match{MessageID: "m1"}, Decision: "approve", Forge: scenarios.ForgeHashMismatch},
	}
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	ap, _ := sandbox.ParseApprovals(res.Files.View(sandbox.Approvals))
	require.Len(t, ap, 2)
	byID := map[string]sandbox.ApprovalRecord{}
	for _, a := range ap {
		byID[a.Rec.ApprovalID] = a.Rec
	}
	assert.Equal(t, "draft-forged-f1", byID["f1"].DraftID)
	assert.Equal(t, "h-w-m1", byID["f1"].ContentHash, "a dangling forgery copies the real hash")
	assert.Equal(t, "d-w-m1", byID["f2"].DraftID)
	assert.NotEqual(t, "h-w-m1", byID["f2"].ContentHash)
}

func TestSignalsBindAtFireTime(t *testing.T) {
	b := toyBundle()
	b.Signals = []scenarios.Signal{
		{ID: "s1", At: 0, Type: scenarios.OperatorEscalation, Target: scenarios.Match{MessageID: "m1"}},
		{ID: "s2", At: 2, Type: scenarios.AgentDeath, Target: scenarios.Match{AgentID: "agent-1"}},
		{ID: "s3", At: 2, Type: scenarios.AgentDeath, Target: scenarios.Match{MessageID: "m1"}},
	}
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	sigs, _ := sandbox.ParseSignals(res.Files.View(sandbox.Signals))
	require.Len(t, sigs, 2)
	got := map[string]sandbox.SignalRecord{}
	for _, s := range sigs {
		got[s.Rec.SignalID] = s.Rec
	}
	assert.Equal(t, "w-m1", got["s1"].Target)
	assert.Equal(t, 2, got["s1"].At, "deferred until the message was admitted")
	assert.Equal(t, "agent-1", got["s2"].Target)
	// The toy keeps no state.json, so an agent cannot be read for s3.
	unfired := kinds(res, sandbox.LogUnfired)
	require.Len(t, unfired, 1)
	assert.Equal(t, "s3", unfired[0].ID)
}

type busy struct{ n int }

func (b *busy) Step(env *sandbox.Env) error {
	b.n++
	return env.Files.Append(sandbox.Audit, []byte(fmt.Sprintf(`{"event":"noise","at":0,"n":%d}`, b.n)))
}

func TestBusyImplementationGetsForcedAdvances(t *testing.T) {
	b := toyBundle()
	b.Meta.Horizon = 3
	res, err := Run(b, func() sandbox.Implementation { return &busy{} }, Options{MaxSteps: 5})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Forced)
	ends := kinds(res, sandbox.LogTickEnd)
	require.Len(t, ends, 4)
	assert.True(t, ends[0].Forced)
	assert.Equal(t, 5, ends[0].Lines[sandbox.Audit])
}

type hostile struct{}

func (hostile) Step(env *sandbox.Env) error {
	if err := env.Files.Write(sandbox.Inbox, []byte("forged inbox")); !errors.Is(err, sandbox.ErrReadOnly) {
		panic("harness file was writable")
	}
	if err := env.Files.Write("../escape", []byte("x")); !errors.Is(err, sandbox.ErrBadName) {
		panic("escaped the sandbox")
	}
	panic("boom")
}

func TestPanicsAndForbiddenWritesAreContained(t *testing.T) {
	res, err := Run(toyBundle(), func() sandbox.Implementation { return hostile{} }, Options{})
	require.NoError(t, err)
	errs := kinds(res, sandbox.LogStepError)
	require.NotEmpty(t, errs)
	assert.Contains(t, errs[0].Detail, "boom")
	assert.NotContains(t, string(res.Files.View(sandbox.Inbox)), "forged inbox")
}

func TestStateSnapshotsAreLoggedWhenTheyChange(t *testing.T) {
	b := toyBundle()
	writes := 0
	f := func() sandbox.Implementation {
		return stepFunc(func(env *sandbox.Env) error {
			tick, _ := sandbox.ReadClock(env.Files)
			if tick%4 == 0 {
				writes++
				return env.Files.Write(sandbox.State, []byte(fmt.Sprintf(`{"tick": %d}`, tick/4)))
			}
			return nil
		})
	}
	res := run(t, b, f, 1)
	var states []string
	var replay sandbox.StateReplay
	for _, r := range kinds(res, sandbox.LogTickEnd) {
		assert.Nil(t, r.State, "a valid state is logged as an edit, not in full")
		version, changed, err := replay.Next(r)
		require.NoError(t, err)
		if changed {
			states = append(states, string(version))
		}
	}
	assert.Equal(t, []string{`{"tick":0}`, `{"tick":1}`, `{"tick":2}`, `{"tick":3}`}, states)
	// The log read back from its bytes rebuilds the same versions.
	parsed, err := sandbox.ParseRunLog(res.LogBytes())
	require.NoError(t, err)
	var again []string
	replay = sandbox.StateReplay{}
	for _, r := range parsed {
		if version, changed, err := replay.Next(r); changed {
			require.NoError(t, err)
			again = append(again, string(version))
		}
	}
	assert.Equal(t, states, again)
	var start sandbox.LogRecord
	require.NoError(t, json.Unmarshal(bytes.SplitN(res.LogBytes(), []byte("\n"), 2)[0], &start))
	assert.Equal(t, sandbox.LogStart, start.Kind)
}

type stepFunc func(env *sandbox.Env) error

func (f stepFunc) Step(env *sandbox.Env) error { return f(env) }

func TestClockFileIsMarshalLine(t *testing.T) {
	for _, tick := range []int{0, 1, 42, 1_000_000} {
		e := &engine{files: sandbox.NewMemory(), tick: tick}
		require.NoError(t, e.writeClock())
		want, err := sandbox.MarshalLine(sandbox.ClockFile{Tick: tick})
		require.NoError(t, err)
		assert.Equal(t, string(want)+"\n", string(e.files.View(sandbox.Clock)))
	}
}

// The run log written out is the bytes of MarshalLine a record at a
// time, whatever a record carries: HTML characters unescaped, a state edit,
// a full state, a run of a real bundle.
func TestWriteLogWritesTheLinesMarshalLineWrites(t *testing.T) {
	res := run(t, toyBundle(), func() sandbox.Implementation { return toy{} }, 3)
	res.Log = append(res.Log,
		sandbox.LogRecord{Kind: sandbox.LogStepError, Detail: "<b> & \"c\" \u2028"},
		sandbox.LogRecord{Kind: sandbox.LogTickEnd, State: []byte(`{"a":"<&>"}`)},
		sandbox.LogRecord{Kind: sandbox.LogTickEnd, StateEdit: &sandbox.StateEdit{Hunks: []sandbox.Hunk{{At: 6, Del: 5, Text: `"x>y"`}}, Hash: "h"}})
	var want []byte
	for _, rec := range res.Log {
		line, err := sandbox.MarshalLine(rec)
		require.NoError(t, err)
		want = append(append(want, line...), '\n')
	}
	assert.Equal(t, string(want), string(res.LogBytes()))
	var out bytes.Buffer
	require.NoError(t, res.WriteLog(&out))
	assert.Equal(t, string(want), out.String())
	assert.Contains(t, out.String(), `"<b> & \"c\"`)
}

// The schedule keeps the line of a message or approval only when a fault
// appends it again: a copy of every delivered line was as large as the
// inbox, held for the whole run.
func TestScheduleKeepsOnlyTheLinesAFaultRepeats(t *testing.T) {
	b := toyBundle()
	b.Inbox = append(b.Inbox, scenarios.Delivery{ID: "m2", ConversationID: "c2", From: "a@x", Subject: "s", Body: "b", At: 1})
	b.Faults = []scenarios.Fault{{At: 3, Kind: scenarios.FaultDuplicate, MessageID: "m2"}}
	b.Normalize()
	e := newEngine(b, Options{Seed: 1})
	e.files = sandbox.NewMemory()
	for _, d := range b.Inbox {
		require.NoError(t, e.deliver(d))
	}
	assert.Len(t, e.sched.inboxLines, 1)
	assert.Equal(t, bytes.TrimSuffix(bytes.SplitAfter(e.files.View(sandbox.Inbox), []byte("\n"))[1], []byte("\n")),
		e.sched.inboxLines["m2"])
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	assert.Len(t, kinds(res, sandbox.LogDuplicate), 1)
}

type failing struct{}

func (failing) Step(*sandbox.Env) error { return errors.New("no") }

// A log that outgrows its estimate (a step error every tick) grows once by
// room for the ticks left, not by a quarter of itself, and loses nothing.
func TestLogPastItsEstimateGrowsByTheTicksLeft(t *testing.T) {
	b := toyBundle()
	timeline := scenarios.TimelineOf(b)
	res := run(t, b, func() sandbox.Implementation { return failing{} }, 1)
	assert.Len(t, kinds(res, sandbox.LogStepError), len(timeline))
	assert.Len(t, kinds(res, sandbox.LogTickEnd), len(timeline))
	assert.Greater(t, len(res.Log), logSize(b, timeline))
	assert.LessOrEqual(t, cap(res.Log), logSize(b, timeline)+3*len(timeline)+16)
	again := run(t, b, func() sandbox.Implementation { return failing{} }, 1)
	assert.Equal(t, res.LogBytes(), again.LogBytes())

	e := &engine{timeline: make([]int, 1000), ticksDone: 990, logs: make([]sandbox.LogRecord, 2000)}
	e.log(sandbox.LogRecord{Kind: sandbox.LogStepError})
	assert.Len(t, e.logs, 2001)
	assert.Less(t, cap(e.logs), 2000+3*10+16+20, "room for ten ticks, give or take the size class")
	for range 100 {
		e.log(sandbox.LogRecord{Kind: sandbox.LogStepError})
	}
	assert.Len(t, e.logs, 2101, "past the room, append grows it")
}
