package sim

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The logs a crash may count are the harness's own list of them.
func TestCrashLogsAreTheImplementationsLogs(t *testing.T) {
	assert.Equal(t, sandbox.ImplLogs, scenarios.CrashLogs)
	assert.Contains(t, sandbox.ImplLogs, scenarios.SendLog)
	assert.Equal(t, sandbox.Outbox, scenarios.SendLog)
}

func sendCrash(k int, torn bool) []scenarios.Fault {
	return []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: k, WritesTo: scenarios.SendLog, Torn: torn}}
}

// sendCutWant is where a crash after the k-th send of tick 1 leaves the
// "send" helper, which writes per tick a draft, two sends in one write and
// their record: tick 0 wrote one line to drafts and audit and two to outbox.
type sendCutWant struct{ written, drafts, outbox, audit int }

var sendCuts = map[int]sendCutWant{
	1: {written: 2, drafts: 2, outbox: 3, audit: 1}, // after the first send, before the second
	2: {written: 3, drafts: 2, outbox: 4, audit: 1}, // after both sends, before their record
	3: {written: 4, drafts: 2, outbox: 4, audit: 2}, // no third send: at the tick's end
}

// A traced process is cut right after its k-th send, whatever it wrote
// before: the write of two sends is shortened to end at the first, the
// record after them is never written, and with no k-th send the crash
// lands at the tick's end. The record names the log it counted.
func TestATracedCrashLandsRightAfterTheKthSend(t *testing.T) {
	requireTrace(t)
	for k, want := range sendCuts {
		b := shortened(t, "l0-respond", 2)
		b.Faults = sendCrash(k, false)
		for run := 0; run < 2; run++ {
			res := runProcess(t, b, helperSpec("send", RegimeStep), 1)
			assert.Equal(t, CutTrace, res.Process.Cut)
			c := kinds(res, sandbox.LogCrash)
			require.Len(t, c, 1)
			assert.Equal(t, scenarios.SendLog, c[0].WritesTo)
			assert.Equal(t, k, c[0].AfterWrites)
			assert.Equal(t, want.written, c[0].Written, "k=%d", k)
			got := sendCutWant{written: c[0].Written, drafts: c[0].Lines[sandbox.Drafts],
				outbox: c[0].Lines[sandbox.Outbox], audit: c[0].Lines[sandbox.Audit]}
			assert.Equal(t, want, got, "k=%d run %d", k, run)
		}
	}
}

// A crash after any write is not one after a send: the first write of
// the tick is the draft.
func TestACrashAfterAWriteIsNotACrashAfterASend(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = crashAt(1, false)
	res := runProcess(t, b, helperSpec("send", RegimeStep), 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	assert.Empty(t, c[0].WritesTo)
	assert.Equal(t, 2, c[0].Lines[sandbox.Outbox], "killed before tick 1's sends")
}

// A torn crash after a send tears the send: half of the first send's
// line reaches outbox.jsonl.
func TestATracedTornSendCrashTearsTheSend(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = sendCrash(1, true)
	res := runProcess(t, b, helperSpec("send", RegimeStep), 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	line := "{\"event\":\"send\",\"at\":1,\"n\":1}\n"
	assert.Equal(t, sandbox.Outbox, c[0].Torn)
	assert.Equal(t, line[:len(line)/2], c[0].TornText)
	assert.Equal(t, 3, c[0].Line, "the third line of outbox.jsonl")
	assert.Equal(t, 1, c[0].Lines[sandbox.Audit])
}

// Untraced, the crash lands at the first look that sees the k-th send:
// best effort, after the send at the earliest, and the run says it
// watched.
func TestAWatchedSendCrashLandsNoEarlierThanTheSend(t *testing.T) {
	requireLinux(t)
	for k, want := range sendCuts {
		c := watchedCrash(t, "send", sendCrash(k, false))
		assert.Equal(t, scenarios.SendLog, c.WritesTo)
		assert.GreaterOrEqual(t, c.Lines[sandbox.Outbox], want.outbox, "k=%d", k)
	}
}

// watchedCrash plays two ticks of l0-respond against the helper role with
// the given faults and tracing off, checks that the run says it watched and
// crashed once, and returns the crash's record.
func watchedCrash(t *testing.T, role string, faults []scenarios.Fault) sandbox.LogRecord {
	t.Helper()
	b := shortened(t, "l0-respond", 2)
	b.Faults = faults
	spec := helperSpec(role, RegimeStep)
	spec.NoTrace = true
	res := runProcess(t, b, spec, 1)
	assert.Equal(t, "watch: tracing turned off", res.Log[0].Start().Params["cut"])
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	return c[0]
}

// tickWriter makes its writes once a tick, one call each (a log line
// appended, state.json written whole), then a private note that the tick is
// done, so a restart in the same tick writes nothing again.
type tickWriter [][2]string

func (ws tickWriter) Step(env *sandbox.Env) error {
	clock, err := env.Files.Read(sandbox.Clock)
	if err != nil {
		return err
	}
	if done, _ := env.Files.Read("private/done"); bytes.Equal(done, clock) {
		return nil
	}
	for _, w := range ws {
		if w[0] == sandbox.State {
			err = env.Files.Write(sandbox.State, []byte(w[1]))
		} else {
			err = env.Files.Append(w[0], []byte(w[1]))
		}
		if err != nil {
			return err
		}
	}
	return env.Files.Write("private/done", clock)
}

// sender writes, at each tick, a draft, state.json, two sends and their
// record.
var sender = tickWriter{{sandbox.Drafts, `{"d":1}`}, {sandbox.State, `{}`}, {sandbox.Outbox, `{"e":1}`},
	{sandbox.Outbox, `{"e":2}`}, {sandbox.Audit, `{"a":1}`}}

// In process the crash lands inside the step, right after the k-th send
// of tick 1: the draft and state.json before it do not count, the record
// after it is never written (the restart writes the whole tick again), and
// with no k-th send it lands at the tick's end.
func TestInProcessACrashLandsRightAfterTheKthSend(t *testing.T) {
	for k, want := range map[int]struct{ written, outbox, audit int }{
		1: {3, 2 + 1 + 2, 1 + 1}, 2: {4, 2 + 2 + 2, 1 + 1}, 3: {6, 2 + 2, 1 + 1},
	} {
		b := toyBundle()
		b.Meta.Horizon = 1
		b.Faults = sendCrash(k, false)
		res := run(t, b, func() sandbox.Implementation { return sender }, 1)
		c := kinds(res, sandbox.LogCrash)
		require.Len(t, c, 1, "k=%d", k)
		assert.Equal(t, scenarios.SendLog, c[0].WritesTo)
		assert.Equal(t, want.written, c[0].Written, "k=%d: the writes since arming, every file", k)
		assert.Equal(t, want.outbox, bytes.Count(res.Files.View(sandbox.Outbox), []byte("\n")), "k=%d", k)
		assert.Equal(t, want.audit, bytes.Count(res.Files.View(sandbox.Audit), []byte("\n")), "k=%d", k)
	}
}

// In process a torn crash after a send tears the send, not the draft.
func TestInProcessATornSendCrashTearsTheSend(t *testing.T) {
	b := toyBundle()
	b.Meta.Horizon = 1
	b.Faults = sendCrash(2, true)
	res := run(t, b, func() sandbox.Implementation { return sender }, 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	assert.Equal(t, sandbox.Outbox, c[0].Torn)
	assert.Equal(t, `{"e`, c[0].TornText)
	assert.Equal(t, 4, c[0].Line, "tick 0's two sends, tick 1's first, then the torn one")
}

// A crash that counted one log's lines gives a replay no cut: Written
// counts every write, and the replay lands it by the same rule. Its index
// still counts, so the tick's other crashes keep theirs.
func TestCutsOfLeavesOutCrashesAfterASend(t *testing.T) {
	log := []sandbox.LogRecord{
		{Kind: sandbox.LogCrash, Tick: 4, AfterWrites: 1, WritesTo: scenarios.SendLog, Written: 3},
		{Kind: sandbox.LogCrash, Tick: 4, AfterWrites: 2, Written: 2},
	}
	assert.Equal(t, []Cut{{Tick: 4, Index: 1, Writes: 2}}, CutsOf(log))
}

// wholeUnsender sends, then takes the send back by writing outbox.jsonl whole,
// empty, once per tick.
type wholeUnsender struct{}

func (wholeUnsender) Step(env *sandbox.Env) error {
	clock, _ := env.Files.Read(sandbox.Clock)
	if done, _ := env.Files.Read("private/done"); bytes.Equal(done, clock) {
		return nil
	}
	if err := env.Files.Append(sandbox.Outbox, []byte(`{"e":1}`)); err != nil {
		return err
	}
	if err := env.Files.Write(sandbox.Outbox, nil); err != nil {
		return err
	}
	return env.Files.Write("private/done", clock)
}

// A torn crash that lands on a log written whole still lets the engine see
// what the write left: the line it took back is on record, and the tick's
// listed writes name only lines that were written. Unseen, the lines after
// it were numbered one off, and the history placed a later send a tick
// early (an INVALID run of weak-unsend).
func TestATornCrashOnALogWrittenWholeIsSeen(t *testing.T) {
	b := toyBundle()
	b.Meta.Horizon = 1
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 2, Torn: true}}
	res := run(t, b, func() sandbox.Implementation { return wholeUnsender{} }, 1)
	rw := kinds(res, sandbox.LogRewrite)
	var atCrash []sandbox.LogRecord
	for _, r := range rw {
		if r.Tick == 1 {
			atCrash = append(atCrash, r)
		}
	}
	require.Len(t, atCrash, 2, "the torn take-back and the restart's")
	assert.Equal(t, []string{`{"e":1}`}, atCrash[0].Rewrite().Lost)
	var end sandbox.LogRecord
	for _, r := range kinds(res, sandbox.LogTickEnd) {
		if r.Tick == 1 {
			end = r
		}
	}
	outboxWrites := 0
	for _, w := range end.Writes {
		if w == sandbox.Outbox {
			outboxWrites++
		}
	}
	assert.Equal(t, 2, outboxWrites, "two sends at tick 1, each listed once")
	assert.Equal(t, 3, end.Lines[sandbox.Outbox], "tick 0's send and tick 1's two")
}
