package sim_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// idle is an implementation that reads nothing and writes nothing.
type idle struct{}

func (idle) Step(*sandbox.Env) error { return nil }

func newIdle() sandbox.Implementation { return idle{} }

func quietBundle(horizon int, faults ...scenarios.Fault) *scenarios.Bundle {
	b := &scenarios.Bundle{
		Format: scenarios.Format,
		Meta:   scenarios.Meta{Name: "l0-quiet", Version: 1, Horizon: horizon},
		Fleet:  []string{"agent-1"},
		Mode:   scenarios.Mode{Posture: "normal"},
		Faults: faults,
	}
	b.Normalize()
	return b
}

func tickJump(at, by int) scenarios.Fault {
	return scenarios.Fault{Kind: scenarios.FaultTickJump, At: at, By: by}
}

func endedTicks(log []sandbox.LogRecord) []int {
	var out []int
	for _, r := range log {
		if r.Kind == sandbox.LogTickEnd {
			out = append(out, r.Tick)
		}
	}
	return out
}

// The engine walks scenarios.TimelineOf, edges included: the clock the
// checker judges against is the one a run visits.
func TestRunVisitsTheTimeline(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *scenarios.Bundle
	}{
		{"no jumps", quietBundle(5)},
		{"horizon 0", quietBundle(0)},
		{"a jump", quietBundle(9, tickJump(2, 4))},
		{"a jump by 1 and by 0", quietBundle(6, tickJump(1, 1), tickJump(3, 0))},
		{"a jump landing on the horizon", quietBundle(6, tickJump(1, 5))},
		{"a jump past the horizon", quietBundle(6, tickJump(2, 5))},
		{"a jump that would overflow", quietBundle(6, tickJump(2, math.MaxInt))},
		{"two jumps at one tick", quietBundle(9, tickJump(1, 2), tickJump(1, 4))},
		{"a jump inside another", quietBundle(9, tickJump(1, 4), tickJump(3, 2))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(tc.b, newIdle, sim.Options{Seed: 1, Impl: "idle"})
			require.NoError(t, err)
			want := []int(scenarios.TimelineOf(tc.b))
			assert.Equal(t, want, endedTicks(res.Log))
			assert.Equal(t, len(want), res.Ticks)
			assert.Equal(t, want[len(want)-1], res.Log[len(res.Log)-1].Tick, "the end record is at the last visited tick")
		})
	}
}

func publishedBundle(t *testing.T, name string) *scenarios.Bundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		if p.Name == name {
			return p.Bundle
		}
	}
	require.FailNow(t, "not published", name)
	return nil
}

// What a caller keeps of a run is the sandbox and LogBytes; the run log
// reads back through sandbox.ParseRunLog as the records Run returned, and
// opens with the start record naming the bundle, the implementation and
// the engine seed.
func TestRunLogReadsBack(t *testing.T) {
	b := publishedBundle(t, "l2-tick-jump-intake")
	im, ok := examples.Lookup("reference")
	require.True(t, ok)
	res, err := sim.Run(b, im.New, sim.Options{Seed: 9, Impl: im.Name, BundleHash: "sha256:x"})
	require.NoError(t, err)

	back, err := sandbox.ParseRunLog(res.LogBytes())
	require.NoError(t, err)
	require.Equal(t, res.Log, back)
	first, last := back[0], back[len(back)-1]
	assert.Equal(t, sandbox.LogStart, first.Kind)
	assert.Equal(t, b.Meta.Name, first.Start().Bundle)
	assert.Equal(t, im.Name, first.Start().Impl)
	assert.Equal(t, "sha256:x", first.Start().BundleHash)
	require.NotNil(t, first.Start().Engine)
	assert.Equal(t, seeds.Seed(9), *first.Start().Engine)
	assert.Equal(t, sandbox.LogEnd, last.Kind)

	tl := scenarios.TimelineOf(b)
	assert.Equal(t, tl[len(tl)-1], last.Tick)
	assert.Len(t, tl, res.Ticks)
	for _, name := range res.Files.Names() {
		assert.True(t, sandbox.ValidName(name), name)
	}
	clock, err := sandbox.ReadClock(res.Files)
	require.NoError(t, err)
	assert.Equal(t, last.Tick, clock, "the clock file is left at the last visited tick")
}

// A bundle the engine cannot play is an error, not a run: a horizon past
// the limit, or below 0.
func TestRunRefusesAnUnplayableBundle(t *testing.T) {
	for _, h := range []int{-1, scenarios.MaxHorizon + 1, math.MaxInt} {
		_, err := sim.Run(quietBundle(h), newIdle, sim.Options{Seed: 1})
		assert.Error(t, err, "horizon %d", h)
	}
}

// A run given LogTo writes there, as it plays, exactly the bytes LogBytes
// renders of the same run held in memory, and holds no log or parse itself;
// every published bundle is played both ways, by the reference and by
// responders whose claims and admissions the engine's lookups (kept apart
// for such a run) meet otherwise.
func TestRunLogToWritesTheLogAsMade(t *testing.T) {
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, name := range []string{"reference", "weak-fork-on-duplicate", "weak-stale-state", "weak-unsend", "weak-drop-dead-agent-work"} {
		im, ok := examples.Lookup(name)
		require.True(t, ok, name)
		for _, p := range pubs {
			held, err := sim.Run(p.Bundle, im.New, sim.Options{Seed: 7, Impl: im.Name})
			require.NoError(t, err, p.Name)
			require.NotNil(t, held.Parsed, p.Name)
			var streamed bytes.Buffer
			res, err := sim.Run(p.Bundle, im.New, sim.Options{Seed: 7, Impl: im.Name, LogTo: &streamed})
			require.NoError(t, err, p.Name)
			assert.Nil(t, res.Log, p.Name)
			assert.Nil(t, res.Parsed, p.Name)
			assert.Equal(t, string(held.LogBytes()), streamed.String(), "%s %s", name, p.Name)
			assert.Equal(t, held.Files.Files(), res.Files.Files(), "%s %s", name, p.Name)
		}
	}
}

// failAfter takes n bytes and then fails every write.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// A run whose log cannot be written is an error, not a run with half a log.
func TestRunLogToFailureEndsTheRun(t *testing.T) {
	b := publishedBundle(t, "l2-tick-jump-intake")
	im, ok := examples.Lookup("reference")
	require.True(t, ok)
	_, err := sim.Run(b, im.New, sim.Options{Seed: 7, Impl: im.Name, LogTo: &failAfter{n: 2000}})
	require.ErrorContains(t, err, "disk full")
}
