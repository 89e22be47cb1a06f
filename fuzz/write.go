package fuzz

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/suite"
)

// What a counterexample directory holds, besides suite.Keep's sandbox/,
// run.jsonl and verdict.json.
const (
	BundleDir   = "bundle"
	BundleJSON  = "bundle.json"
	ProfileJSON = "profile.json"
)

// ProfileRecord is the first record of a run's fuzz log, kept as
// profile.json: which run it was, its seeds, and everything drawn from them.
type ProfileRecord struct {
	Kind string `json:"kind"`
	Run  int    `json:"run"`
	seeds.Seeds
	Source  string          `json:"source"`
	Profile *faults.Profile `json:"profile,omitempty"`
}

// Record returns the counterexample's profile record.
func (cx *Counterexample) Record() ProfileRecord {
	r := ProfileRecord{Kind: "profile", Run: cx.Index, Seeds: cx.Seeds, Source: cx.Source}
	if cx.Source == "generated" {
		p := cx.Profile
		r.Profile = &p
	}
	return r
}

// WriteCounterexample writes everything needed to reproduce a
// counterexample into dir: the bundle in both forms, the sandbox, the run
// log, the compiled history, the verdict (both oracles' answers), the
// profile record and, for a process run, its stdout.log and stderr.log. The
// bundle/ and sandbox/ subdirectories are replaced.
func WriteCounterexample(dir string, cx *Counterexample) error {
	for _, sub := range []string{BundleDir, "sandbox"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := scenarios.SaveDir(cx.Bundle, filepath.Join(dir, BundleDir)); err != nil {
		return fmt.Errorf("writing %s: %w", BundleDir, err)
	}
	if err := scenarios.SaveJSON(cx.Bundle, filepath.Join(dir, BundleJSON)); err != nil {
		return fmt.Errorf("writing %s: %w", BundleJSON, err)
	}
	rr := suite.NewRunReport(1, cx.Seeds, cx.Result, cx.Judgement)
	if err := suite.KeepJudged(dir, cx.Result, rr, cx.Judgement); err != nil {
		return err
	}
	data, err := json.MarshalIndent(cx.Record(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ProfileJSON), append(data, '\n'), 0o644)
}

// ReplayCommand is the one command line that replays a counterexample whose
// bundle was written to bundlePath. implFlags name the implementation as
// amr run takes it, e.g. {"--impl", "reference"} or {"--impl-cmd", "..."}.
func ReplayCommand(implFlags []string, cx *Counterexample, bundlePath string, maxSteps int) string {
	args := append([]string{"amr", "run"}, implFlags...)
	args = append(args, "--runs", "1")
	if run, ok := GivenRunSeed(cx.Run); ok {
		args = append(args, "--seed", strconv.FormatUint(run, 10))
	}
	if maxSteps > 0 {
		args = append(args, "--max-steps", strconv.Itoa(maxSteps))
	}
	return shell.Join(append(args, bundlePath)...)
}

// GivenRunSeed is the run seed a replay of r must be given: none when it is
// the one the bundle's name gives, which a replay derives by itself.
func GivenRunSeed(r *Run) (uint64, bool) {
	if r.Seeds.Run == nil {
		return 0, false
	}
	run := uint64(*r.Seeds.Run)
	return run, run != seeds.Named(r.Bundle.Meta.Name)
}
