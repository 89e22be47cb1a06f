package fuzz

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/faults"
)

// Where amr fuzz keeps what it finds when no --out is given. Each
// counterexample gets a folder of its own, named by what determines its
// bundle, so a later campaign never writes over an earlier counterexample:
//
//	.amr/fuzz/<impl>/<seed>/run-<i>/           run i of campaign seed <seed> (default profile)
//	.amr/fuzz/<impl>/<seed>-<profile>/run-<i>/ the same under another profile preset
//	.amr/fuzz/<impl>/corpus-<hash>/            a kept corpus bundle that still fails
//	.amr/fuzz/latest                           a link to the newest of them (not to an --out folder)
//
// A generated run's bundle is a function of (campaign seed, profile, run
// index), so the same folder always holds the same bundle.
var Root = filepath.Join(".amr", "fuzz")

// LatestName is the link, in Root, to the newest counterexample.
const LatestName = "latest"

// CounterexampleDir is the folder of its own a failing, invalid or
// diverging run is written to: run index of campaign seed under preset, or,
// for a bundle from the corpus (source not "generated"), one named by its
// bundle's hash.
func CounterexampleDir(impl string, seed uint64, preset, source string, index int, hash string) string {
	base := filepath.Join(Root, pathName(impl))
	if source != "" && source != "generated" {
		return filepath.Join(base, "corpus-"+shortHash(hash))
	}
	campaign := strconv.FormatUint(seed, 10)
	if preset != "" && preset != faults.DefaultPreset {
		campaign += "-" + pathName(preset)
	}
	return filepath.Join(base, campaign, fmt.Sprintf("run-%d", index))
}

// shortHash is the first 12 hex digits of a "sha256:..." hash.
func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	if h == "" {
		return "unknown"
	}
	return h
}

// LinkLatest points Root/latest at dir, relative when dir is under Root,
// and returns the link's path. The link is replaced, never the folder it
// pointed at.
func LinkLatest(dir string) (string, error) {
	link := filepath.Join(Root, LatestName)
	if err := os.MkdirAll(Root, 0o755); err != nil {
		return "", err
	}
	target, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := filepath.Abs(Root)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(root, target); err == nil && !strings.HasPrefix(rel, "..") {
		target = rel
	}
	if info, err := os.Lstat(link); err == nil {
		if info.Mode()&fs.ModeSymlink == 0 {
			return "", fmt.Errorf("%s exists and is not a link: remove it to let amr fuzz point it at the newest counterexample", link)
		}
		if err := os.Remove(link); err != nil {
			return "", err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.Symlink(target, link); err != nil {
		return "", err
	}
	return link, nil
}
