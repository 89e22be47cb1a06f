package fuzz

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/shrink"
)

func publishedBundle(t *testing.T, name string) *scenarios.Bundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		if p.Name == name {
			return p.Bundle.Clone()
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

// firstTarget is the first violation of a weak implementation's published
// scenario whose invariant is one of the implementation's targets.
func firstTarget(t *testing.T, b *scenarios.Bundle, im examples.Impl) string {
	t.Helper()
	p, err := play.Play(b, play.Impl{Name: im.Name, New: im.New}, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	for _, v := range p.Verdict().Violations {
		if slices.Contains(im.Targets, v.Invariant) {
			return v.Invariant
		}
	}
	t.Fatalf("%s: no target violated on %s", im.Name, b.Meta.Name)
	return ""
}

// TestShrinkZoo shrinks every weak implementation's published scenario
// against its first target invariant, with the reference as control, and
// checks what a shrink promises: the same invariant still fails, the
// reference passes, every single event matters, and the budget was not
// needed.
func TestShrinkZoo(t *testing.T) {
	ref := builtin(t, examples.ReferenceName)
	type row struct {
		impl, scenario, invariant string
		stats                     shrink.Stats
	}
	var rows []row
	for _, im := range examples.All() {
		if im.Kind != examples.KindWeak {
			continue
		}
		t.Run(im.Name, func(t *testing.T) {
			if !slices.ContainsFunc(im.Targets, func(id string) bool { _, ok := checker.Lookup(id); return ok }) {
				t.Skipf("its targets %v are diagnostics, not invariants: nothing to shrink against", im.Targets)
			}
			if im.Scenario == "" {
				t.Skip("a scenario gap: no published bundle fails it, so there is nothing to shrink")
			}
			b := publishedBundle(t, im.Scenario)
			inv := firstTarget(t, b, im)
			impl := play.Impl{Name: im.Name, New: im.New}
			res, err := Shrink(b, ShrinkRequest{Impl: impl, Invariant: inv, Control: &ref})
			require.NoError(t, err)
			out := res.Bundle
			require.Empty(t, scenarios.Validate(out, nil).Errors())
			assert.False(t, res.Stats.BudgetHit)
			assert.LessOrEqual(t, res.Stats.EventsAfter, res.Stats.EventsBefore)
			assert.LessOrEqual(t, res.Stats.TicksAfter, res.Stats.TicksBefore)

			p, err := Play(out, impl, nil, 0)
			require.NoError(t, err)
			assert.True(t, p.Violates(inv), "the shrunk bundle must fail the same invariant")
			c, err := Play(out, ref, nil, 0)
			require.NoError(t, err)
			assert.False(t, c.Verdict().Failed(), "the reference must pass the shrunk bundle: %v", c.Verdict().Violations)

			oracle := FailsWith(impl, inv, nil, &ref, 0)
			for _, e := range shrink.Events(out) {
				cand := shrink.Without(out, []shrink.Event{e})
				if len(scenarios.Validate(cand, nil).Errors()) > 0 {
					continue
				}
				assert.False(t, oracle(cand), "not 1-minimal: it still fails without %s", shrink.Describe(out, e))
			}

			o := out.Meta.Origin
			require.NotNil(t, o)
			assert.Equal(t, OriginShrunk, o.Kind)
			assert.Equal(t, im.Name, o.Impl)
			assert.Equal(t, inv, o.Invariant)
			assert.Equal(t, res.OriginalHash, o.OriginalHash)
			assert.Equal(t, res.ShrunkHash, o.ShrunkHash)
			rows = append(rows, row{im.Name, im.Scenario, inv, res.Stats})
		})
	}
	var events []int
	var table strings.Builder
	fmt.Fprintf(&table, "%-36s %-32s %-26s %7s %6s %6s %5s\n", "impl", "scenario", "invariant", "events", "ticks", "calls", "ms")
	for _, r := range rows {
		s := r.stats
		events = append(events, s.EventsAfter)
		fmt.Fprintf(&table, "%-36s %-32s %-26s %3d->%-2d %3d->%-2d %5d %5d\n", r.impl, r.scenario, r.invariant,
			s.EventsBefore, s.EventsAfter, s.TicksBefore, s.TicksAfter, s.OracleCalls, s.Elapsed.Milliseconds())
	}
	t.Log("\n" + table.String())
	sort.Ints(events)
	if len(events) > 0 {
		assert.LessOrEqual(t, events[len(events)/2], 6, "median shrunk size")
	}
}

// TestShrinkGeneratedCounterexamples shrinks what the fault search finds:
// the first failing generated run of a campaign, replayed with its run seed
// as 'amr fuzz' prints it.
func TestShrinkGeneratedCounterexamples(t *testing.T) {
	ref := builtin(t, examples.ReferenceName)
	for _, im := range examples.All() {
		if im.Kind != examples.KindWeak || !declaresAnInvariant(im) {
			continue
		}
		name := im.Name
		t.Run(name, func(t *testing.T) {
			impl := builtin(t, name)
			found := firstFailingRun(t, impl, 99, 200)
			seed := uint64(*found.Seeds.Run)
			res, err := Shrink(found.Bundle, ShrinkRequest{Impl: impl, RunSeed: &seed, Control: &ref})
			require.NoError(t, err)
			assert.False(t, res.Stats.BudgetHit)
			assert.LessOrEqual(t, res.Stats.EventsAfter, 6)
			assert.Less(t, res.Stats.EventsAfter, res.Stats.EventsBefore)
			assert.Equal(t, found.Bundle.Meta.Origin.CampaignSeed, res.Bundle.Meta.Origin.CampaignSeed)
			assert.Equal(t, found.Bundle.Meta.Origin.Run, res.Bundle.Meta.Origin.Run)
			oracle := FailsWith(impl, res.Invariant, &seed, &ref, 0)
			require.True(t, oracle(res.Bundle))
			for _, e := range shrink.Events(res.Bundle) {
				cand := shrink.Without(res.Bundle, []shrink.Event{e})
				if len(scenarios.Validate(cand, nil).Errors()) == 0 {
					assert.False(t, oracle(cand), "not 1-minimal: it still fails without %s", shrink.Describe(res.Bundle, e))
				}
			}
			t.Logf("run %d, %s: events %d -> %d, horizon %d -> %d, %d oracle calls, %s", found.Index, res.Invariant,
				res.Stats.EventsBefore, res.Stats.EventsAfter, res.Stats.TicksBefore, res.Stats.TicksAfter,
				res.Stats.OracleCalls, res.Stats.Elapsed.Round(time.Millisecond))
		})
	}
}

// declaresAnInvariant reports whether a weak implementation's defect is
// one the level checker can see (a cost defect is only a diagnostic).
func declaresAnInvariant(im examples.Impl) bool {
	for _, id := range im.Targets {
		if _, ok := checker.Lookup(id); ok {
			return true
		}
	}
	return false
}

// firstFailingRun plays the generated runs of a campaign until one fails,
// failing the test when none of the first max does.
func firstFailingRun(t *testing.T, impl play.Impl, campaign uint64, max int) *Run {
	t.Helper()
	for i := range max {
		r, err := PlayGenerated(campaign, i, faults.DefaultPreset, impl, 0)
		require.NoError(t, err)
		if r.Failed() {
			return r
		}
	}
	t.Fatalf("%s: no failing run among the first %d of campaign %d", impl.Name, max, campaign)
	return nil
}
