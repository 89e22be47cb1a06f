// Package ledger owns run receipts and the ledger they are appended to.
//
// A receipt says what one scenario run was and what it found: the bundle's
// canonical hash, the implementation's fingerprint, the harness version, the
// engine seed, the status (ran, skipped, failed-to-run), the verdict, the hash
// of every artifact the run wrote, and the content hash of the previous
// receipt. Its own content_hash covers its canonical JSON (RFC 8785) without
// that field, so a receipt is content-addressed and the ledger is a chain:
// any edit, deletion or reordering shows when the chain is walked again.
//
// The ledger also memoizes: a (bundle hash, implementation fingerprint,
// harness version, seed) that already has a "ran" receipt need not run
// again; a cheap "skipped" receipt copies its verdict forward.
package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/scenarios"
)

// Format tags a receipt.
const Format = "amr.receipt/v1"

// HashAlg is the hash every digest of a receipt uses.
const HashAlg = "sha256"

// Receipt statuses.
const (
	StatusRan     = "ran"
	StatusSkipped = "skipped"
	StatusFailed  = "failed-to-run"
)

// SignatureNone is the only signature scheme so far.
const SignatureNone = "none"

// NullReason is what the signature slot says while nothing signs receipts.
const NullReason = "unsigned: amr has no signer yet; the content hash and the prev chain are all the integrity this receipt carries, and anyone can recompute them"

// Receipt is one scenario run's record. Field order is irrelevant: the
// content hash is taken over the canonical form.
type Receipt struct {
	Format         string `json:"format"`
	HashAlg        string `json:"hash_alg"`
	Scenario       string `json:"scenario"`
	BundleHash     string `json:"bundle_hash"`
	Impl           Impl   `json:"impl"`
	HarnessVersion string `json:"harness_version"`
	// Seed is the engine seed the run was played with, in decimal:
	// canonical JSON numbers cannot hold every 64-bit seed exactly.
	Seed   string `json:"seed"`
	Run    int    `json:"run"`
	Status string `json:"status"`
	// Reason says why a run failed to run.
	Reason  string  `json:"reason,omitempty"`
	Verdict Verdict `json:"verdict"`
	// Artifacts are the files the run wrote, sorted by name. A skipped
	// receipt has none: nothing ran.
	Artifacts []Artifact `json:"artifacts"`
	// CopiedFrom is, on a skipped receipt, the content hash of the ran
	// receipt whose verdict it copies.
	CopiedFrom string `json:"copied_from,omitempty"`
	// Prev is the previous receipt's content hash; null on the first.
	Prev      *string   `json:"prev"`
	Signature Signature `json:"signature"`
	// ContentHash is "sha256:" and the hex digest of the canonical JSON of
	// the receipt without this field.
	ContentHash string `json:"content_hash,omitempty"`
}

// Impl identifies the implementation that ran. Fingerprint is what
// memoization keys on: for a built-in implementation
// "in-process:<name>@<harness version>", for a process implementation the
// command line and the hash of its identity (ProcessIdentity), or
// UnknownSuffix where amr cannot know what runs.
type Impl struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	// Identity lists what a process implementation's fingerprint hashed,
	// and IdentityUnknown says why it could not cover what runs. Both are
	// absent for a built-in implementation, so its receipts are unchanged.
	Identity        []Part `json:"identity,omitempty"`
	IdentityUnknown string `json:"identity_unknown,omitempty"`
}

// Verdict is what the run found, copied forward by skipped receipts.
type Verdict struct {
	Levels map[string]string `json:"levels"`
	// Obligations (per tested level), Judged (per invariant) and Vacuous
	// (levels that passed with no obligation judged) are the checker's
	// counts. They are omitted when empty, so a receipt sealed before they
	// existed still hashes to its own content hash; such a receipt says
	// nothing about vacuity.
	Obligations map[string]int `json:"obligations,omitempty"`
	Judged      map[string]int `json:"judged,omitempty"`
	Vacuous     []string       `json:"vacuous,omitempty"`
	Origin      string         `json:"origin"`
	Invalid     bool           `json:"invalid"`
	Violations  []Violation    `json:"violations"`
	// History holds the history oracle's violation counts that are not
	// zero.
	History map[string]int `json:"history"`
	// UnattributedCalls counts model calls no surprise justified.
	UnattributedCalls int `json:"unattributed_calls"`
}

// Violation is one level violation as a receipt keeps it: the checker's own
// record, so a receipt never drifts from the verdict it copies.
type Violation = checker.Violation

// Artifact is one file a run wrote: Name is its path under the run's kept
// directory, Hash its digest, and Path, when set, where the ledger stored a
// copy (objects/..., relative to the ledger file's directory and
// slash-separated; see Ledger.Store).
type Artifact struct {
	Name string `json:"name"`
	Path string `json:"path,omitempty"`
	Hash string `json:"hash"`
}

// Signature is the signature slot. Scheme "none" with a null reason is an
// honest, first-class state, not a missing field.
type Signature struct {
	Scheme     string `json:"scheme"`
	NullReason string `json:"null_reason,omitempty"`
}

// Unsigned is the signature every receipt carries for now.
func Unsigned() Signature { return Signature{Scheme: SignatureNone, NullReason: NullReason} }

// Key is what memoization compares: two runs with equal keys are the same
// run.
type Key struct {
	BundleHash     string
	Fingerprint    string
	HarnessVersion string
	Seed           string
}

// Key returns the receipt's memoization key.
func (r Receipt) Key() Key {
	return Key{BundleHash: r.BundleHash, Fingerprint: r.Impl.Fingerprint, HarnessVersion: r.HarnessVersion, Seed: r.Seed}
}

// ImplOf is the receipt's Impl of a process implementation.
func ImplOf(name string, id Identity) Impl {
	return Impl{Name: name, Fingerprint: id.Fingerprint, Identity: id.Parts, IdentityUnknown: id.Unknown}
}

// Fingerprint is a built-in implementation's fingerprint. It is the same on
// every machine and every build of one harness version, so receipts are
// reproducible byte for byte; a change to a built-in implementation that
// keeps the version must be re-run with --force.
func Fingerprint(name, harnessVersion string) string {
	return "in-process:" + name + "@" + harnessVersion
}

// Digest is "sha256:" and the hex SHA-256 of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return scenarios.HashPrefix + hex.EncodeToString(sum[:])
}

// Canonical returns the receipt's canonical JSON without its content hash:
// the bytes the content hash covers.
func (r Receipt) Canonical() ([]byte, error) {
	r.ContentHash = ""
	data, err := jcs.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("receipt %s run %d: %w", r.Scenario, r.Run, err)
	}
	return data, nil
}

// Hash computes the receipt's content hash.
func (r Receipt) Hash() (string, error) {
	data, err := r.Canonical()
	if err != nil {
		return "", err
	}
	return Digest(data), nil
}

// sealed returns the receipt's two canonical forms at the cost of one: its
// line (with content_hash) and the bytes its content hash covers (without).
// In canonical JSON the members are sorted and content_hash is a top-level
// member no nested type has, so the bytes without it are the line with that
// one member cut out; where the cut is not found exactly once, both forms
// are computed in full.
func (r Receipt) sealed() (canonical, line []byte, err error) {
	if line, err = jcs.Marshal(r); err != nil {
		return nil, nil, err
	}
	member, err := jcs.Marshal(map[string]string{"content_hash": r.ContentHash})
	if err == nil && r.ContentHash != "" {
		cut := append([]byte{','}, member[1:len(member)-1]...)
		if bytes.Count(line, cut) == 1 {
			return bytes.Replace(line, cut, nil, 1), line, nil
		}
	}
	if canonical, err = r.Canonical(); err != nil {
		return nil, nil, err
	}
	return canonical, line, nil
}

// Line renders the receipt as one ledger line: its canonical JSON with the
// content hash in place, and a newline.
func (r Receipt) Line() ([]byte, error) {
	if r.ContentHash == "" {
		return nil, errors.New("ledger: receipt has no content hash")
	}
	data, err := jcs.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// parseReceipt reads one ledger line.
func parseReceipt(line []byte) (Receipt, error) {
	var r Receipt
	if err := json.Unmarshal(line, &r); err != nil {
		return Receipt{}, err
	}
	if r.Format != Format {
		return Receipt{}, fmt.Errorf("format %q is not %s", r.Format, Format)
	}
	return r, nil
}
