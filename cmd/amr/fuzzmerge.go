package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/fuzz"
)

// exitShardInterrupted is the exit code of a shard run as a Job's pod
// (--shard auto/N) that a signal stopped before its budget ended: 128 +
// SIGTERM, as a process killed by it reports. Exit 0 would tell the Job
// the index is done, and the merge would then find its runs missing.
const exitShardInterrupted = 143

// keepResult writes the campaign's result file into --out, so that shards
// of one campaign can be merged (amr fuzz merge); without --out there is
// no folder of the campaign's own to hold it. It returns why the campaign
// ended.
func keepResult(w io.Writer, doc *fuzzJSON, sum *fuzz.Summary, cfg fuzz.Config, pf *processFlags, o fuzzOptions, interrupted bool) (string, error) {
	files := map[string]string{}
	rel := func(path string) string {
		if r, err := filepath.Rel(o.out, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return ""
	}
	switch {
	case o.out == "":
	case doc.Divergence != nil:
		files[fuzz.OutcomeDivergence] = rel(doc.Divergence.Bundle)
	case doc.Invalid != nil:
		files[fuzz.OutcomeInvalid] = rel(doc.Invalid.Dir)
	case doc.Counterexample != nil:
		files[fuzz.OutcomeCounterexample] = rel(doc.Counterexample.Dir)
	}
	if o.out == "" {
		if cfg.Shard.Count > 1 {
			fmt.Fprintf(w, "note: no --out, so this shard's result is not written and 'amr fuzz merge' cannot use it\n")
		}
		return fuzz.Ended(sum, cfg, interrupted), nil
	}
	r, err := fuzz.NewResult(sum, fuzz.ResultInput{Config: cfg, ImplFlags: implFlags(cfg.Impl.Name, pf), Version: version,
		Interrupted: interrupted, Files: files})
	if err != nil {
		return "", err
	}
	path, err := fuzz.WriteResult(o.out, r)
	if err != nil {
		return "", fmt.Errorf("writing the campaign's result: %w", err)
	}
	fmt.Fprintf(w, "result: %s (%s)\n", path, r.Ended)
	return r.Ended, nil
}

// interruptedShard is the error of a Job's pod stopped before its budget
// ended, so that the Job retries the index.
func interruptedShard(shard string, ended string) error {
	if ended != fuzz.EndedInterrupted || !strings.HasPrefix(shard, "auto/") {
		return nil
	}
	return &exitError{code: exitShardInterrupted,
		err: errors.New("interrupted before the shard's budget ended: its result is partial, and the shard must run again")}
}

func newFuzzMergeCmd() *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Merge the results of a sharded campaign into the unsharded campaign's answer",
		Long: `Merge reads the campaign.json that 'amr fuzz --shard k/n --out DIR' (or
--shard auto/n in a Kubernetes Indexed Job) wrote in each DIR and combines them
into the result the unsharded campaign gives: the same first failing run, the
same counterexample, the coverage and counts of exactly the runs the unsharded
campaign judges. With --out the merged campaign.json is written there, with the
files of the run its outcome names (raw/ and shrunk/, invalid/, or bundle.json)
copied from the shard that found it.

Every shard of the count must be given once, and all must be one campaign (the
same implementation, seed, profile, runs, options and amr version). A shard
stops at its own first failure; runs of other shards past the merged first
failure are dropped. A run the merged answer needs that its shard never judged
(it was interrupted) makes the answer undecidable, and names the shard to run
again. See docs/scale.md.

Exit 0 clean, 1 a counterexample, 3 an INVALID run or a divergence, 2 when the
results do not merge: a missing or duplicated shard (named by index), another
campaign's shard, an unreadable result, or an undecidable answer.`,
		Example: `  amr fuzz merge results/0 results/1 results/2 --out merged
  amr fuzz merge results/* --json | jq .first_failure`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			return runFuzzMerge(cmd, dirs, out, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the merged campaign.json and the named run's files here")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged campaign.json on stdout")
	return cmd
}

func runFuzzMerge(cmd *cobra.Command, dirs []string, out string, asJSON bool) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	human := stdout
	if asJSON {
		human = stderr
	}
	var results []*fuzz.Result
	var from []string
	var problems []string
	for _, d := range dirs {
		r, err := fuzz.ReadResult(d)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		results = append(results, r)
		from = append(from, d)
	}
	var m *fuzz.Merged
	if len(results) > 0 {
		var err error
		if m, err = fuzz.Merge(results); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return &exitError{code: exitBad, err: fmt.Errorf("the results do not merge:\n  %s", strings.Join(problems, "\n  "))}
	}
	dir := ""
	if m.From >= 0 {
		dir = shardDir(results, from, m.From)
	}
	if out != "" {
		if err := writeMerged(out, m, dir); err != nil {
			return err
		}
	}
	printMerged(human, m, len(results), dir, out)
	if asJSON {
		data, err := m.Marshal()
		if err != nil {
			return err
		}
		if _, err := stdout.Write(data); err != nil {
			return err
		}
	}
	switch m.Outcome {
	case fuzz.OutcomeInvalid, fuzz.OutcomeDivergence:
		return &exitError{code: exitInvalid}
	case fuzz.OutcomeCounterexample:
		return &exitError{code: exitFail}
	}
	return nil
}

func shardDir(results []*fuzz.Result, dirs []string, index int) string {
	for i, r := range results {
		if r.Shard.Index == index {
			return dirs[i]
		}
	}
	return ""
}

// writeMerged writes the merged result into out and copies the named run's
// files (and, for a counterexample, its shrunk form) from the shard's folder.
func writeMerged(out string, m *fuzz.Merged, shard string) error {
	if rel := m.FilesOf(); rel != "" && shard != "" {
		names := []string{rel}
		if m.Outcome == fuzz.OutcomeCounterexample {
			names = append(names, fuzz.ShrunkDir)
		}
		for _, name := range names {
			dst := filepath.Join(out, filepath.FromSlash(name))
			if err := os.RemoveAll(dst); err != nil {
				return err
			}
			if err := copyTree(filepath.Join(shard, filepath.FromSlash(name)), dst); err != nil {
				return fmt.Errorf("copying %s from %s: %w", name, shard, err)
			}
		}
	}
	if _, err := fuzz.WriteResult(out, m.Result); err != nil {
		return fmt.Errorf("writing the merged result: %w", err)
	}
	return nil
}

// copyTree copies a file or a folder; a source that does not exist (a
// counterexample that was not shrunk) copies nothing.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == src && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func printMerged(w io.Writer, m *fuzz.Merged, shards int, dir, out string) {
	c := m.Campaign
	budget := fmt.Sprintf("%d runs", c.Runs)
	if c.Runs == 0 {
		budget = "for " + c.Time
	}
	fmt.Fprintf(w, "merged %d shard(s) of campaign %s: impl %s, profile %s, %s\n", shards, c.CampaignSeed, c.Impl, c.Profile, budget)
	fmt.Fprintf(w, "%d run(s) judged (runs %d..%d), ended: %s, outcome: %s\n", m.Runs, m.Indices.First, m.Indices.Last, m.Ended, m.Outcome)
	if m.Ended == fuzz.EndedTime {
		fmt.Fprintf(w, "  a shard's time budget ended first: this is the answer of the first %d runs (--runs %d)\n", m.Runs, m.Runs)
	}
	if rr := m.FilesOf(); m.Outcome != fuzz.OutcomeClean {
		named := m.Counterexample
		if m.Outcome == fuzz.OutcomeInvalid {
			named = m.Invalid
		} else if m.Outcome == fuzz.OutcomeDivergence {
			named = m.Divergence
		}
		fmt.Fprintf(w, "%s: run %d (%s)", m.Outcome, named.Run, named.Seeds.Line())
		if len(named.Invariants) > 0 {
			fmt.Fprintf(w, ", violated: %s", strings.Join(named.Invariants, ", "))
		}
		fmt.Fprintln(w)
		switch {
		case rr == "" || dir == "":
			fmt.Fprintf(w, "  its files were not written by the shard that judged it\n")
		case out != "":
			fmt.Fprintf(w, "  files:  %s (from shard %d, %s)\n", filepath.Join(out, rr), m.From, dir)
		default:
			fmt.Fprintf(w, "  files:  %s (shard %d)\n", filepath.Join(dir, rr), m.From)
		}
		if named.Replay != "" {
			at := out
			if at == "" {
				at = dir
			}
			fmt.Fprintf(w, "  replay, from %s: %s\n", at, named.Replay)
		}
	}
	printCounts(w, m.FailedRuns, m.InvalidRuns, m.Found, m.Coverage)
}
