package reserve

import (
	"errors"
	"fmt"
	"time"

	"github.com/amr-bench/amr/scenarios"
)

// Levels is the number of levels a run reports, L0 through L6.
const Levels = scenarios.Levels

// Runner runs one bundle the required number of times and returns the
// result of each level ("pass", "fail", "untested", or "" for a level the
// bundle does not report).
type Runner func(b *scenarios.Bundle) ([Levels]string, error)

// Application is the publishable record of one application of the reserve
// set: per entry only its id, its commitment and its level results. It
// holds no bundle content and no unsalted hash, so it confirms no guess.
type Application struct {
	Format         string    `json:"format"`
	ManifestRoot   string    `json:"manifest_root"`
	AppliedAt      string    `json:"applied_at"`
	HarnessVersion string    `json:"harness_version"`
	Impl           string    `json:"impl"`
	Runs           int       `json:"runs"`
	Entries        []Applied `json:"entries"`
}

// Applied is one entry's results. Error is set when the harness could not
// run the bundle; its message stays with the maintainer, since it may
// quote the bundle.
type Applied struct {
	ID         string            `json:"id"`
	Commitment string            `json:"commitment"`
	Levels     map[string]string `json:"levels"`
	Error      bool              `json:"error,omitempty"`
}

// ApplyOptions are recorded in the application log as they are given.
type ApplyOptions struct {
	Impl           string
	Runs           int
	AppliedAt      time.Time
	HarnessVersion string
}

// Apply runs every bundle of a sealed set in manifest order. Before
// anything runs, every bundle is opened from bundlesDir and checked against
// both the secrets and the manifest commitment, so results are published
// only for the bundles committed to. A bundle the runner fails on is
// recorded with Error set; the runner's errors come back as runErrs, each
// prefixed with the entry id.
func Apply(m *Manifest, s *Secrets, bundlesDir string, load Loader, run Runner, opt ApplyOptions) (app *Application, runErrs []error, err error) {
	if run == nil {
		return nil, nil, errors.New("apply: no runner")
	}
	if err := checkPair(m, s); err != nil {
		return nil, nil, fmt.Errorf("apply: %w", err)
	}
	bundles := make([]*scenarios.Bundle, len(s.Entries))
	for i, sec := range s.Entries {
		b, salt, err := openSecret(sec, bundlesDir, load)
		if err != nil {
			return nil, nil, fmt.Errorf("apply: %w", err)
		}
		canonical, err := b.Canonical()
		if err != nil {
			return nil, nil, fmt.Errorf("apply: %s: %w", sec.ID, err)
		}
		c, err := Commit(salt, canonical)
		if err != nil {
			return nil, nil, fmt.Errorf("apply: %s: %w", sec.ID, err)
		}
		if c != m.Entries[i].Commitment {
			return nil, nil, fmt.Errorf("apply: %s: bundle does not open its manifest commitment", sec.ID)
		}
		bundles[i] = b
	}
	app = &Application{
		Format:         ApplicationFormat,
		ManifestRoot:   m.Root,
		AppliedAt:      opt.AppliedAt.UTC().Format(time.RFC3339),
		HarnessVersion: opt.HarnessVersion,
		Impl:           opt.Impl,
		Runs:           opt.Runs,
		Entries:        []Applied{},
	}
	for i, b := range bundles {
		e := Applied{ID: m.Entries[i].ID, Commitment: m.Entries[i].Commitment, Levels: map[string]string{}}
		levels, err := run(b)
		if err != nil {
			e.Error = true
			runErrs = append(runErrs, fmt.Errorf("%s: %w", e.ID, err))
		} else {
			for l, result := range levels {
				if result != "" {
					e.Levels[fmt.Sprintf("L%d", l)] = result
				}
			}
		}
		app.Entries = append(app.Entries, e)
	}
	return app, runErrs, nil
}
