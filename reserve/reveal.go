package reserve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/amr-bench/amr/internal/safefile"
)

// Revealed files: each committed bundle is published as <id>.json, its
// single-JSON form, beside <id>.salt, its salt in hex and a newline.
const (
	revealedBundleExt = ".json"
	revealedSaltExt   = ".salt"
)

// Reveal writes what is published at reveal time into outDir, which must
// be empty or absent: every bundle of the secrets file in single-JSON form
// and its salt. Every bundle is loaded from bundlesDir and checked against
// the secrets before anything is written. It returns the ids written.
func Reveal(s *Secrets, bundlesDir string, load Loader, outDir string) ([]string, error) {
	if err := emptyDir(outDir); err != nil {
		return nil, err
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	var ids []string
	for _, sec := range s.Entries {
		b, salt, err := openSecret(sec, bundlesDir, load)
		if err != nil {
			return nil, err
		}
		doc, err := b.HashForm().MarshalIndent()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sec.ID, err)
		}
		files = append(files,
			file{sec.ID + revealedBundleExt, doc},
			file{sec.ID + revealedSaltExt, []byte(fmt.Sprintf("%x\n", salt))})
		ids = append(ids, sec.ID)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(outDir, f.name), f.data, 0o644); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func emptyDir(dir string) error {
	entries, err := safefile.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s: not empty; reveal writes into an empty or new directory", dir)
	}
	return nil
}
