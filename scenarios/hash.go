package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/amr-bench/amr/internal/jcs"
)

// HashPrefix starts every hash and commitment amr writes.
const HashPrefix = "sha256:"

// Canonical returns the bundle's canonical bytes: its single-JSON form in
// RFC 8785 canonical JSON. A missing list and an empty one mean the same, so
// both are written as empty: the directory form and the single-JSON form of
// one bundle give the same bytes whichever way their files spell an empty
// schedule. The rules.json bytes are what the implementation is given and
// hashes for rules_hash, so a rules text counts where it differs from the
// default encoding (WithRulesTexts) and a bundle without one keeps the hash
// it always had.
func (b *Bundle) Canonical() ([]byte, error) {
	if b == nil {
		return nil, fmt.Errorf("canonical bundle: no bundle")
	}
	data, err := jcs.Marshal(b.HashForm())
	if err != nil {
		return nil, fmt.Errorf("bundle %q: %w", b.Meta.Name, err)
	}
	return data, nil
}

// Hash is "sha256:" and the hex SHA-256 of the bundle's canonical bytes:
// the bundle's identity in run logs, reports, receipts and the corpus. It
// is not a commitment, because a small bundle can be confirmed by guessing
// it (the reserve set salts its commitments for that reason).
func (b *Bundle) Hash() (string, error) {
	data, err := b.Canonical()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return HashPrefix + hex.EncodeToString(sum[:]), nil
}

// HashForm returns the bundle as its hash sees it: a shallow copy whose
// top-level lists are never nil and whose rules texts are only those that
// count. The order of every list is kept: it is part of the bundle's
// meaning. Its canonical JSON is Canonical; a revealed reserve bundle is its
// single-JSON form.
func (b *Bundle) HashForm() *Bundle {
	c := *b.WithRulesTexts()
	c.Fleet = nonNil(c.Fleet)
	c.Rules = nonNil(c.Rules)
	c.Model.Anchors = nonNil(c.Model.Anchors)
	c.Inbox = nonNil(c.Inbox)
	c.Approvals = nonNil(c.Approvals)
	c.Signals = nonNil(c.Signals)
	c.Faults = nonNil(c.Faults)
	return &c
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
