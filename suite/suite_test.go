package suite_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/amr-bench/amr/suite"
)

func published(t testing.TB) []scenarios.PublishedBundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	require.NotEmpty(t, pubs)
	return pubs
}

func impl(t testing.TB, name string) play.Impl {
	t.Helper()
	i, ok := examples.Lookup(name)
	require.True(t, ok, "implementation %s", name)
	return play.Impl{Name: i.Name, New: i.New}
}

func TestReferencePassesEveryPublishedScenarioFiveRuns(t *testing.T) {
	ref := impl(t, "reference")
	for _, p := range published(t) {
		rep, err := suite.Run(p.Bundle, ref, suite.Config{Runs: 5})
		require.NoError(t, err)
		assert.True(t, rep.Passed(), "%s: %v %+v", p.Name, rep.Levels, rep.Violations)
		assert.Empty(t, rep.Violations, p.Name)
		for l := rep.TopLevel + 1; l < 7; l++ {
			assert.Equal(t, suite.Untested, rep.Levels[suite.LevelNames[l]])
		}
	}
}

// Every weak implementation must fail the published scenario it names, with
// one of the invariant ids it declares: the checker is not a rubber stamp.
func TestEveryWeakImplementationIsCaughtByItsScenario(t *testing.T) {
	pubs := map[string]*scenarios.Bundle{}
	for _, p := range published(t) {
		pubs[p.Name] = p.Bundle
	}
	covered := map[string]bool{}
	for _, wi := range examples.All() {
		if wi.Kind != "weak" {
			continue
		}
		t.Run(wi.Name, func(t *testing.T) {
			require.NotEmpty(t, wi.Targets)
			if wi.Scenario == "" {
				t.Skip("a scenario gap: no published scenario exercises it (examples/gap_test.go holds it)")
			}
			b, ok := pubs[wi.Scenario]
			require.True(t, ok, "scenario %s is published", wi.Scenario)
			covered[wi.Scenario] = true
			rep, err := suite.Run(b, play.Impl{Name: wi.Name, New: wi.New}, suite.Config{Runs: 5})
			require.NoError(t, err)
			if diagnosticOnly(wi.Targets) {
				// A cost defect breaks no invariant: the surprise
				// diagnostic is what must catch it.
				assert.Equal(t, []string{"surprise.unattributed-call"}, wi.Targets)
				assert.Positive(t, rep.Surprise.Unattributed, "%s shows no unattributed model call on %s", wi.Name, wi.Scenario)
				return
			}
			assert.False(t, rep.Passed())
			found := map[string]bool{}
			for _, v := range rep.Violations {
				found[v.Invariant] = true
			}
			hit := false
			for _, target := range wi.Targets {
				hit = hit || found[target]
			}
			assert.True(t, hit, "%s on %s tripped %v, want one of %v", wi.Name, wi.Scenario, keys(found), wi.Targets)
		})
	}
	// A scenario no weak implementation names (a promoted counterexample,
	// say) must still catch one: some weak implementation fails a level of
	// it. The baseline then records that, and 'amr regress' reports it
	// lost if it ever passes.
	for _, name := range slices.Sorted(maps.Keys(pubs)) {
		if covered[name] {
			continue
		}
		assert.NotEmpty(t, weakFailing(t, pubs[name]),
			"published scenario %s catches no weak implementation: none names it in examples/registry.go and none fails it", name)
	}
}

// The rule above has teeth both ways: a scenario with nothing in it
// catches no weak implementation, l0-respond catches weak-no-send.
func TestWeakFailingSeesWhatAScenarioCatches(t *testing.T) {
	pubs := map[string]*scenarios.Bundle{}
	for _, p := range published(t) {
		pubs[p.Name] = p.Bundle
	}
	empty := pubs["l0-respond"].Clone()
	empty.Meta.Name = "l0-nothing"
	empty.Inbox, empty.Approvals, empty.Signals, empty.Faults = nil, nil, nil, nil
	require.Empty(t, scenarios.Validate(empty, nil).Errors())
	assert.Empty(t, weakFailing(t, empty))
	assert.Contains(t, weakFailing(t, pubs["l0-respond"]), "weak-no-send")
}

// weakFailing lists the weak implementations that fail a level of b.
func weakFailing(t *testing.T, b *scenarios.Bundle) []string {
	var out []string
	for _, wi := range examples.All() {
		if wi.Kind != "weak" {
			continue
		}
		rep, err := suite.Run(b, play.Impl{Name: wi.Name, New: wi.New}, suite.Config{Runs: 5})
		require.NoError(t, err)
		for _, v := range rep.Levels {
			if v == suite.Fail {
				out = append(out, wi.Name)
				break
			}
		}
	}
	return out
}

// diagnosticOnly reports whether every target names a diagnostic rather
// than a level invariant.
func diagnosticOnly(targets []string) bool {
	for _, id := range targets {
		if _, ok := checker.Lookup(id); ok {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Two runs of the whole suite write identical bytes: reports, sandboxes and
// run logs.
func TestSuiteIsDeterministic(t *testing.T) {
	ref := impl(t, "reference")
	render := func(out string) []byte {
		var reps []*suite.Report
		for _, p := range published(t) {
			rep, err := suite.Run(p.Bundle, ref, suite.Config{Runs: 2, Out: out})
			require.NoError(t, err)
			reps = append(reps, rep)
		}
		data, err := json.Marshal(reps)
		require.NoError(t, err)
		return data
	}
	a, b := t.TempDir(), t.TempDir()
	require.Equal(t, render(a), render(b))
	filesA, filesB := tree(t, a), tree(t, b)
	require.Equal(t, len(filesA), len(filesB))
	require.NotEmpty(t, filesA)
	for name, data := range filesA {
		assert.Equal(t, data, filesB[name], name)
	}
}

func tree(t *testing.T, root string) map[string][]byte {
	out := map[string][]byte{}
	require.NoError(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		out[rel] = data
		return err
	}))
	return out
}

// Judging a kept sandbox from disk gives the verdict the run gave, with the
// run log and, for these scenarios, without it.
func TestCheckOnKeptArtifactsAgreesWithTheRun(t *testing.T) {
	out := t.TempDir()
	for _, name := range []string{"reference", "weak-ignore-escalation", "weak-stale-state", "weak-memory-pending"} {
		im := impl(t, name)
		for _, p := range published(t) {
			rep, err := suite.Run(p.Bundle, im, suite.Config{Runs: 1, Out: filepath.Join(out, name)})
			require.NoError(t, err)
			dir := filepath.Join(out, name, p.Name, "run-1")
			files := map[string][]byte{}
			d := &sandbox.Dir{Root: filepath.Join(dir, "sandbox")}
			for _, n := range d.Names() {
				files[n], _ = d.Read(n)
			}
			logData, err := os.ReadFile(filepath.Join(dir, sandbox.RunLogFile))
			require.NoError(t, err)
			log, err := sandbox.ParseRunLog(logData)
			require.NoError(t, err)
			v := checker.Check(checker.Input{Bundle: p.Bundle, Files: files, Log: log})
			assert.Equal(t, rep.Runs[0].Levels, suite.LevelMap(v.Levels), "%s on %s", name, p.Name)
			assert.Equal(t, len(rep.Runs[0].Violations), len(v.Violations), "%s on %s", name, p.Name)
		}
	}
}

// Scored run i plays with the engine seed derived from the bundle's run
// seed and i: the one given, or the bundle's own from its name.
func TestRunsPlayWithTheEngineSeedsOfTheRunSeed(t *testing.T) {
	b := published(t)[0].Bundle
	ref := impl(t, "reference")
	given := uint64(7)
	for _, run := range []*uint64{nil, &given} {
		rep, err := suite.Run(b, ref, suite.Config{Runs: 2, RunSeed: run})
		require.NoError(t, err)
		for i, rr := range rep.Runs {
			assert.Equal(t, seeds.OfScored(seeds.RunOr(run, b.Meta.Name), i+1), rr.Seeds)
		}
		assert.NotEqual(t, rep.Runs[0].Engine, rep.Runs[1].Engine)
	}
}
