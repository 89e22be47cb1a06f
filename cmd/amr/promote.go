package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newPromoteCmd) }

// originPromoted is the provenance kind of a promoted bundle that had none.
const originPromoted = "promoted"

// scenarioName is a published scenario's name: l<level>-<kebab-name>.
var scenarioName = regexp.MustCompile(`^l([0-6])-[a-z0-9]+(-[a-z0-9]+)*$`)

// contentHash identifies what a scenario does, whatever it is called: the
// canonical hash of the bundle with its meta reduced to the two fields that
// change how a run is judged (top_level and horizon). Name, version,
// description and provenance do not count.
func contentHash(b *scenarios.Bundle) (string, error) {
	c := *b
	c.Meta = scenarios.Meta{TopLevel: b.Meta.TopLevel, Horizon: b.Meta.Horizon}
	return reserve.BundleHash(&c)
}

// publishedDir is one scenario directory found in the published set.
type publishedDir struct {
	dir    string
	bundle *scenarios.Bundle // nil when the directory does not load
}

// readPublished lists the scenario directories of a published set: every
// directory whose name starts with "l", as the build embeds them.
func readPublished(root string) ([]publishedDir, error) {
	entries, err := os.ReadDir(root)
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

// promotion is a bundle ready to be written into the published set.
type promotion struct {
	bundle *scenarios.Bundle
	hash   string
	path   string
}

// preparePromotion checks a promotion and returns the bundle as it will be
// written. Every refusal is bad input.
func preparePromotion(b *scenarios.Bundle, name, description, root string) (*promotion, error) {
	m := scenarioName.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("name %q is not l<level>-<kebab-name> (for example l2-forged-approval)", name)
	}
	lvl, _ := strconv.Atoi(m[1])
	if err := checkNameLevel(b, name, lvl); err != nil {
		return nil, err
	}
	p := &promotion{bundle: b.Clone(), path: filepath.Join(root, name)}
	p.bundle.Meta.TopLevel = lvl
	p.bundle.Meta.Name = name
	p.bundle.Meta.Version = 1
	if description != "" {
		p.bundle.Meta.Description = description
	}
	o := &scenarios.Origin{Kind: originPromoted}
	if b.Meta.Origin != nil {
		prev := *b.Meta.Origin
		o = &prev
	}
	if o.HarnessVersion == "" {
		o.HarnessVersion = version
	}
	p.bundle.Meta.Origin = o
	p.bundle.Normalize()
	if errs := scenarios.Validate(p.bundle, nil).Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("the promoted bundle is invalid:\n%s", errs.Error())
	}
	var err error
	if p.hash, err = contentHash(p.bundle); err != nil {
		return nil, err
	}
	published, err := readPublished(root)
	if err != nil {
		return nil, fmt.Errorf("published scenarios: %w", err)
	}
	for _, pub := range published {
		if pub.dir == name || (pub.bundle != nil && pub.bundle.Meta.Name == name) {
			return nil, fmt.Errorf("name %s is already taken in %s", name, root)
		}
		if pub.bundle == nil {
			continue
		}
		if h, err := contentHash(pub.bundle); err == nil && h == p.hash {
			return nil, fmt.Errorf("this bundle is already published as %s (same content hash %s)", pub.dir, h)
		}
	}
	return p, nil
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

// promotionCheck is how one implementation does on the promoted bundle,
// run the way 'amr run' runs published scenarios.
type promotionCheck struct {
	impl   string
	report *suite.Report
}

func (c promotionCheck) String() string {
	r := c.report
	if r.Passed() {
		return fmt.Sprintf("%s passes L0-L%d (%d runs)", c.impl, r.TopLevel, len(r.Runs))
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
	return fmt.Sprintf("%s FAILS %s (%s) (%d runs)", c.impl, strings.Join(failed, " "), strings.Join(inv, ", "), len(r.Runs))
}

// promotionControl is the implementation every published scenario must let
// pass; a variable so a test can make it fail on purpose.
var promotionControl = examples.ReferenceName

// checkPromotion runs the reference, and the implementation the provenance
// names, on the promoted bundle with the seeds 'amr run' will use.
func checkPromotion(b *scenarios.Bundle) ([]promotionCheck, error) {
	names := []string{promotionControl}
	if o := b.Meta.Origin; o != nil && o.Impl != "" && o.Impl != promotionControl {
		if _, ok := examples.Lookup(o.Impl); ok {
			names = append(names, o.Impl)
		}
	}
	var out []promotionCheck
	for _, n := range names {
		impl, err := lookupImpl(n)
		if err != nil {
			return nil, err
		}
		rep, err := suite.Run(b, impl, suite.Config{Runs: 5})
		if err != nil {
			return nil, err
		}
		out = append(out, promotionCheck{impl: n, report: rep})
	}
	return out, nil
}

func newPromoteCmd() *cobra.Command {
	var (
		name, description, root string
		force                   bool
	)
	cmd := &cobra.Command{
		Use:   "promote BUNDLE --name l<level>-<kebab-name>",
		Short: "Write a bundle into the published scenarios, with its provenance",
		Long: `Promote writes a bundle (typically a shrunk counterexample) into the published
scenarios in the directory form, as --scenarios/<name>/. Its meta gets the new
name, version 1, the --description when given, and its provenance in
meta.origin: the origin the bundle already carries (a shrunk bundle names the
fuzz campaign seed and run when known, the implementation, the invariant id,
and the original and shrunk canonical hashes), or kind "promoted", plus the
harness version.

The level in the name becomes the scenario's top_level: it may lower the
bundle's own (a fuzz counterexample is judged at every level) but not raise
it, nor go below the level of the invariant the provenance names.

Promote refuses a name that is not l<level>-<kebab-name>, a name already
taken, a bundle whose content is already published (same canonical hash with
meta reduced to top_level and horizon), and a bundle that does not validate.
It then runs the reference, and the implementation the provenance names, five
times each with the seeds 'amr run' will use, and refuses (unless --force) a
bundle the reference fails: a published scenario must be passable.

Published scenarios are embedded in the amr binary when it is built: 'amr run'
includes the new one from the next build ('go run ./cmd/amr run' rebuilds).

Promote leaves the repository green, or says exactly what is left to do.
When --scenarios is the repository's scenarios/ folder, it plays the new
scenario against every built-in implementation as 'amr regress' does and
adds those rows to testdata/baseline.json (no other row changes), so
'amr regress' and the test of the baseline pass with it. It lists the weak
implementations the scenario catches: a published scenario must catch at
least one (its meta.origin's, or any other); when none fails it, it prints the
edit of examples/registry.go that is needed. Whether a weak implementation
should also name it as its scenario is a decision for a person.

Exit 0 when promoted, 1 when the reference fails it, 2 when refused.`,
		Example: `  amr promote .amr/fuzz/latest/shrunk --name l1-crash-between-send-and-record
  amr shrink scenarios/l2-govern --impl weak-send-without-approval --out shrunk/
  amr promote shrunk/ --name l2-unapproved-send --description "A send with no approval at all."`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				return usageErr("promote needs --name l<level>-<kebab-name>")
			}
			bundles, err := loadBundles(cmd.ErrOrStderr(), args)
			if err != nil {
				return err
			}
			p, err := preparePromotion(bundles[0].bundle, name, description, root)
			if err != nil {
				return &exitError{code: exitBad, err: fmt.Errorf("promote refused: %w", err)}
			}
			checks, err := checkPromotion(p.bundle)
			if err != nil {
				return &exitError{code: exitBad, err: err}
			}
			w := cmd.OutOrStdout()
			if !checks[0].report.Passed() && !force {
				fmt.Fprintf(w, "not promoted: %s\n", checks[0])
				return &exitError{code: exitFail, err: errors.New("the reference fails the bundle; a published scenario must be passable (--force to promote anyway)")}
			}
			if err := scenarios.SaveDir(p.bundle, p.path); err != nil {
				return err
			}
			end, err := finishPromotion(p, root, checks[0].report.Passed())
			if err != nil {
				return err
			}
			printPromotion(w, p, checks)
			printPromotionEnd(w, p, end)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the published name, l<level>-<kebab-name>; the level becomes top_level")
	f.StringVar(&description, "description", "", "the scenario's description (default: the bundle's own)")
	f.StringVar(&root, "scenarios", "scenarios", "the published scenarios directory")
	f.BoolVar(&force, "force", false, "promote even when the reference fails the bundle")
	return cmd
}

func printPromotion(w io.Writer, p *promotion, checks []promotionCheck) {
	b := p.bundle
	fmt.Fprintf(w, "promoted %s into %s\n", b.Meta.Name, p.path)
	fmt.Fprintf(w, "  content hash  %s\n", p.hash)
	if o := b.Meta.Origin; o != nil {
		fmt.Fprintf(w, "  origin        %s", o.Kind)
		if o.Impl != "" {
			fmt.Fprintf(w, ", %s violates %s", o.Impl, o.Invariant)
		}
		if o.CampaignSeed != "" {
			fmt.Fprintf(w, ", campaign seed %s run %s", o.CampaignSeed, o.Run)
		}
		fmt.Fprintln(w)
		if o.OriginalHash != "" {
			fmt.Fprintf(w, "  original      %s\n", o.OriginalHash)
		}
		if o.ShrunkHash != "" {
			fmt.Fprintf(w, "  shrunk        %s\n", o.ShrunkHash)
		}
	}
	for _, c := range checks {
		fmt.Fprintf(w, "  check         %s\n", c)
	}
	if len(checks) > 1 && checks[1].report.Passed() {
		fmt.Fprintf(w, "  note: %s passes under the seeds 'amr run' derives from the new name: its failure depended on the seed\n", checks[1].impl)
	}
}
