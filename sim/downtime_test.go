package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// counting counts the steps it is given, across every instance.
type counting struct {
	steps map[int]int
	inner sandbox.Implementation
}

func (c *counting) Step(env *sandbox.Env) error {
	tick, _ := sandbox.ReadClock(env.Files)
	c.steps[tick]++
	return c.inner.Step(env)
}

// A crash with a downtime keeps the implementation down for its ticks: the
// schedule fires unread, no instance is stepped, and the restart comes at
// the first visited tick at or after the crash's tick plus the downtime.
func TestDowntimeDefersTheRestart(t *testing.T) {
	b := toyBundle()
	b.Meta.Horizon = 20
	b.Inbox = append(b.Inbox, scenarios.Delivery{ID: "m2", ConversationID: "c2", From: "b@x", Subject: "s", Body: "b", At: 4})
	b.Faults = []scenarios.Fault{
		{At: 2, Kind: scenarios.FaultCrash, AfterWrites: 1, Down: 6},
		{At: 5, Kind: scenarios.FaultCrash}, // while down: nothing to kill
	}
	b.Normalize()
	c := &counting{steps: map[int]int{}, inner: toy{}}
	res := run(t, b, func() sandbox.Implementation { return c }, 3)
	crashes := kinds(res, sandbox.LogCrash)
	require.Len(t, crashes, 2)
	assert.Equal(t, 6, crashes[0].Down)
	assert.Equal(t, 2, crashes[0].Tick)
	assert.Contains(t, crashes[1].Detail, "nothing to kill")
	restarts := kinds(res, sandbox.LogRestart)
	require.Len(t, restarts, 1)
	assert.Equal(t, 8, restarts[0].Tick)
	for tick := 3; tick < 8; tick++ {
		assert.Zero(t, c.steps[tick], "stepped at tick %d while down", tick)
	}
	assert.NotZero(t, c.steps[8])
	delivered := kinds(res, sandbox.LogDeliver)
	require.Len(t, delivered, 2)
	assert.Equal(t, 4, delivered[1].Tick, "the schedule fires while the implementation is down")
	audit, _ := sandbox.ParseAudit(res.Files.View(sandbox.Audit))
	var m2 *sandbox.AuditRecord
	for _, l := range audit {
		if l.Rec.MessageID == "m2" {
			m2 = &l.Rec
		}
	}
	require.NotNil(t, m2)
	assert.Equal(t, 8, m2.At, "read at the restart")
}

// A downtime past the horizon never restarts.
func TestDowntimePastTheHorizonNeverRestarts(t *testing.T) {
	b := toyBundle()
	b.Faults = []scenarios.Fault{{At: 3, Kind: scenarios.FaultCrash, Down: 50}}
	b.Normalize()
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	assert.Empty(t, kinds(res, sandbox.LogRestart))
	assert.Len(t, kinds(res, sandbox.LogCrash), 1)
}

// A run with a downtime is a pure function of its inputs, and the
// reference recovers from one within every budget.
func TestDowntimeIsDeterministicAndTheReferencePasses(t *testing.T) {
	b := published(t, "l2-govern").Clone()
	b.Faults = append(b.Faults, scenarios.Fault{At: 2, Kind: scenarios.FaultCrash, Down: 9})
	b.Normalize()
	a := run(t, b, examples.Reference(), 4)
	c := run(t, b, examples.Reference(), 4)
	assert.Equal(t, a.LogBytes(), c.LogBytes())
	assert.Equal(t, a.Files.Files(), c.Files.Files())
	requirePass(t, b, a)
}

// As a process, the kill is real and the fresh process starts only when
// the downtime ends; the reference passes.
func TestDowntimeAsAProcess(t *testing.T) {
	requireLinux(t)
	b := shortened(t, "l2-govern", 30)
	b.Faults = append(b.Faults, scenarios.Fault{At: 2, Kind: scenarios.FaultCrash, Down: 9})
	b.Normalize()
	res := runProcess(t, b, helperSpec("reference", RegimeStep), 4)
	restarts := kinds(res, sandbox.LogRestart)
	require.NotEmpty(t, restarts)
	assert.Equal(t, 11, restarts[0].Tick)
	requirePass(t, b, res)
	in := run(t, b, examples.Reference(), 4)
	assert.Equal(t, in.Files.Files(), res.Files.Files(), "the same sandbox in-process and as a process")
}

// With stamp_scheduled, an approval that waited for its draft carries the
// tick it was due; without it, the tick it fired.
func TestStampScheduled(t *testing.T) {
	for _, stamp := range []bool{false, true} {
		b := toyBundle()
		b.Meta.StampScheduled = stamp
		res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
		lines, _ := sandbox.ParseApprovals(res.Files.View(sandbox.Approvals))
		require.Len(t, lines, 1)
		want := 2
		if stamp {
			want = 0
		}
		assert.Equal(t, want, lines[0].Rec.DecidedAt, "stamp_scheduled=%v", stamp)
		assert.Equal(t, 2, kinds(res, sandbox.LogApprove)[0].Tick)
	}
}
