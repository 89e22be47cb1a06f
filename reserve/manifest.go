package reserve

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/scenarios"
)

// Format tags of the reserve files.
const (
	ManifestFormat    = "amr.reserve.manifest/v1"
	SecretsFormat     = "amr.reserve.secrets/v1"
	ApplicationFormat = "amr.reserve.application/v1"
)

// Manifest is the public half of a sealed reserve set. Entries are in a
// random order fixed at sealing, and an entry's id is its position there,
// so ids say nothing about which bundle is which.
type Manifest struct {
	Format    string  `json:"format"`
	CreatedAt string  `json:"created_at"`
	Count     int     `json:"count"`
	Entries   []Entry `json:"entries"`
	Root      string  `json:"root"`
}

// Entry is one committed bundle.
type Entry struct {
	ID         string `json:"id"`
	Commitment string `json:"commitment"`
	TopLevel   int    `json:"top_level"`
}

// Secrets is the private half: what opens each commitment. It never leaves
// the maintainer until reveal, and then only as the revealed bundles and
// salts.
type Secrets struct {
	Format  string   `json:"format"`
	Root    string   `json:"root"`
	Entries []Secret `json:"entries"`
}

// Secret opens one commitment. Bundle is the bundle's file or directory
// name inside the sealed directory.
type Secret struct {
	ID         string `json:"id"`
	Bundle     string `json:"bundle"`
	Salt       string `json:"salt"`
	BundleHash string `json:"bundle_hash"`
}

// Loader reads a bundle in either form; the command line passes one that
// also validates.
type Loader func(path string) (*scenarios.Bundle, error)

// LoadBundle is the plain Loader: scenarios.Load without validation.
func LoadBundle(path string) (*scenarios.Bundle, error) {
	b, _, err := scenarios.Load(path)
	return b, err
}

// Named is a bundle with the name it is sealed under.
type Named struct {
	Name   string
	Bundle *scenarios.Bundle
}

// Seal commits to a set of bundles. rnd supplies the order of the entries
// and every salt; the command line passes crypto/rand. createdAt is recorded
// as data and is the only wall-clock value in the manifest.
func Seal(bundles []Named, createdAt time.Time, rnd io.Reader) (*Manifest, *Secrets, error) {
	if len(bundles) == 0 {
		return nil, nil, errors.New("seal: no bundles")
	}
	named := append([]Named(nil), bundles...)
	sort.Slice(named, func(i, j int) bool { return named[i].Name < named[j].Name })
	for i, n := range named {
		if err := checkName(n.Name); err != nil {
			return nil, nil, fmt.Errorf("seal: %w", err)
		}
		if i > 0 && named[i-1].Name == n.Name {
			return nil, nil, fmt.Errorf("seal: bundle name %q appears twice", n.Name)
		}
	}
	// Fisher-Yates from rnd, so the entry order is not the name order.
	for i := len(named) - 1; i > 0; i-- {
		j, err := uniform(rnd, i+1)
		if err != nil {
			return nil, nil, fmt.Errorf("seal: %w", err)
		}
		named[i], named[j] = named[j], named[i]
	}
	m := &Manifest{Format: ManifestFormat, CreatedAt: createdAt.UTC().Format(time.RFC3339), Count: len(named)}
	s := &Secrets{Format: SecretsFormat}
	commitments := make([]string, len(named))
	for i, n := range named {
		canonical, err := n.Bundle.Canonical()
		if err != nil {
			return nil, nil, fmt.Errorf("seal: %s: %w", n.Name, err)
		}
		salt, err := newSalt(rnd)
		if err != nil {
			return nil, nil, fmt.Errorf("seal: %w", err)
		}
		c, err := Commit(salt, canonical)
		if err != nil {
			return nil, nil, err
		}
		hash, err := n.Bundle.Hash()
		if err != nil {
			return nil, nil, err
		}
		id := entryID(i, len(named))
		commitments[i] = c
		m.Entries = append(m.Entries, Entry{ID: id, Commitment: c, TopLevel: n.Bundle.Meta.TopLevel})
		s.Entries = append(s.Entries, Secret{ID: id, Bundle: n.Name, Salt: hex.EncodeToString(salt), BundleHash: hash})
	}
	root, err := Root(commitments)
	if err != nil {
		return nil, nil, err
	}
	m.Root, s.Root = root, root
	return m, s, nil
}

// SealDir seals every bundle in dir: each subdirectory and each .json file
// is one bundle, named by its entry name. Hidden entries are skipped.
func SealDir(dir string, load Loader, createdAt time.Time, rnd io.Reader) (*Manifest, *Secrets, error) {
	names, err := bundleNames(dir)
	if err != nil {
		return nil, nil, err
	}
	var bundles []Named
	var probs []error
	for _, name := range names {
		b, err := load(filepath.Join(dir, name))
		if err != nil {
			probs = append(probs, err)
			continue
		}
		bundles = append(bundles, Named{Name: name, Bundle: b})
	}
	if len(probs) > 0 {
		return nil, nil, errors.Join(probs...)
	}
	return Seal(bundles, createdAt, rnd)
}

// bundleNames lists the bundles of a sealed directory in name order.
func bundleNames(dir string) ([]string, error) {
	entries, err := safefile.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir(), strings.HasSuffix(name, ".json"):
			names = append(names, name)
		default:
			return nil, fmt.Errorf("%s: neither a bundle directory nor a .json bundle", filepath.Join(dir, name))
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no bundles", dir)
	}
	return names, nil
}

// entryID is the id of the i-th entry (from 0) of n: r01, r02, ... padded to
// the width of n.
func entryID(i, n int) string {
	width := max(2, len(strconv.Itoa(n)))
	return fmt.Sprintf("r%0*d", width, i+1)
}

// checkName accepts a bundle name that stays inside its directory.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("bundle name %q is not a plain file or directory name", name)
	}
	return nil
}

// checkID accepts an id that is safe as a file name stem.
func checkID(id string) error {
	if id == "" || strings.HasPrefix(id, ".") {
		return fmt.Errorf("id %q is not a plain name", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("id %q is not a plain name", id)
		}
	}
	return nil
}

// Encode renders a reserve file: canonical JSON and a newline, so the file
// a maintainer publishes is byte-for-byte what anyone recomputes.
func Encode(v any) ([]byte, error) {
	data, err := jcs.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// WriteFile encodes v into path.
func WriteFile(path string, v any) error {
	data, err := Encode(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, data, 0o644)
}

// ReadManifest reads and checks the shape of a manifest file.
func ReadManifest(path string) (*Manifest, error) {
	var m Manifest
	if err := readStrict(path, ManifestFormat, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReadSecrets reads and checks a secrets file.
func ReadSecrets(path string) (*Secrets, error) {
	var s Secrets
	if err := readStrict(path, SecretsFormat, &s); err != nil {
		return nil, err
	}
	for _, e := range s.Entries {
		if err := checkID(e.ID); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := checkName(e.Bundle); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, e.ID, err)
		}
		if _, err := parseSalt(e.Salt); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, e.ID, err)
		}
	}
	return &s, nil
}

// readStrict decodes a JSON file that must be strict JSON (the canonical
// parser checks it), carry the given format tag, and have no unknown
// fields. The tag is checked first, so a file of the wrong kind is named as
// such.
func readStrict(path, format string, into any) error {
	data, err := safefile.ReadFile(path, 0)
	if err != nil {
		return err
	}
	if err := jsondepth.Check(data, 0); err != nil {
		return fmt.Errorf("%s:%w", path, jsondepth.At(err))
	}
	if _, err := jcs.Canonicalize(data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if head.Format != format {
		return fmt.Errorf("%s: format %q, want %q", path, head.Format, format)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// checkPair confirms that a secrets file belongs to a manifest: same root,
// same ids in the same order.
func checkPair(m *Manifest, s *Secrets) error {
	if m.Root != s.Root {
		return fmt.Errorf("the secrets file is for root %s, the manifest has %s", s.Root, m.Root)
	}
	if len(m.Entries) != len(s.Entries) {
		return fmt.Errorf("the manifest has %d entries, the secrets file %d", len(m.Entries), len(s.Entries))
	}
	for i := range m.Entries {
		if m.Entries[i].ID != s.Entries[i].ID {
			return fmt.Errorf("entry %d is %s in the manifest and %s in the secrets file", i+1, m.Entries[i].ID, s.Entries[i].ID)
		}
	}
	return nil
}

// openSecret loads the bundle a secret names and checks it against the secret's
// bundle hash: a bundle edited since sealing is refused.
func openSecret(s Secret, bundlesDir string, load Loader) (*scenarios.Bundle, []byte, error) {
	b, err := load(filepath.Join(bundlesDir, s.Bundle))
	if err != nil {
		return nil, nil, err
	}
	hash, err := b.Hash()
	if err != nil {
		return nil, nil, err
	}
	if hash != s.BundleHash {
		return nil, nil, fmt.Errorf("%s (%s): bundle changed since sealing: hash %s, sealed %s", s.ID, s.Bundle, hash, s.BundleHash)
	}
	salt, err := parseSalt(s.Salt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.ID, err)
	}
	return b, salt, nil
}
