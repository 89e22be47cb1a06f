package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/scenarios"
)

// namedBundle is a bundle to run with the name it was given by.
type namedBundle struct {
	path   string
	bundle *scenarios.Bundle
}

// loadBundles loads and validates the bundles named on the command line, or
// every published scenario when none is named. Every problem of every bundle
// is printed to w (warnings too) before a bad-input error is returned.
func loadBundles(w io.Writer, paths []string) ([]namedBundle, error) {
	if len(paths) == 0 {
		pubs, err := scenarios.Published()
		if err != nil {
			return nil, &exitError{code: exitBad, err: err}
		}
		var out []namedBundle
		for _, p := range pubs {
			if errs := scenarios.Validate(p.Bundle, p.Source).Errors(); len(errs) > 0 {
				return nil, &exitError{code: exitBad, err: fmt.Errorf("published scenario %s is invalid:\n%s", p.Name, errs.Error())}
			}
			out = append(out, namedBundle{path: p.Source.Path, bundle: p.Bundle})
		}
		return out, nil
	}
	var (
		out []namedBundle
		bad bool
	)
	for _, p := range paths {
		b, probs, err := loadOne(p)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", p, err)
			bad = true
			continue
		}
		for _, pr := range probs {
			fmt.Fprintln(w, pr.String())
		}
		if len(probs.Errors()) > 0 {
			bad = true
			continue
		}
		out = append(out, namedBundle{path: p, bundle: b})
	}
	if bad {
		return nil, &exitError{code: exitBad, err: errors.New("bad bundle input (see above)")}
	}
	return out, nil
}

// loadOne loads and validates one bundle (a run folder is read as the
// bundle it holds); load problems come back as problems, I/O failures as an
// error.
func loadOne(path string) (*scenarios.Bundle, scenarios.Problems, error) {
	if dir, ok := fuzz.FolderBundle(path); ok {
		path = dir
	}
	b, src, err := scenarios.Load(path)
	if err != nil {
		var ps scenarios.Problems
		if errors.As(err, &ps) {
			return nil, ps, nil
		}
		return nil, nil, err
	}
	return b, scenarios.Validate(b, src), nil
}
