package timeline_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/timeline"
)

func published(t *testing.T) []scenarios.PublishedBundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	return pubs
}

func bundleNamed(t *testing.T, name string) *scenarios.Bundle {
	t.Helper()
	for _, p := range published(t) {
		if p.Name == name {
			return p.Bundle
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

// play runs a bundle against a built-in implementation and builds the input
// of a timeline.
func play(t *testing.T, b *scenarios.Bundle, impl string, seed uint64) timeline.Input {
	t.Helper()
	im, ok := examples.Lookup(impl)
	require.True(t, ok, impl)
	res, err := sim.Run(b, im.New, sim.Options{Seed: seed, Impl: impl})
	require.NoError(t, err)
	files := res.Files.Files()
	v := checker.Check(checker.Input{Bundle: b, Files: files, Log: res.Log})
	return timeline.Input{Bundle: b, Files: files, Log: res.Log, Verdict: v}
}

// implLines counts the non-blank lines of the implementation's logs.
func implLines(files map[string][]byte) int {
	n := 0
	for _, name := range sandbox.ImplLogs {
		for _, l := range bytes.Split(files[name], []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				n++
			}
		}
	}
	return n
}

func count(tl *timeline.Timeline, who, what string) int {
	n := 0
	for _, e := range tl.Entries {
		if e.Who == who && (what == "" || e.What == what) {
			n++
		}
	}
	return n
}

func TestEveryLineOnceInTickOrder(t *testing.T) {
	for _, p := range published(t) {
		for _, impl := range []string{examples.ReferenceName, "weak-send-before-record", "weak-ignore-escalation"} {
			in := play(t, p.Bundle, impl, 7)
			tl := timeline.Build(in)
			require.True(t, tl.Observed)
			assert.Equal(t, implLines(in.Files), count(tl, timeline.Impl, ""), "%s %s: every implementation line once", p.Name, impl)
			assert.Equal(t, len(in.Verdict.Violations), count(tl, timeline.Checker, "violation"), "%s %s", p.Name, impl)
			for i := 1; i < len(tl.Entries); i++ {
				require.LessOrEqual(t, tl.Entries[i-1].Tick, tl.Entries[i].Tick, "%s %s: entry %d", p.Name, impl, i)
			}
		}
	}
}

// The reference stamps every line with the clock's tick, so for it the
// observed tick of each line must equal the line's own timestamp: a check of
// how the timeline attributes lines to ticks.
func TestObservedTicksMatchTheReferenceStamps(t *testing.T) {
	for _, p := range published(t) {
		if p.Bundle.NeedsRunLog() {
			continue // a torn half line has no stamp of its own (D75)
		}
		in := play(t, p.Bundle, examples.ReferenceName, 3)
		observed := timeline.Build(in)
		in.Log = nil
		stamped := timeline.Build(in)
		require.False(t, stamped.Observed)
		assert.Equal(t, ticksOf(observed, timeline.Impl), ticksOf(stamped, timeline.Impl), p.Name)
	}
}

// ticksOf maps each implementation entry's reference to its tick.
func ticksOf(tl *timeline.Timeline, who string) map[string]int {
	out := map[string]int{}
	for _, e := range tl.Entries {
		if e.Who == who {
			out[e.Ref] = e.Tick
		}
	}
	return out
}

func TestCrashLandsAfterTheWriteItFollowed(t *testing.T) {
	b := bundleNamed(t, "l1-crash-after-send")
	tl := timeline.Build(play(t, b, "weak-send-before-record", 1))
	var story []string
	for _, e := range tl.Entries {
		if e.Tick == 5 {
			story = append(story, e.Who+" "+e.What)
		}
	}
	// The fault at tick 5 lands after one write: the approval's audit
	// record; the weak implementation then sends, and sends again later.
	require.GreaterOrEqual(t, len(story), 3, story)
	assert.Equal(t, []string{"harness approve", "impl audit", "harness crash"}, story[:3])
	text := render(t, tl, timeline.TextOptions{})
	assert.Contains(t, text, "crash after 1 write(s) this tick")
	assert.Contains(t, text, "L1.duplicate-effect")
}

// A crash after a send says it counted sends, not writes (D138).
func TestACrashAfterASendSaysWhatItCounted(t *testing.T) {
	b := bundleNamed(t, "l1-crash-after-send")
	for i := range b.Faults {
		if b.Faults[i].Kind == scenarios.FaultCrash && b.Faults[i].AfterWrites > 0 {
			b.Faults[i].AfterWrites, b.Faults[i].WritesTo = 1, scenarios.SendLog
		}
	}
	text := render(t, timeline.Build(play(t, b, "weak-send-before-record", 1)), timeline.TextOptions{})
	assert.Contains(t, text, "crash after 1 new line(s) of outbox.jsonl this tick")
	assert.NotContains(t, text, "crash after 1 write(s) this tick")
}

// A crash aimed at state.json says it counted versions of it (D157).
func TestACrashAfterAStateSaysWhatItCounted(t *testing.T) {
	b := bundleNamed(t, "l3-fleet-concurrent")
	b.Faults = append(b.Faults, scenarios.Fault{At: 0, Kind: scenarios.FaultCrash, AfterWrites: 1, WritesTo: scenarios.StateFile})
	b.Normalize()
	text := render(t, timeline.Build(play(t, b, "reference", 1)), timeline.TextOptions{})
	assert.Contains(t, text, "crash after 1 new version(s) of state.json this tick")
	assert.NotContains(t, text, "new line(s) of state.json")
}

func TestBindingAndTargetsAreShown(t *testing.T) {
	b := bundleNamed(t, "l4-operator-escalation")
	in := play(t, b, "weak-ignore-escalation", 1)
	tl := timeline.Build(in)
	text := render(t, tl, timeline.TextOptions{Refs: true})
	assert.Contains(t, text, "OPERATOR_ESCALATION -> w-m1")
	assert.Regexp(t, `approve\s+ap1 binds draft d-m1\.agent-1 \(sha256:`, text)
	assert.Contains(t, text, "! checker  violation  L4.send-after-escalation")
	assert.Contains(t, text, "[outbox.jsonl:1")
	// The scenario's one message is escalated before its reply is due, so
	// L0 judged nothing: it reads vacuous, not pass.
	assert.Contains(t, text, "levels: L0 vacuous  L1 pass  L2 pass  L3 pass  L4 FAIL\nvacuous: ")
	assert.Equal(t, []string{"L0"}, tl.Vacuous)
	assert.Equal(t, "pass", tl.Levels["L0"], "levels keep the spec's three values")
	assert.Zero(t, tl.Obligations["L0"])
	assert.Positive(t, tl.Obligations["L4"])
}

func TestExercisedLevelsAreNotVacuous(t *testing.T) {
	tl := timeline.Build(play(t, bundleNamed(t, "l0-respond"), "reference", 1))
	assert.Empty(t, tl.Vacuous)
	assert.Positive(t, tl.Obligations["L0"])
	text := render(t, tl, timeline.TextOptions{})
	assert.Contains(t, text, "levels: L0 pass\n")
	assert.NotContains(t, text, "vacuous")
}

func TestQuietStretchesCollapse(t *testing.T) {
	b := bundleNamed(t, "l2-govern")
	tl := timeline.Build(play(t, b, examples.ReferenceName, 1))
	text := render(t, tl, timeline.TextOptions{})
	// Nothing happens between the crash at 70 and the approval at 105.
	assert.Contains(t, text, "… 34 quiet ticks …")
	assert.Contains(t, text, "no violations")
	lines := strings.Count(text, "\n")
	assert.Less(t, lines, 90, "a person reads it in a minute")
	// A higher threshold hides shorter stretches.
	high := render(t, tl, timeline.TextOptions{Quiet: 20})
	assert.NotContains(t, high, "… 9 quiet ticks …")
	assert.Contains(t, high, "… 34 quiet ticks …")
}

func TestJumpsAreShownAndNotCountedQuiet(t *testing.T) {
	b := bundleNamed(t, "l2-tick-jump-intake")
	tl := timeline.Build(play(t, b, examples.ReferenceName, 1))
	text := render(t, tl, timeline.TextOptions{})
	assert.Contains(t, text, "the clock jumps from 5 to 45")
	assert.NotContains(t, text, "… 39 quiet ticks …")
}

func TestSameRunSameTimeline(t *testing.T) {
	b := bundleNamed(t, "l3-fleet-concurrent-redelivery")
	a := timeline.Build(play(t, b, "weak-stale-state", 11))
	c := timeline.Build(play(t, b, "weak-stale-state", 11))
	assert.Equal(t, render(t, a, timeline.TextOptions{Refs: true}), render(t, c, timeline.TextOptions{Refs: true}))
	ja, err := json.Marshal(a)
	require.NoError(t, err)
	jc, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Equal(t, string(ja), string(jc))
	var back timeline.Timeline
	require.NoError(t, json.Unmarshal(ja, &back))
	assert.Equal(t, a.Entries, back.Entries)
	assert.Equal(t, a.Levels, back.Levels)
}

func TestBadLinesAndMissingParts(t *testing.T) {
	b := bundleNamed(t, "l0-respond")
	in := play(t, b, examples.ReferenceName, 1)
	in.Files[sandbox.Outbox] = append(append([]byte(nil), in.Files[sandbox.Outbox]...), []byte("not json\n")...)
	in.Verdict = checker.Check(checker.Input{Bundle: b, Files: in.Files, Log: in.Log})
	tl := timeline.Build(in)
	assert.Equal(t, 1, count(tl, timeline.Impl, "bad-line"))
	assert.Contains(t, render(t, tl, timeline.TextOptions{}), "outbox.jsonl:2: not a JSON object")

	empty := timeline.Build(timeline.Input{})
	assert.Empty(t, empty.Entries)
	assert.NotPanics(t, func() { render(t, empty, timeline.TextOptions{}) })
}

func render(t *testing.T, tl *timeline.Timeline, opts timeline.TextOptions) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tl.WriteText(&buf, opts))
	return buf.String()
}
