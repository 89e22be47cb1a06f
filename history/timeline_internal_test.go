package history

import (
	"encoding/json"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The oracle reads the clock with its own two constructions (the compiled
// history's timeline and the admission clock); both must visit exactly the
// ticks the engine plays, scenarios.TimelineOf.
func requireSameClock(t require.TestingT, b *scenarios.Bundle) {
	want := []int(scenarios.TimelineOf(b))
	require.Equal(t, want, []int(newTimeline(b)), "compiled history timeline")
	require.Equal(t, want, admissionOf(Input{Bundle: b}, b.Index()).ticks(), "admission clock")
}

func l0Respond(t require.TestingT) *scenarios.Bundle {
	ps, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range ps {
		if p.Name == "l0-respond" {
			return p.Bundle.Clone()
		}
	}
	require.FailNow(t, "l0-respond is not published")
	return nil
}

// On a bundle the validator accepts: jumps that do not overlap and land by
// the horizon, built tick by tick.
func TestTimelinesAgreeOnValidBundles(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := l0Respond(rt)
		b.Meta.Horizon = rapid.IntRange(b.Meta.Horizon, 400).Draw(rt, "horizon")
		b.Faults = nil
		for at := 0; b.Meta.Horizon-at >= 2; {
			if rapid.IntRange(0, 3).Draw(rt, "jump?") == 0 {
				by := rapid.IntRange(2, min(b.Meta.Horizon-at, 60)).Draw(rt, "by")
				b.Faults = append(b.Faults, scenarios.Fault{Kind: scenarios.FaultTickJump, At: at, By: by})
				at += by
			} else {
				at += rapid.IntRange(1, 30).Draw(rt, "gap")
			}
		}
		require.Empty(rt, scenarios.Validate(b, nil).Errors())
		requireSameClock(rt, b)
	})
}

// On a hostile bundle no validator has seen: any horizon, any jumps, at any
// tick, by any amount, several at one tick. A horizon past the limit is
// read as the limit, so each case stays small enough to be quick, and a
// construction that loops on a huge jump fails by timing out.
func TestTimelinesAgreeOnHostileBundles(t *testing.T) {
	huge := []int{math.MaxInt, math.MaxInt - 1, math.MinInt, scenarios.MaxHorizon, scenarios.MaxHorizon + 1}
	rapid.Check(t, func(rt *rapid.T) {
		horizon := rapid.OneOf(rapid.IntRange(-3, 300), rapid.SampledFrom(huge)).Draw(rt, "horizon")
		reach := min(max(horizon, 0), scenarios.MaxHorizon)
		b := &scenarios.Bundle{Meta: scenarios.Meta{Horizon: horizon}}
		n := rapid.IntRange(0, 8).Draw(rt, "faults")
		for range n {
			f := scenarios.Fault{Kind: scenarios.FaultTickJump,
				At: rapid.OneOf(rapid.IntRange(-2, min(reach, 300)+2), rapid.IntRange(max(reach-5, 0), reach+2)).Draw(rt, "at"),
				By: rapid.OneOf(rapid.IntRange(-3, 60), rapid.SampledFrom(huge)).Draw(rt, "by")}
			if rapid.IntRange(0, 5).Draw(rt, "other kind?") == 0 {
				f.Kind = rapid.SampledFrom(scenarios.FaultKinds).Draw(rt, "kind")
			}
			b.Faults = append(b.Faults, f)
		}
		requireSameClock(rt, b)
	})
}

// permute puts every operation where the permutation says, cycles of every
// length and fixed points included, and leaves the permutation the identity.
func TestPermutePutsEachOperationWhereItsKeySays(t *testing.T) {
	for _, from := range [][]int{{}, {0}, {1, 0}, {0, 1, 2}, {2, 0, 1}, {1, 2, 0, 4, 3, 5}, {5, 4, 3, 2, 1, 0}} {
		ops := make([]Op, len(from))
		for i := range ops {
			ops[i].Index = i
		}
		want := make([]int, len(from))
		copy(want, from)
		permute(ops, from)
		for i, op := range ops {
			if op.Index != want[i] {
				t.Fatalf("from %v: position %d holds %d, want %d", want, i, op.Index, want[i])
			}
			if from[i] != i {
				t.Fatalf("from %v: left %v, not the identity", want, from)
			}
		}
	}
}

// A log's line index lists the lines it was given, with an operation or
// not, in order; it finds a record only for a line with an operation, and
// counts those lines once each however often they are set.
func TestLineIndexListsItsLines(t *testing.T) {
	x := &lineIndex{}
	x.set(3, 0, 7)
	x.set(5, noOp, 9)
	x.set(1, 4, 2)
	x.set(3, 1, 8)
	if got := x.lines(); len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 5 {
		t.Fatalf("lines %v, want [1 3 5]", got)
	}
	if x.ops != 2 {
		t.Fatalf("%d lines with an operation, want 2", x.ops)
	}
	for _, tc := range []struct {
		line, rec, tick int
		ok              bool
	}{
		{1, 4, 2, true}, {3, 1, 8, true}, {5, 0, 9, false}, {2, 0, 0, false}, {6, 0, 0, false}, {0, 0, 0, false},
	} {
		rec, ok := x.record(tc.line)
		if ok != tc.ok || rec != tc.rec || x.ownTick(tc.line) != tc.tick {
			t.Fatalf("line %d: record %d %v tick %d, want %d %v %d", tc.line, rec, ok, x.ownTick(tc.line), tc.rec, tc.ok, tc.tick)
		}
	}
	var none *lineIndex
	if _, ok := none.record(1); ok || none.lines() != nil {
		t.Fatal("a log with no index has lines")
	}
}

// R hands out one shared zero Rare for operations without rare fields; a
// write through it would give every such operation the value.
func TestNoRareStaysZero(t *testing.T) {
	var op Op
	require.Equal(t, "", op.R().EffectID)
	op.W().EffectID = "e1"
	require.Equal(t, "e1", op.R().EffectID)
	require.Equal(t, Rare{}, noRare)
	require.True(t, noRare.zero())
}

// An operation's line carries its rare fields flat, and reads back with
// Rare nil exactly when all of them are zero.
func TestOpLineRoundTrip(t *testing.T) {
	plain := withSrc(Op{Index: 3, Tick: 7, Actor: ActorImpl, Type: OpClaim, WorkID: "w1"}, rawLoc("x:1"))
	l := plain.line()
	require.Equal(t, "impl", l.Actor)
	require.Equal(t, "claim", l.Type)
	got, err := l.op()
	require.NoError(t, err)
	require.Equal(t, plain, got)
	rare := withSrc(Op{Index: 4, Tick: 8, Actor: ActorHarness, Type: OpCrash, Rare: &Rare{Down: 5}}, rawLoc("audit.jsonl:2"))
	l = rare.line()
	require.Equal(t, 5, l.Down)
	got, err = l.op()
	require.NoError(t, err)
	require.Equal(t, rare, got)
}

// Every actor and type reads back from the name its line writes, and a
// name the history never writes is refused, not read as another.
func TestOpNamesRoundTrip(t *testing.T) {
	for a := ActorHarness; a <= ActorStub; a++ {
		for ty := OpDeliver; ty <= OpState; ty++ {
			op := withSrc(Op{Actor: a, Type: ty}, rawLoc("x:1"))
			l := op.line()
			require.NotEmpty(t, l.Actor)
			require.NotEmpty(t, l.Type)
			got, err := l.op()
			require.NoError(t, err)
			require.Equal(t, op, got)
		}
	}
	require.Equal(t, "", OpType(0).String())
	require.Equal(t, "", OpType(len(opTypeNames)).String())
	require.Equal(t, "", Actor(len(actorNames)).String())
	for _, l := range []opLine{{Actor: "impl", Type: "drafted"}, {Actor: "user", Type: "draft"}} {
		_, err := l.op()
		require.Error(t, err)
	}
	var op Op
	require.Error(t, json.Unmarshal([]byte(`{"index":0,"tick":1,"actor":"impl","type":"bogus","src":"x:1"}`), &op))
	require.NoError(t, json.Unmarshal([]byte(`{"index":0,"tick":1,"actor":"impl","type":"send","src":"x:1"}`), &op))
	require.Equal(t, OpSend, op.Type)
}

// An operation's source reads back as it was set, held compact exactly
// when it is a line of a file amr knows written as ref writes it, so a
// history read back from its file holds what the compiled one held.
func TestOpSrcRoundTrip(t *testing.T) {
	for _, src := range []string{"audit.jsonl:12", "run.jsonl:1", "state.json:1", "model-calls.jsonl:2147483647",
		"audit.jsonl:2147483648", "audit.jsonl:012", "audit.jsonl:0", "audit.jsonl:-3", "audit.jsonl:+3", "audit.jsonl:",
		"private/x.jsonl:4", "bundle:faults[2]", "bundle:inbox/m1", ":5", "x", ""} {
		var op Op
		op.SetSrc(src)
		require.Equal(t, src, op.Src())
		l := op.line()
		require.Equal(t, src, l.Src)
		back, err := l.op()
		require.NoError(t, err)
		require.Equal(t, op, back, src)
	}
	var op Op
	op.at(sandbox.Outbox, 7)
	require.Equal(t, "outbox.jsonl:7", op.Src())
	require.Equal(t, uint8(5), op.srcFile)
	require.Empty(t, op.src)
	op.SetSrc("bundle:faults[1]")
	require.Equal(t, "bundle:faults[1]", op.Src())
	require.Zero(t, op.srcFile)
	op.at("elsewhere.jsonl", 3)
	require.Equal(t, "elsewhere.jsonl:3", op.Src())
	op.at(sandbox.Audit, 0)
	require.Equal(t, "audit.jsonl:0", op.Src())
	a, b := withSrc(Op{}, rawLoc("outbox.jsonl:9")), withSrc(Op{}, rawLoc("bundle:faults[1]"))
	require.Equal(t, "outbox.jsonl", a.srcFileName())
	require.Equal(t, "bundle", b.srcFileName())
}

// A run holds about nine operations a message: an operation past this size
// is felt in the peak memory of a large run.
func TestOpSize(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(Op{}), uintptr(176))
	require.LessOrEqual(t, unsafe.Sizeof(Rare{}), uintptr(208))
}

// A source set from file and line is the one SetSrc sets from the same
// reference written out, for lines the compact form holds and for those it
// does not.
func TestSetLocMatchesSetSrc(t *testing.T) {
	files := []string{sandbox.RunLogFile, sandbox.Signals, sandbox.Inbox, "other.jsonl"}
	lines := []int{1, 2, 9, 10, 1 << 20, math.MaxInt32, math.MaxInt32 + 1, 0, -1}
	for _, f := range files {
		for _, n := range lines {
			var got, want Op
			got.setLoc(lineOf(f, n))
			want.SetSrc(ref(f, n))
			if got != want || got.Src() != ref(f, n) {
				t.Errorf("%s line %d: setLoc gives %+v (%q), SetSrc %+v", f, n, got, got.Src(), want)
			}
		}
	}
	for _, raw := range []string{"", "bundle:faults[3]", "bundle:signals/s1", "run.jsonl:7"} {
		var got, want Op
		got.setLoc(rawLoc(raw))
		want.SetSrc(raw)
		if got != want {
			t.Errorf("%q: setLoc gives %+v, SetSrc %+v", raw, got, want)
		}
	}
}

// Lists started from the shared blocks stay apart: growing one leaves the
// next one's elements where they were.
func TestPassListsDoNotAlias(t *testing.T) {
	p := &pass{ints: make([]int, 0, 4), strs: make([]string, 0, 4)}
	a := p.addInt(nil, 1)
	b := p.addInt(nil, 2)
	a = p.addInt(a, 3)
	c := p.addInt(nil, 4)
	require.Equal(t, []int{1, 3}, a)
	require.Equal(t, []int{2}, b)
	require.Equal(t, []int{4}, c)
	x := p.addStr(nil, "m1")
	y := p.addStr(nil, "m2")
	x = p.addStr(x, "m3")
	require.Equal(t, []string{"m1", "m3"}, x)
	require.Equal(t, []string{"m2"}, y)
}
