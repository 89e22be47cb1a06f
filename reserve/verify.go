package reserve

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/scenarios"
)

// Kinds of verification findings.
const (
	FindMissing   = "missing"   // a manifest entry with no revealed bundle or salt
	FindExtra     = "extra"     // a revealed file no manifest entry names
	FindAltered   = "altered"   // a revealed bundle that does not open its commitment, or disagrees with its entry
	FindReordered = "reordered" // a manifest entry out of its sealed position
	FindManifest  = "manifest"  // the manifest contradicts itself: format, count, ids, root
	FindInvalid   = "invalid"   // a revealed file that opens its commitment but is not a bundle
)

// Finding is one thing wrong, named by the entry id it concerns (empty for
// the manifest as a whole).
type Finding struct {
	ID     string `json:"id,omitempty"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// Report is the outcome of Verify. Verified lists, in manifest order, the
// ids whose revealed bundle opens its commitment and matches its entry.
type Report struct {
	Root     string    `json:"root"`
	Count    int       `json:"count"`
	Verified []string  `json:"verified"`
	Findings []Finding `json:"findings"`
}

// OK reports whether nothing was found wrong.
func (r *Report) OK() bool { return len(r.Findings) == 0 }

// Verify checks a directory of revealed bundles against a manifest, using
// nothing else: the manifest's consistency (format, count, ids in their
// sealed positions, root over the commitments), then each entry's revealed
// bundle and salt against its commitment and top level, then files nobody
// committed to. An error means the directory could not be read at all.
func Verify(m *Manifest, revealedDir string) (*Report, error) {
	files, err := safefile.ReadDir(revealedDir)
	if err != nil {
		return nil, err
	}
	r := &Report{Root: m.Root, Count: len(m.Entries), Verified: []string{}, Findings: []Finding{}}
	r.checkManifest(m)
	named := map[string]bool{}
	for _, e := range m.Entries {
		if checkID(e.ID) != nil {
			continue // reported by checkManifest; never used as a file name
		}
		named[e.ID+revealedBundleExt] = true
		named[e.ID+revealedSaltExt] = true
		if r.checkEntry(e, revealedDir) {
			r.Verified = append(r.Verified, e.ID)
		}
	}
	var extras []string
	for _, f := range files {
		if !named[f.Name()] {
			extras = append(extras, f.Name())
		}
	}
	sort.Strings(extras)
	for _, name := range extras {
		id := strings.TrimSuffix(strings.TrimSuffix(name, revealedBundleExt), revealedSaltExt)
		r.add(id, FindExtra, "%s is not named by any manifest entry", name)
	}
	return r, nil
}

func (r *Report) add(id, kind, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{ID: id, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// checkManifest checks what the manifest alone can show.
func (r *Report) checkManifest(m *Manifest) {
	if m.Format != ManifestFormat {
		r.add("", FindManifest, "format %q, want %q", m.Format, ManifestFormat)
	}
	if m.Count != len(m.Entries) {
		r.add("", FindManifest, "count %d but %d entries", m.Count, len(m.Entries))
	}
	position := map[string]int{}
	for i := range m.Entries {
		position[entryID(i, len(m.Entries))] = i
	}
	seen := map[string]bool{}
	for i, e := range m.Entries {
		if err := checkID(e.ID); err != nil {
			r.add("", FindManifest, "entry %d: %v", i+1, err)
			continue
		}
		if seen[e.ID] {
			r.add(e.ID, FindManifest, "id appears twice")
		}
		seen[e.ID] = true
		want, known := position[e.ID]
		switch {
		case !known:
			r.add(e.ID, FindManifest, "entry %d has an id no sealed set of %d entries has", i+1, len(m.Entries))
		case want != i:
			r.add(e.ID, FindReordered, "entry %d was sealed as entry %d", i+1, want+1)
		}
	}
	commitments := make([]string, len(m.Entries))
	for i, e := range m.Entries {
		commitments[i] = e.Commitment
	}
	root, err := Root(commitments)
	switch {
	case err != nil:
		r.add("", FindManifest, "%v", err)
	case root != m.Root:
		r.add("", FindManifest, "root %s does not match the commitments in their order (%s)", m.Root, root)
	}
}

// checkEntry checks one entry against its revealed files and reports
// whether it verified.
func (r *Report) checkEntry(e Entry, dir string) bool {
	docPath := filepath.Join(dir, e.ID+revealedBundleExt)
	saltPath := filepath.Join(dir, e.ID+revealedSaltExt)
	doc, docErr := safefile.ReadFile(docPath, 0)
	saltText, saltErr := safefile.ReadFile(saltPath, 0)
	if docErr != nil || saltErr != nil {
		var missing []string
		for _, x := range []struct {
			path string
			err  error
		}{{docPath, docErr}, {saltPath, saltErr}} {
			if x.err != nil {
				missing = append(missing, filepath.Base(x.path))
			}
		}
		r.add(e.ID, FindMissing, "no %s", strings.Join(missing, " and no "))
		return false
	}
	salt, err := parseSalt(strings.TrimSuffix(string(saltText), "\n"))
	if err != nil {
		r.add(e.ID, FindAltered, "%s: %v", filepath.Base(saltPath), err)
		return false
	}
	canonical, err := jcs.Canonicalize(doc)
	if err != nil {
		r.add(e.ID, FindAltered, "%s: %v", filepath.Base(docPath), err)
		return false
	}
	c, err := Commit(salt, canonical)
	if err != nil {
		r.add(e.ID, FindAltered, "%v", err)
		return false
	}
	if c != e.Commitment {
		r.add(e.ID, FindAltered, "bundle and salt give commitment %s, the manifest has %s", c, e.Commitment)
		return false
	}
	b, _, err := scenarios.Parse(docPath, doc)
	if err != nil {
		r.add(e.ID, FindInvalid, "opens its commitment but is not a bundle: %v", err)
		return false
	}
	if b.Meta.TopLevel != e.TopLevel {
		r.add(e.ID, FindAltered, "top level %d in the manifest, %d in the bundle", e.TopLevel, b.Meta.TopLevel)
		return false
	}
	return true
}
