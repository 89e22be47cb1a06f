package fuzz

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
)

// zooBudget is the most runs a campaign may take to find a weak
// implementation in the zoo test.
const zooBudget = 2000

// weakOnes lists the weak implementations whose defect the level
// invariants can catch: at least one declared target is a checker
// invariant. A defect declared only by a diagnostic (a cost defect such as
// redrafting on every tick) breaks no invariant, so no campaign judged by
// the checker can find it.
func weakOnes() []examples.Impl {
	var out []examples.Impl
	for _, im := range examples.All() {
		if im.Kind != examples.KindWeak {
			continue
		}
		for _, id := range im.Targets {
			if _, ok := checker.Lookup(id); ok {
				out = append(out, im)
				break
			}
		}
	}
	return out
}

func hitsTarget(r *Run, targets []string) bool {
	for _, id := range r.Invariants() {
		for _, want := range targets {
			if id == want {
				return true
			}
		}
	}
	return false
}

// Every planted defect is found from generation alone — no corpus, no
// published scenario — within a modest budget, and the counterexample trips
// one of the invariants the weak implementation declares.
func TestFuzzerFindsEveryWeakImplementation(t *testing.T) {
	seeds := []uint64{1, 2}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, im := range weakOnes() {
		t.Run(im.Name, func(t *testing.T) {
			for _, seed := range seeds {
				sum := runCampaign(t, Config{Impl: play.Impl{Name: im.Name, New: im.New}, Seed: seed, Runs: zooBudget})
				require.NotNil(t, sum.Failure, "seed %d: not found in %d runs", seed, zooBudget)
				require.True(t, hitsTarget(sum.Failure.Run, im.Targets),
					"seed %d, run %d: found %v, but the declared targets are %v", seed, sum.Failure.Index, sum.Failure.Invariants(), im.Targets)
			}
		})
	}
}

// TestZooTable measures, for each weak implementation, the runs and the
// time to the first failure over 20 campaign seeds (one worker), and prints
// the table docs/fuzz.md quotes. It runs only with AMR_ZOO_TABLE=1:
//
//	AMR_ZOO_TABLE=1 go test ./fuzz -run TestZooTable -v -timeout 30m
func TestZooTable(t *testing.T) {
	if os.Getenv("AMR_ZOO_TABLE") != "1" {
		t.Skip("set AMR_ZOO_TABLE=1 to measure the zoo table")
	}
	const seeds = 20
	var b strings.Builder
	b.WriteString("| weak implementation | invariant found (most often) | median runs | median seconds | found |\n")
	b.WriteString("|---|---|---:|---:|---:|\n")
	for _, im := range weakOnes() {
		var runs []int
		var secs []float64
		found := map[string]int{}
		for seed := uint64(1); seed <= seeds; seed++ {
			start := time.Now()
			sum := runCampaign(t, Config{Impl: play.Impl{Name: im.Name, New: im.New}, Seed: seed, Runs: 100_000, Workers: 1})
			if sum.Failure == nil {
				continue
			}
			runs = append(runs, sum.Failure.Index+1)
			secs = append(secs, time.Since(start).Seconds())
			for _, id := range sum.Failure.Invariants() {
				for _, want := range im.Targets {
					if id == want {
						found[id]++
					}
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d/%d |\n", im.Name, mostOften(found), medianInt(runs), medianFloat(secs), len(runs), seeds)
	}
	t.Log("\n" + b.String())
}

func mostOften(counts map[string]int) string {
	best, n := "-", 0
	var ids []string
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if counts[id] > n {
			best, n = id, counts[id]
		}
	}
	return "`" + best + "`"
}

func medianInt(v []int) string {
	if len(v) == 0 {
		return "-"
	}
	sort.Ints(v)
	if len(v)%2 == 1 {
		return fmt.Sprint(v[len(v)/2])
	}
	return fmt.Sprint(float64(v[len(v)/2-1]+v[len(v)/2]) / 2)
}

func medianFloat(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	sort.Float64s(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf("%.3f", m)
}

// Across the whole zoo and the reference, no generated run is INVALID: the
// level checker and the history checker agree on every one, failing runs
// included. Every run of the budget is played (KeepGoing), not only those
// up to the first failure.
func TestZooCampaignsHaveNoInvalidRun(t *testing.T) {
	runs := 100
	if testing.Short() {
		runs = 30
	}
	for _, im := range examples.All() {
		t.Run(im.Name, func(t *testing.T) {
			sum := runCampaign(t, Config{Impl: play.Impl{Name: im.Name, New: im.New}, Seed: 11, Runs: runs, KeepGoing: true})
			require.Equal(t, runs, sum.Runs)
			if sum.Invalid != nil {
				t.Fatalf("run %d is INVALID: %s", sum.Invalid.Index, sum.Invalid.Judgement.Guard.String())
			}
			require.Zero(t, sum.InvalidRuns)
			if im.Kind == examples.KindReference {
				require.Zero(t, sum.FailedRuns, "the reference failed: %v", sum.Found)
			}
		})
	}
}
