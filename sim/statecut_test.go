package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The one file beside the logs a crash may count is the harness's
// state.json.
func TestCrashTargetsAreTheLogsAndState(t *testing.T) {
	assert.Equal(t, sandbox.State, scenarios.StateFile)
	assert.Equal(t, append(append([]string(nil), sandbox.ImplLogs...), sandbox.State), scenarios.CrashTargets)
}

func stateCrash(k int, torn bool) []scenarios.Fault {
	return []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: k, WritesTo: scenarios.StateFile, Torn: torn}}
}

// stateCutWant is where a crash after the k-th state.json of tick 1
// leaves the "states" helper, which writes per tick a draft, state.json,
// a record, state.json again and a record: tick 0 left one draft and two
// records.
type stateCutWant struct{ written, drafts, audit int }

var stateCuts = map[int]stateCutWant{
	1: {written: 2, drafts: 2, audit: 2}, // after the first state.json, before its record
	2: {written: 4, drafts: 2, audit: 3}, // after the second, before the last record
	3: {written: 5, drafts: 2, audit: 4}, // no third: at the tick's end
}

// A traced process is cut right after the k-th rename onto state.json of
// the tick, whatever it wrote before, and the record after it is never
// written; with no k-th version the crash lands at the tick's end. Twice,
// with the same bytes.
func TestATracedCrashLandsRightAfterTheKthState(t *testing.T) {
	requireTrace(t)
	for k, want := range stateCuts {
		var first []byte
		for run := 0; run < 2; run++ {
			b := shortened(t, "l0-respond", 2)
			b.Faults = stateCrash(k, false)
			res := runProcess(t, b, helperSpec("states", RegimeStep), 1)
			assert.Equal(t, CutTrace, res.Process.Cut)
			c := kinds(res, sandbox.LogCrash)
			require.Len(t, c, 1)
			assert.Equal(t, scenarios.StateFile, c[0].WritesTo)
			assert.Empty(t, c[0].Torn)
			got := stateCutWant{written: c[0].Written, drafts: c[0].Lines[sandbox.Drafts], audit: c[0].Lines[sandbox.Audit]}
			assert.Equal(t, want, got, "k=%d run %d", k, run)
			line, err := json.Marshal(c[0])
			require.NoError(t, err)
			if run == 0 {
				first = line
			} else {
				assert.Equal(t, string(first), string(line), "k=%d: the crash record replays byte for byte", k)
			}
		}
	}
}

// A torn traced crash after the k-th state.json cuts the file that rename
// puts in place to half: the record names state.json and what it holds.
func TestATracedTornStateCrashCutsTheKthVersion(t *testing.T) {
	requireTrace(t)
	for k, v := range map[int]string{1: "{\"tick\":1,\"v\":1}\n", 2: "{\"tick\":1,\"v\":2}\n"} {
		for run := 0; run < 2; run++ {
			b := shortened(t, "l0-respond", 2)
			b.Faults = stateCrash(k, true)
			res := runProcess(t, b, helperSpec("states", RegimeStep), 1)
			c := kinds(res, sandbox.LogCrash)
			require.Len(t, c, 1)
			assert.Equal(t, sandbox.State, c[0].Torn, "k=%d", k)
			assert.Equal(t, v[:len(v)/2], c[0].TornText, "k=%d run %d", k, run)
			assert.Equal(t, stateCuts[k].audit, c[0].Lines[sandbox.Audit], "k=%d: killed before the record", k)
		}
	}
}

// Untraced, the crash lands at the first look that sees the k-th
// state.json: no earlier, best effort, and never torn (D75).
func TestAWatchedStateCrashLandsNoEarlierThanTheState(t *testing.T) {
	requireLinux(t)
	for k, want := range stateCuts {
		c := watchedCrash(t, "states", stateCrash(k, true))
		assert.Equal(t, scenarios.StateFile, c.WritesTo)
		assert.Empty(t, c.Torn)
		assert.GreaterOrEqual(t, c.Lines[sandbox.Audit], want.audit, "k=%d", k)
	}
}

// stater writes, at each tick, a draft, state.json, a record, state.json
// again and a record.
var stater = tickWriter{{sandbox.Drafts, `{"d":1}`}, {sandbox.State, `{"v":1}`}, {sandbox.Audit, `{"a":1}`},
	{sandbox.State, `{"v":2}`}, {sandbox.Audit, `{"a":2}`}}

// In process the crash lands inside the step right after the k-th
// state.json of tick 1: the draft before it does not count, the record
// after it is never written (the restart writes the whole tick again), and
// with no k-th version it lands at the tick's end. Twice, same bytes.
func TestInProcessACrashLandsRightAfterTheKthState(t *testing.T) {
	for k, want := range map[int]struct {
		written, audit int
	}{
		1: {2, 2 + 0 + 2}, 2: {4, 2 + 1 + 2}, 3: {6, 2 + 2},
	} {
		var first []byte
		for again := 0; again < 2; again++ {
			b := toyBundle()
			b.Meta.Horizon = 1
			b.Faults = stateCrash(k, false)
			res := run(t, b, func() sandbox.Implementation { return stater }, 1)
			c := kinds(res, sandbox.LogCrash)
			require.Len(t, c, 1, "k=%d", k)
			assert.Equal(t, scenarios.StateFile, c[0].WritesTo)
			assert.Equal(t, want.written, c[0].Written, "k=%d: the writes since arming, every file", k)
			assert.Equal(t, want.audit, bytes.Count(res.Files.View(sandbox.Audit), []byte("\n")), "k=%d", k)
			line, err := json.Marshal(c[0])
			require.NoError(t, err)
			if again == 0 {
				first = line
			} else {
				assert.Equal(t, string(first), string(line), "k=%d", k)
			}
		}
	}
}

// In process a torn crash after the k-th state.json cuts that version to
// half, not the draft nor the record before it.
func TestInProcessATornStateCrashCutsTheKthVersion(t *testing.T) {
	for k, v := range map[int]string{1: `{"v":1}`, 2: `{"v":2}`} {
		b := toyBundle()
		b.Meta.Horizon = 1
		b.Faults = stateCrash(k, true)
		res := run(t, b, func() sandbox.Implementation { return stater }, 1)
		c := kinds(res, sandbox.LogCrash)
		require.Len(t, c, 1)
		assert.Equal(t, sandbox.State, c[0].Torn, "k=%d", k)
		assert.Equal(t, v[:len(v)/2], c[0].TornText, "k=%d", k)
		assert.Zero(t, c[0].Line, "a file's content has no line number")
	}
}

// A crash aimed at state.json counts and tears it even where the spec
// ignores state.json's writes for crashes after any write: the bundle
// named the file.
func TestAnAimedStateCrashOutranksIgnoreWrites(t *testing.T) {
	requireTrace(t)
	b := shortened(t, "l0-respond", 2)
	b.Faults = stateCrash(2, true)
	spec := helperSpec("states", RegimeStep)
	spec.IgnoreWrites = []string{sandbox.State}
	res := runProcess(t, b, spec, 1)
	c := kinds(res, sandbox.LogCrash)
	require.Len(t, c, 1)
	v := "{\"tick\":1,\"v\":2}\n"
	assert.Equal(t, sandbox.State, c[0].Torn)
	assert.Equal(t, v[:len(v)/2], c[0].TornText)
	assert.Equal(t, stateCuts[2].audit, c[0].Lines[sandbox.Audit])
}
