package reserve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/amr-bench/amr/scenarios"
)

// HashPrefix starts every hash and commitment amr writes.
const HashPrefix = "sha256:"

// CanonicalBundle returns the canonical bytes of a bundle's single-JSON
// form. A missing list and an empty one mean the same, so both are written
// as empty: the directory form and the single-JSON form of one bundle give
// the same bytes whichever way their files spell an empty schedule. The
// rules.json bytes are what the implementation is given and hashes for
// rules_hash, so a rules text counts where it differs from the default
// encoding (scenarios.Bundle.WithRulesTexts) and a bundle without one keeps
// the hash it always had.
func CanonicalBundle(b *scenarios.Bundle) ([]byte, error) {
	if b == nil {
		return nil, fmt.Errorf("canonical bundle: no bundle")
	}
	data, err := Marshal(hashForm(b))
	if err != nil {
		return nil, fmt.Errorf("bundle %q: %w", b.Meta.Name, err)
	}
	return data, nil
}

// BundleHash is "sha256:" and the hex SHA-256 of the bundle's canonical
// bytes. It identifies a bundle's content; it is not a commitment, because
// a small bundle can be confirmed by guessing it (see Commit).
func BundleHash(b *scenarios.Bundle) (string, error) {
	data, err := CanonicalBundle(b)
	if err != nil {
		return "", err
	}
	return hashString(sha256.Sum256(data)), nil
}

// hashForm returns a shallow copy of b whose top-level lists are never nil.
// The order of every list is kept: it is part of the bundle's meaning.
func hashForm(b *scenarios.Bundle) *scenarios.Bundle {
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

func hashString(sum [sha256.Size]byte) string {
	return HashPrefix + hex.EncodeToString(sum[:])
}
