package fuzz

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/amr-bench/amr/sim"
)

// The subdirectories of a campaign's output directory a failure is
// written to: the run as found, its shrunk form, or a run on which the
// oracles disagreed.
const (
	RawDir     = "raw"
	ShrunkDir  = "shrunk"
	InvalidDir = "invalid"
	// ShrinkJSON holds the shrink's statistics beside the shrunk run.
	ShrinkJSON = "shrink.json"
)

// WriteRaw writes a counterexample as found into out/raw, after removing
// what an earlier campaign left in raw/, shrunk/ and invalid/, so the
// directory never mixes two failures. It returns the raw directory.
func WriteRaw(out string, cx *Counterexample) (string, error) {
	for _, sub := range []string{RawDir, ShrunkDir, InvalidDir} {
		if err := os.RemoveAll(filepath.Join(out, sub)); err != nil {
			return "", err
		}
	}
	raw := filepath.Join(out, RawDir)
	if err := WriteCounterexample(raw, cx); err != nil {
		return "", fmt.Errorf("writing the counterexample to %s: %w", raw, err)
	}
	return raw, nil
}

// WriteInvalid writes a run on which the oracles disagreed into
// out/invalid and returns that directory.
func WriteInvalid(out string, cx *Counterexample) (string, error) {
	path := filepath.Join(out, InvalidDir)
	if err := os.RemoveAll(path); err != nil {
		return "", err
	}
	if err := WriteCounterexample(path, cx); err != nil {
		return "", fmt.Errorf("writing the invalid run to %s: %w", path, err)
	}
	return path, nil
}

// ShrinkCounterexample shrinks a campaign's counterexample against the
// invariant it violated first, under the run seed it was found with, and
// replays the shrunk bundle: the replay is returned as a counterexample of
// its own, with the shrink. Everything stays in memory; req's Invariant
// and RunSeed are taken from the counterexample. An error says why the raw
// counterexample stands alone.
func ShrinkCounterexample(cx *Counterexample, req ShrinkRequest) (*Counterexample, *Shrunk, error) {
	req.Invariant, req.RunSeed = cx.Verdict().Violations[0].Invariant, nil
	if run, ok := GivenRunSeed(cx.Run); ok {
		req.RunSeed = &run
	}
	// A process that outran a crash's cut may not fail again: say why.
	why := ""
	traced := len(cx.Result.Log) > 0 && cx.Result.Log[0].Start().Params["cut"] == sim.CutTrace
	if req.Impl.Process != nil && len(sim.CutsOf(cx.Result.Log)) > 0 && !traced {
		why = " (a crash cut this process inside a tick, and a process may outrun such a cut: docs/processes.md)"
	}
	s, err := Shrink(cx.Bundle, req)
	if err != nil {
		return nil, nil, fmt.Errorf("%w%s", err, why)
	}
	p, ok := FailingPlay(s.Bundle, req.Impl, s.Invariant, req.RunSeed, req.MaxSteps)
	if !ok {
		if why == "" {
			why = ": the implementation is not deterministic"
		}
		return nil, nil, fmt.Errorf("the shrunk bundle did not fail the same way when replayed%s", why)
	}
	p.Seeds.Campaign = cx.Seeds.Campaign
	r := &Run{Run: p, Index: cx.Index, Profile: cx.Profile}
	return &Counterexample{Run: r, Source: cx.Source}, s, nil
}

// WriteShrunk writes a shrunk counterexample into dir, as WriteCounterexample
// does, with the shrink's statistics as shrink.json.
func WriteShrunk(dir string, shrunk *Counterexample, s *Shrunk) error {
	if err := WriteCounterexample(dir, shrunk); err != nil {
		return fmt.Errorf("writing the shrunk counterexample to %s: %v", dir, err)
	}
	data, err := json.MarshalIndent(s.Stats, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ShrinkJSON), append(data, '\n'), 0o644)
}
