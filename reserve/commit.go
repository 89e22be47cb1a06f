package reserve

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/amr-bench/amr/scenarios"
)

// SaltSize is the length of a commitment's salt in bytes.
const SaltSize = 32

// Domain tags keep a commitment, a root and any other SHA-256 amr computes
// from ever being mistaken for one another.
const (
	commitTag = "amr.reserve.commit/v1\x00"
	rootTag   = "amr.reserve.root/v1\x00"
)

// Commit is a bundle's commitment: "sha256:" and the hex SHA-256 of the
// domain tag, the salt and the bundle's canonical bytes. Without the salt
// nobody can confirm a guessed bundle against it, and two equal bundles get
// different commitments.
func Commit(salt, canonical []byte) (string, error) {
	if len(salt) != SaltSize {
		return "", fmt.Errorf("commit: salt is %d bytes, want %d", len(salt), SaltSize)
	}
	h := sha256.New()
	h.Write([]byte(commitTag))
	h.Write(salt)
	h.Write(canonical)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return hashString(sum), nil
}

// Root is "sha256:" and the hex SHA-256 of the root tag followed by the
// 32-byte digests of the commitments in manifest order: one value that
// fixes the whole set and its order.
func Root(commitments []string) (string, error) {
	h := sha256.New()
	h.Write([]byte(rootTag))
	for i, c := range commitments {
		sum, err := parseHash(c)
		if err != nil {
			return "", fmt.Errorf("root: commitment %d: %w", i+1, err)
		}
		h.Write(sum)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return hashString(sum), nil
}

func hashString(sum [sha256.Size]byte) string {
	return scenarios.HashPrefix + hex.EncodeToString(sum[:])
}

// parseHash reads "sha256:<64 lower-case hex digits>".
func parseHash(s string) ([]byte, error) {
	hexPart, ok := strings.CutPrefix(s, scenarios.HashPrefix)
	if !ok {
		return nil, fmt.Errorf("%q does not start with %q", s, scenarios.HashPrefix)
	}
	if len(hexPart) != 2*sha256.Size || strings.ToLower(hexPart) != hexPart {
		return nil, fmt.Errorf("%q is not %d lower-case hex digits", hexPart, 2*sha256.Size)
	}
	return hex.DecodeString(hexPart)
}

// parseSalt reads a salt written as lower-case hex.
func parseSalt(s string) ([]byte, error) {
	if len(s) != 2*SaltSize || strings.ToLower(s) != s {
		return nil, fmt.Errorf("salt is not %d lower-case hex digits", 2*SaltSize)
	}
	return hex.DecodeString(s)
}

// newSalt reads one salt from rnd.
func newSalt(rnd io.Reader) ([]byte, error) {
	salt := make([]byte, SaltSize)
	if _, err := io.ReadFull(rnd, salt); err != nil {
		return nil, fmt.Errorf("salt: %w", err)
	}
	return salt, nil
}

// uniform draws an integer in [0, n) from rnd without modulo bias.
func uniform(rnd io.Reader, n int) (int, error) {
	if n <= 1 {
		return 0, nil
	}
	m := uint64(n)
	// 2^64 mod m: draws below it would over-weight the low residues.
	floor := -m % m
	var buf [8]byte
	for {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return 0, fmt.Errorf("random order: %w", err)
		}
		if v := binary.LittleEndian.Uint64(buf[:]); v >= floor {
			return int(v % m), nil
		}
	}
}
