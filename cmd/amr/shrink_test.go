package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/shrink"
	"github.com/amr-bench/amr/suite"
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
	p, err := faults.Play(b, suite.Impl{Name: im.Name, New: im.New}, nil, 0)
	require.NoError(t, err)
	for _, v := range p.Verdict.Violations {
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
	ref, err := lookupImpl(examples.ReferenceName)
	require.NoError(t, err)
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
			impl := suite.Impl{Name: im.Name, New: im.New}
			res, err := shrinkBundle(b, shrinkRequest{impl: impl, invariant: inv, control: &ref})
			require.NoError(t, err)
			out := res.bundle
			require.Empty(t, scenarios.Validate(out, nil).Errors())
			assert.False(t, res.stats.BudgetHit)
			assert.LessOrEqual(t, res.stats.EventsAfter, res.stats.EventsBefore)
			assert.LessOrEqual(t, res.stats.TicksAfter, res.stats.TicksBefore)

			p, err := faults.Play(out, impl, nil, 0)
			require.NoError(t, err)
			assert.True(t, violates(p.Verdict, inv), "the shrunk bundle must fail the same invariant")
			c, err := faults.Play(out, ref, nil, 0)
			require.NoError(t, err)
			assert.False(t, c.Verdict.Failed(), "the reference must pass the shrunk bundle: %v", c.Verdict.Violations)

			oracle := failsWith(impl, inv, nil, &ref, 0)
			for _, e := range shrink.Events(out) {
				cand := shrink.Without(out, []shrink.Event{e})
				if len(scenarios.Validate(cand, nil).Errors()) > 0 {
					continue
				}
				assert.False(t, oracle(cand), "not 1-minimal: it still fails without %s", shrink.Describe(out, e))
			}

			o := out.Meta.Origin
			require.NotNil(t, o)
			assert.Equal(t, originShrunk, o.Kind)
			assert.Equal(t, im.Name, o.Impl)
			assert.Equal(t, inv, o.Invariant)
			assert.Equal(t, res.originalHash, o.OriginalHash)
			assert.Equal(t, res.shrunkHash, o.ShrunkHash)
			rows = append(rows, row{im.Name, im.Scenario, inv, res.stats})
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

func TestShrinkCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "shrunk")
	stdout, stderr, code := execAMR(t, "shrink", "../../scenarios/l2-govern", "--impl", "weak-send-without-approval",
		"--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "shrunk l2-govern: weak-send-without-approval violates L2.approval-binding")
	assert.Contains(t, stdout, "replay: amr replay "+out+" --impl weak-send-without-approval")
	b, _, err := scenarios.LoadDir(out)
	require.NoError(t, err)
	assert.Equal(t, "shrunk", b.Meta.Origin.Kind)
	assert.Less(t, len(shrink.Events(b)), 21)

	// --json carries the same bundle and the statistics.
	stdout, stderr, code = execAMR(t, "shrink", "../../scenarios/l2-govern", "--impl", "weak-send-without-approval", "--json")
	require.Equal(t, exitOK, code, stderr)
	var doc shrinkJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, "L2.approval-binding", doc.Invariant)
	assert.Equal(t, 21, doc.Stats.EventsBefore)
	assert.Equal(t, len(shrink.Events(b)), doc.Stats.EventsAfter)
	assert.Equal(t, "reference", doc.Control)
	assert.Equal(t, b.Meta.Origin.ShrunkHash, doc.ShrunkHash, "deterministic")

	// A seed is passed on to the replay command; a generated original's
	// campaign seed and run are kept.
	gen := publishedBundle(t, "l0-respond")
	gen.Meta.Origin = &scenarios.Origin{Kind: "generated", CampaignSeed: "18446744073709551615", Run: "3"}
	genPath := filepath.Join(dir, "generated.json")
	require.NoError(t, scenarios.SaveJSON(gen, genPath))
	stdout, stderr, code = execAMR(t, "shrink", genPath, "--impl", "weak-no-send", "--seed", "18446744073709551615", "--json")
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, "18446744073709551615", doc.Bundle.Meta.Origin.CampaignSeed)
	assert.Equal(t, "3", doc.Bundle.Meta.Origin.Run)
	assert.Equal(t, "shrunk", doc.Bundle.Meta.Origin.Kind)
	assert.Equal(t, "BUNDLE", strings.Fields(doc.Replay)[2])
	assert.Contains(t, doc.Replay, "--seed 18446744073709551615")
}

func TestShrinkCommandRefuses(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format": 1}`), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no impl", []string{"../../scenarios/l0-respond"}, "needs --impl"},
		{"unknown impl", []string{"../../scenarios/l0-respond", "--impl", "nobody"}, "unknown implementation"},
		{"unknown invariant", []string{"../../scenarios/l0-respond", "--impl", "weak-no-send", "--invariant", "L9.nothing"}, "unknown invariant"},
		{"passing bundle", []string{"../../scenarios/l0-respond", "--impl", "reference"}, "nothing to shrink"},
		{"another invariant", []string{"../../scenarios/l0-respond", "--impl", "weak-no-send", "--invariant", "L0.outbox-declared"}, "does not violate L0.outbox-declared"},
		{"bad bundle", []string{bad, "--impl", "weak-no-send"}, "bad bundle input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := execAMR(t, append([]string{"shrink"}, tc.args...)...)
			assert.Equal(t, exitBad, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// TestShrinkGeneratedCounterexamples shrinks what the fault search finds:
// the first failing generated run of a campaign, replayed with its run seed
// as 'amr fuzz' prints it.
func TestShrinkGeneratedCounterexamples(t *testing.T) {
	ref, err := lookupImpl(examples.ReferenceName)
	require.NoError(t, err)
	for _, im := range examples.All() {
		if im.Kind != examples.KindWeak || !declaresAnInvariant(im) {
			continue
		}
		name := im.Name
		t.Run(name, func(t *testing.T) {
			impl, err := lookupImpl(name)
			require.NoError(t, err)
			found := firstFailingRun(t, impl, 99, 200)
			seed := uint64(*found.Seeds.Run)
			res, err := shrinkBundle(found.Bundle, shrinkRequest{impl: impl, runSeed: &seed, control: &ref})
			require.NoError(t, err)
			assert.False(t, res.stats.BudgetHit)
			assert.LessOrEqual(t, res.stats.EventsAfter, 6)
			assert.Less(t, res.stats.EventsAfter, res.stats.EventsBefore)
			assert.Equal(t, found.Bundle.Meta.Origin.CampaignSeed, res.bundle.Meta.Origin.CampaignSeed)
			assert.Equal(t, found.Bundle.Meta.Origin.Run, res.bundle.Meta.Origin.Run)
			oracle := failsWith(impl, res.invariant, &seed, &ref, 0)
			require.True(t, oracle(res.bundle))
			for _, e := range shrink.Events(res.bundle) {
				cand := shrink.Without(res.bundle, []shrink.Event{e})
				if len(scenarios.Validate(cand, nil).Errors()) == 0 {
					assert.False(t, oracle(cand), "not 1-minimal: it still fails without %s", shrink.Describe(res.bundle, e))
				}
			}
			t.Logf("run %d, %s: events %d -> %d, horizon %d -> %d, %d oracle calls, %s", found.Index, res.invariant,
				res.stats.EventsBefore, res.stats.EventsAfter, res.stats.TicksBefore, res.stats.TicksAfter,
				res.stats.OracleCalls, res.stats.Elapsed.Round(time.Millisecond))
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
func firstFailingRun(t *testing.T, impl suite.Impl, campaign uint64, max int) *faults.Run {
	t.Helper()
	for i := range max {
		r, err := faults.PlayGenerated(campaign, i, faults.DefaultPreset, impl, 0)
		require.NoError(t, err)
		if r.Failed() {
			return r
		}
	}
	t.Fatalf("%s: no failing run among the first %d of campaign %d", impl.Name, max, campaign)
	return nil
}
