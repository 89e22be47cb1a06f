package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

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
	form := b.HashForm()
	if data, ok := appendCanonical(make([]byte, 0, canonicalSizeHint(form)), form); ok {
		return data, nil
	}
	data, err := jcs.Marshal(form)
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
	if b == nil {
		return "", fmt.Errorf("canonical bundle: no bundle")
	}
	form := b.HashForm()
	buf := hashBuffers.Get().(*[]byte)
	data, ok := appendCanonical((*buf)[:0], form)
	if cap(data) <= maxPooledHash {
		*buf = data[:0]
		defer hashBuffers.Put(buf)
	}
	if !ok {
		var err error
		if data, err = jcs.Marshal(form); err != nil {
			return "", fmt.Errorf("bundle %q: %w", b.Meta.Name, err)
		}
	}
	sum := sha256.Sum256(data)
	return HashPrefix + hex.EncodeToString(sum[:]), nil
}

// hashBuffers keep the canonical bytes' buffers between hashes: the bytes
// are only summed, and a campaign hashes a new bundle for every run.
var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledHash is the largest buffer kept: a bundle of many messages is
// hashed once, and its bytes should not outlive it.
const maxPooledHash = 1 << 20

// canonicalSizeHint guesses the canonical bytes' length from what dominates
// them, so the buffer seldom grows.
func canonicalSizeHint(b *Bundle) int {
	n := 512 + 96*(len(b.Approvals)+len(b.Signals)+len(b.Faults)) + 128*len(b.Rules)
	for i := range b.Inbox {
		n += 96 + len(b.Inbox[i].Body) + len(b.Inbox[i].Subject)
	}
	return n + len(b.RulesJSON) + len(b.Model.Reply) + len(b.Model.ReplyNoAnchor)
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
