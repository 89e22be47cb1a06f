package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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

// DefaultOutDir is where a campaign's counterexample is written unless told
// otherwise.
func DefaultOutDir(impl string, seed uint64) string {
	return filepath.Join(".amr", "fuzz", impl, strconv.FormatUint(seed, 10))
}

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
// log, the verdict and the profile record. The bundle/ and sandbox/
// subdirectories are replaced.
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
	res := cx.Result
	rr := suite.RunReport{Run: 1, Seed: cx.EngineSeed, Levels: suite.LevelMap(cx.Verdict.Levels), Origin: cx.Verdict.Origin,
		Violations: cx.Verdict.Violations, Ticks: res.Ticks, Steps: res.Steps, Crashes: res.Crashes, Forced: res.Forced}
	if err := suite.Keep(dir, res, rr); err != nil {
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
	args := []string{"amr", "run"}
	for _, f := range implFlags {
		args = append(args, shellQuote(f))
	}
	args = append(args, "--runs", "1")
	if cx.Seeded {
		args = append(args, "--seed", strconv.FormatUint(cx.Seed, 10))
	}
	if maxSteps > 0 {
		args = append(args, "--max-steps", strconv.Itoa(maxSteps))
	}
	return strings.Join(append(args, shellQuote(bundlePath)), " ")
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
