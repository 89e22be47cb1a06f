package report_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

// The fixtures are made the way the commands make them: amr run --out
// (suite.Run with Out, then report.json), amr replay --out (one judged play
// kept) and amr fuzz --out (a campaign's counterexample, raw and shrunk).

func implNamed(t testing.TB, name string) play.Impl {
	t.Helper()
	impl, ok := examples.Lookup(name)
	require.True(t, ok, "no built-in implementation %q", name)
	return play.Impl{Name: impl.Name, New: impl.New}
}

func publishedNamed(t testing.TB, names ...string) []*scenarios.Bundle {
	t.Helper()
	all, err := scenarios.Published()
	require.NoError(t, err)
	var out []*scenarios.Bundle
	for _, p := range all {
		if len(names) == 0 {
			out = append(out, p.Bundle)
			continue
		}
		for _, n := range names {
			if p.Name == n {
				out = append(out, p.Bundle)
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// keepSuite plays bundles as amr run --out DIR does and writes
// DIR/report.json.
func keepSuite(t testing.TB, dir, implName string, runs int, bundles []*scenarios.Bundle) string {
	t.Helper()
	impl := implNamed(t, implName)
	doc := struct {
		Impl    string          `json:"impl"`
		Runs    int             `json:"runs"`
		Results []*suite.Report `json:"results"`
	}{Impl: implName, Runs: runs}
	for _, b := range bundles {
		r, err := suite.Run(b, impl, suite.Config{Runs: runs, Out: dir})
		require.NoError(t, err)
		doc.Results = append(doc.Results, r)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644))
	return dir
}

// keepReplay plays a bundle once, as amr replay --out DIR does.
func keepReplay(t testing.TB, dir string, b *scenarios.Bundle, implName string, runSeed uint64) string {
	t.Helper()
	p, err := play.Play(b, implNamed(t, implName), seeds.OfScored(runSeed, 1), play.Options{})
	require.NoError(t, err)
	rr := suite.NewRunReport(1, p.Seeds, p.Result, p.Judgement)
	require.NoError(t, suite.KeepJudged(dir, p.Result, rr, p.Judgement))
	return dir
}

// keepCounterexample runs the fault search the README runs (seed 7 against
// weak-send-before-record) and keeps its counterexample as amr fuzz --out
// DIR does.
func keepCounterexample(t testing.TB, dir string) string {
	t.Helper()
	impl := implNamed(t, "weak-send-before-record")
	sum, err := fuzz.Campaign(context.Background(), fuzz.Config{Impl: impl, Seed: 7, Runs: 5000, Workers: 1})
	require.NoError(t, err)
	require.NotNil(t, sum.Failure, "the campaign found no counterexample")
	_, err = fuzz.WriteRaw(dir, sum.Failure)
	require.NoError(t, err)
	ref := implNamed(t, examples.ReferenceName)
	shrunk, s, err := fuzz.ShrinkCounterexample(sum.Failure, fuzz.ShrinkRequest{Impl: impl, Control: &ref})
	require.NoError(t, err)
	require.NoError(t, fuzz.WriteShrunk(filepath.Join(dir, fuzz.ShrunkDir), shrunk, s))
	return dir
}
