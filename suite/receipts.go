package suite

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/ledger"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Run statuses of a RunReport.
const (
	StatusRan     = ledger.StatusRan
	StatusSkipped = ledger.StatusSkipped
)

// Identity is an implementation's identity for receipts and memoization:
// for a built-in one, "in-process:<name>@<harness version>"; for an OS
// process, what ledger.ProcessIdentity makes of its command and of what
// is declared about it.
func Identity(impl play.Impl, harnessVersion string, d ledger.Declared) (ledger.Identity, error) {
	if impl.Process == nil || len(impl.Process.Command) == 0 {
		return ledger.Identity{Fingerprint: ledger.Fingerprint(impl.Name, harnessVersion)}, nil
	}
	return ledger.ProcessIdentity(impl.Process.Command, d)
}

// Fingerprint is Identity's fingerprint, nothing declared.
func Fingerprint(impl play.Impl, harnessVersion string) string {
	id, err := Identity(impl, harnessVersion, ledger.Declared{})
	if err != nil {
		return "process:" + strings.Join(impl.Process.Command, " ") + ledger.UnknownSuffix
	}
	return id.Fingerprint
}

// identity is the run's implementation identity: the one the caller
// computed, else the one nothing declared gives.
func (cfg *Config) identity(impl play.Impl) ledger.Identity {
	if cfg.Identity == nil {
		id, err := Identity(impl, cfg.HarnessVersion, ledger.Declared{})
		if err != nil {
			id = ledger.Identity{Fingerprint: "process:" + strings.Join(impl.Process.Command, " ") + ledger.UnknownSuffix, Unknown: err.Error()}
		}
		cfg.Identity = &id
	}
	return *cfg.Identity
}

func (cfg Config) key(impl play.Impl, hash string, seed uint64) ledger.Key {
	return ledger.Key{BundleHash: hash, Fingerprint: cfg.identity(impl).Fingerprint,
		HarnessVersion: cfg.HarnessVersion, Seed: strconv.FormatUint(seed, 10)}
}

// memoized returns the report of a run the ledger already holds, after
// appending a skipped receipt that copies its verdict forward.
func memoized(scenario string, impl play.Impl, cfg Config, hash string, s seeds.Seeds, i int) (RunReport, bool, error) {
	if cfg.Ledger == nil || cfg.Force {
		return RunReport{}, false, nil
	}
	if !cfg.identity(impl).Known() {
		return RunReport{}, false, nil // what runs is not known: never skip it
	}
	seed := uint64(*s.Engine)
	k := cfg.key(impl, hash, seed)
	prior, ok := cfg.Ledger.Lookup(k)
	if !ok {
		return RunReport{}, false, nil
	}
	r := newReceipt(scenario, impl, cfg, hash, seed, i, ledger.StatusSkipped)
	r.Verdict, r.CopiedFrom = prior.Verdict, prior.ContentHash
	sealed, err := cfg.Ledger.Append(r)
	if err != nil {
		return RunReport{}, false, err
	}
	v := prior.Verdict
	rr := RunReport{Run: i, Seeds: s, Levels: v.Levels, Origin: v.Origin, Violations: copyViolations(v.Violations),
		Obligations: copyCounts(v.Obligations), Judged: copyCounts(v.Judged), Vacuous: append([]string{}, v.Vacuous...),
		Status: StatusSkipped, Invalid: v.Invalid, Receipt: sealed.ContentHash,
		History:  history.Verdict{Violations: []history.Violation{}, Declined: []history.Decline{}, Counts: v.History, DeclinedCounts: map[string]int{}},
		Guard:    checker.GuardResult{Agree: !v.Invalid, Compared: []checker.Answer{}, Skipped: []string{}, Diffs: []checker.Answer{}},
		Surprise: history.Surprise{Unattributed: v.UnattributedCalls, ByKind: map[string]int{}, PerWork: map[string]int{}, Items: []history.Attribution{}}}
	return rr, true, nil
}

func (cfg Config) receiptImpl(impl play.Impl) ledger.Impl {
	id := cfg.identity(impl)
	if impl.Process == nil {
		return ledger.Impl{Name: impl.Name, Fingerprint: id.Fingerprint}
	}
	return ledger.ImplOf(impl.Name, id)
}

func newReceipt(scenario string, impl play.Impl, cfg Config, hash string, seed uint64, i int, status string) ledger.Receipt {
	return ledger.Receipt{Scenario: scenario, BundleHash: hash,
		Impl:           cfg.receiptImpl(impl),
		HarnessVersion: cfg.HarnessVersion, Seed: strconv.FormatUint(seed, 10), Run: i, Status: status}
}

// failedReceipt records a run the engine could not play.
func failedReceipt(scenario string, impl play.Impl, cfg Config, hash string, seed uint64, i int, runErr error) error {
	if cfg.Ledger == nil {
		return nil
	}
	r := newReceipt(scenario, impl, cfg, hash, seed, i, ledger.StatusFailed)
	r.Reason = runErr.Error()
	_, err := cfg.Ledger.Append(r)
	return err
}

// artifacts returns every file a run writes, by the name it has under the
// run's directory, exactly as Keep writes it.
func artifacts(res *sim.Result, rr RunReport, hist []byte, dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, data := range res.Files.Files() {
		out[filepath.ToSlash(filepath.Join("sandbox", name))] = data
	}
	if dir != "" {
		// The run log was written to the kept run as it was made.
		data, err := os.ReadFile(filepath.Join(dir, sandbox.RunLogFile))
		if err != nil {
			return nil, err
		}
		out[sandbox.RunLogFile] = data
	} else {
		out[sandbox.RunLogFile] = res.LogBytes()
	}
	out[history.FileName] = hist
	v, err := verdictBytes(rr)
	if err != nil {
		return nil, err
	}
	out["verdict.json"] = v
	return out, nil
}

func verdictBytes(rr RunReport) ([]byte, error) {
	data, err := json.MarshalIndent(rr, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ranReceipt appends the receipt of a run that was played and judged, after
// storing every artifact beside the ledger by its hash.
func ranReceipt(scenario string, impl play.Impl, cfg Config, hash string, rr RunReport, files map[string][]byte) (string, error) {
	r := newReceipt(scenario, impl, cfg, hash, uint64(*rr.Engine), rr.Run, ledger.StatusRan)
	r.Verdict = ledger.Verdict{Levels: rr.Levels, Origin: rr.Origin, Invalid: rr.Invalid,
		Obligations: copyCounts(rr.Obligations), Judged: copyCounts(rr.Judged), Vacuous: append([]string(nil), rr.Vacuous...),
		Violations: copyViolations(rr.Violations), History: nonZero(rr.History.Counts),
		UnattributedCalls: rr.Surprise.Unattributed}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		stored, err := cfg.Ledger.Store(files[n])
		if err != nil {
			return "", fmt.Errorf("%s run %d: storing %s: %w", scenario, rr.Run, n, err)
		}
		r.Artifacts = append(r.Artifacts, ledger.Artifact{Name: n, Hash: ledger.Digest(files[n]), Path: stored})
	}
	sealed, err := cfg.Ledger.Append(r)
	if err != nil {
		return "", fmt.Errorf("%s run %d: receipt: %w", scenario, rr.Run, err)
	}
	return sealed.ContentHash, nil
}

// copyCounts copies a count map, so a receipt and a report never share one.
func copyCounts(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, n := range m {
		out[k] = n
	}
	return out
}

func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range m {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// copyViolations copies a verdict's violations for a receipt (or back), so
// neither side can alias the other's evidence slices.
func copyViolations(vs []checker.Violation) []checker.Violation {
	out := make([]checker.Violation, 0, len(vs))
	for _, v := range vs {
		v.Evidence = append([]string{}, v.Evidence...)
		out = append(out, v)
	}
	return out
}

// diagnostics folds the runs' guard and surprise results into the report.
func (r *Report) diagnostics() {
	r.Surprise = SurpriseTotals{}
	for _, run := range r.Runs {
		r.Invalid = r.Invalid || run.Invalid
		r.Surprise.Calls += run.Surprise.Calls
		r.Surprise.Unattributed += run.Surprise.Unattributed
		if run.Status == StatusSkipped {
			r.Skipped++
		}
	}
}

// SurpriseTotals sums the surprise diagnostic over a report's runs.
type SurpriseTotals struct {
	Calls        int `json:"calls"`
	Unattributed int `json:"unattributed"`
}
