package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/scenarios"
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
// profile.json: which run it was and everything drawn from its seed.
type ProfileRecord struct {
	Kind         string   `json:"kind"`
	CampaignSeed *uint64  `json:"campaign_seed,omitempty"`
	Run          int      `json:"run"`
	Seed         *uint64  `json:"seed,omitempty"`
	EngineSeed   uint64   `json:"engine_seed"`
	Source       string   `json:"source"`
	Profile      *Profile `json:"profile,omitempty"`
}

// Record returns the counterexample's profile record. campaign is the
// campaign seed, used only for generated runs.
func (cx *Counterexample) Record(campaign uint64) ProfileRecord {
	r := ProfileRecord{Kind: "profile", Run: cx.Index, EngineSeed: cx.EngineSeed, Source: cx.Source}
	if cx.Seeded {
		seed := cx.Seed
		r.Seed = &seed
	}
	if cx.Source == "generated" {
		c := campaign
		r.CampaignSeed = &c
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
func WriteCounterexample(dir string, cx *Counterexample, campaign uint64) error {
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
	rr := suite.NewRunReport(1, cx.EngineSeed, cx.Result, cx.Judgement)
	if err := suite.KeepJudged(dir, cx.Result, rr, cx.Judgement); err != nil {
		return err
	}
	data, err := json.MarshalIndent(cx.Record(campaign), "", "  ")
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
	if cx.Seeded {
		args = append(args, "--seed", strconv.FormatUint(cx.Seed, 10))
	}
	if maxSteps > 0 {
		args = append(args, "--max-steps", strconv.Itoa(maxSteps))
	}
	return shell.Join(append(args, bundlePath)...)
}
