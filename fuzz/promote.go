package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

// OriginPromoted is the provenance kind of a promoted bundle that had none.
const OriginPromoted = "promoted"

// PromotionRuns is how many runs each check of a promotion plays: as many
// as 'amr run' scores a published scenario with (spec §5).
const PromotionRuns = scenarios.ScoredRuns

// scenarioName is a published scenario's name: l<level>-<kebab-name>,
// compiled at its first use, not at every start of amr.
var scenarioName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^l([0-6])-[a-z0-9]+(-[a-z0-9]+)*$`) })

// ContentHash identifies what a scenario does, whatever it is called: the
// canonical hash of the bundle with its meta reduced to the two fields that
// change how a run is judged (top_level and horizon). Name, version,
// description and provenance do not count.
func ContentHash(b *scenarios.Bundle) (string, error) {
	c := *b
	c.Meta = scenarios.Meta{TopLevel: b.Meta.TopLevel, Horizon: b.Meta.Horizon}
	return c.Hash()
}

// publishedDir is one scenario directory found in the published set.
type publishedDir struct {
	dir    string
	bundle *scenarios.Bundle // nil when the directory does not load
}

// readPublished lists the scenario directories of a published set: every
// directory whose name starts with "l", as the build embeds them.
func readPublished(root string) ([]publishedDir, error) {
	entries, err := safefile.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []publishedDir
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "l") {
			continue
		}
		p := publishedDir{dir: e.Name()}
		if b, _, err := scenarios.LoadDir(filepath.Join(root, e.Name())); err == nil {
			p.bundle = b
		}
		out = append(out, p)
	}
	return out, nil
}

// Promotion is a bundle ready to be written into the published set at
// Path, with its content hash.
type Promotion struct {
	Bundle *scenarios.Bundle
	Hash   string
	Path   string
}

// PreparePromotion checks a promotion of b under name into the published
// set at root and returns the bundle as it will be written: the new name,
// version 1, the description when one is given, and its provenance with
// the harness version. Every refusal is bad input.
func PreparePromotion(b *scenarios.Bundle, name, description, root, harnessVersion string) (*Promotion, error) {
	m := scenarioName().FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("name %q is not l<level>-<kebab-name> (for example l2-forged-approval)", name)
	}
	lvl, _ := strconv.Atoi(m[1])
	if err := checkNameLevel(b, name, lvl); err != nil {
		return nil, err
	}
	p := &Promotion{Bundle: promoted(b, name, description, lvl, harnessVersion), Path: filepath.Join(root, name)}
	if errs := scenarios.Validate(p.Bundle, nil).Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("the promoted bundle is invalid:\n%s", errs.Error())
	}
	var err error
	if p.Hash, err = ContentHash(p.Bundle); err != nil {
		return nil, err
	}
	if err := checkUnpublished(root, name, p.Hash); err != nil {
		return nil, err
	}
	return p, nil
}

// promoted is b as it is published under name at level lvl.
func promoted(b *scenarios.Bundle, name, description string, lvl int, harnessVersion string) *scenarios.Bundle {
	c := b.Clone()
	c.Meta.TopLevel = lvl
	c.Meta.Name = name
	c.Meta.Version = 1
	if description != "" {
		c.Meta.Description = description
	}
	o := &scenarios.Origin{Kind: OriginPromoted}
	if b.Meta.Origin != nil {
		prev := *b.Meta.Origin
		o = &prev
	}
	if o.HarnessVersion == "" {
		o.HarnessVersion = harnessVersion
	}
	c.Meta.Origin = o
	c.Normalize()
	return c
}

// checkUnpublished refuses a name already taken in the published set and
// content already published under another name.
func checkUnpublished(root, name, hash string) error {
	published, err := readPublished(root)
	if err != nil {
		return fmt.Errorf("published scenarios: %w", err)
	}
	for _, pub := range published {
		if pub.dir == name || (pub.bundle != nil && pub.bundle.Meta.Name == name) {
			return fmt.Errorf("name %s is already taken in %s", name, root)
		}
		if pub.bundle == nil {
			continue
		}
		if h, err := ContentHash(pub.bundle); err == nil && h == hash {
			return fmt.Errorf("this bundle is already published as %s (same content hash %s)", pub.dir, h)
		}
	}
	return nil
}

// checkNameLevel checks the level a published name gives. It may lower
// the bundle's top_level, as for a fuzz counterexample (judged at every
// level) that shows a defect of a lower one, but never below the level of
// the invariant the bundle's provenance says it violates: the scenario must
// still judge that invariant.
func checkNameLevel(b *scenarios.Bundle, name string, lvl int) error {
	if lvl > b.Meta.TopLevel {
		return fmt.Errorf("name %q says level %d, above the bundle's top_level %d", name, lvl, b.Meta.TopLevel)
	}
	if o := b.Meta.Origin; o != nil && o.Invariant != "" {
		if inv, ok := checker.Lookup(o.Invariant); ok && inv.Level > lvl {
			return fmt.Errorf("name %q says level %d, but the bundle exists to show %s, a level %d invariant: name it l%d-... or higher",
				name, lvl, inv.ID, inv.Level, inv.Level)
		}
	}
	return nil
}

// PromotionCheck is how one implementation does on the promoted bundle,
// run the way 'amr run' runs published scenarios.
type PromotionCheck struct {
	Impl   string
	Report *suite.Report
}

func (c PromotionCheck) String() string {
	r := c.Report
	if r.Passed() {
		return fmt.Sprintf("%s passes L0-L%d (%d runs)", c.Impl, r.TopLevel, len(r.Runs))
	}
	var failed []string
	for i := 0; i <= r.TopLevel; i++ {
		if r.Levels[suite.LevelNames[i]] != suite.Pass {
			failed = append(failed, suite.LevelNames[i])
		}
	}
	ids := map[string]bool{}
	var inv []string
	for _, v := range r.Violations {
		if !ids[v.Invariant] {
			ids[v.Invariant] = true
			inv = append(inv, v.Invariant)
		}
	}
	sort.Strings(inv)
	return fmt.Sprintf("%s FAILS %s (%s) (%d runs)", c.Impl, strings.Join(failed, " "), strings.Join(inv, ", "), len(r.Runs))
}

// CheckPromotion runs the control, then the implementation the bundle's
// provenance names when lookup knows it, on the promoted bundle with the
// seeds 'amr run' will use. The control's check comes first.
func CheckPromotion(b *scenarios.Bundle, control play.Impl, lookup func(name string) (play.Impl, bool)) ([]PromotionCheck, error) {
	impls := []play.Impl{control}
	if o := b.Meta.Origin; o != nil && o.Impl != "" && o.Impl != control.Name {
		if im, ok := lookup(o.Impl); ok {
			impls = append(impls, im)
		}
	}
	var out []PromotionCheck
	for _, im := range impls {
		rep, err := suite.Run(b, im, suite.Config{Runs: PromotionRuns})
		if err != nil {
			return nil, err
		}
		out = append(out, PromotionCheck{Impl: im.Name, Report: rep})
	}
	return out, nil
}

// WritePromotion writes the promoted bundle into its place in one step: the
// directory is written beside it under a temporary name, then renamed into
// place only when nothing is there. Of two promotions under one name
// exactly one lands; the other gets an error wrapping safefile.ErrExists
// and leaves nothing behind.
func WritePromotion(p *Promotion) error {
	tmp, err := os.MkdirTemp(filepath.Dir(p.Path), "."+filepath.Base(p.Path)+".tmp-*")
	if err != nil {
		return err
	}
	if err := scenarios.SaveDir(p.Bundle, tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := safefile.RenameDirExclusive(tmp, p.Path); err != nil {
		os.RemoveAll(tmp)
		if errors.Is(err, safefile.ErrExists) {
			return fmt.Errorf("%s already exists (another promotion took the name first): %w", p.Path, err)
		}
		return err
	}
	return nil
}
