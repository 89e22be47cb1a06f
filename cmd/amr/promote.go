package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
)

func init() { commands = append(commands, newPromoteCmd) }

// promotionControl is the implementation every published scenario must let
// pass; a variable so a test can make it fail on purpose.
var promotionControl = examples.ReferenceName

const promoteLong = `Promote writes a bundle (typically a shrunk counterexample) into the published
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

Exit 0 when promoted, 1 when the reference fails it, 2 when refused.`

type promoteOptions struct {
	name, description, root string
	force                   bool
}

func newPromoteCmd() *cobra.Command {
	var o promoteOptions
	cmd := &cobra.Command{
		Use:   "promote BUNDLE --name l<level>-<kebab-name>",
		Short: "Write a bundle into the published scenarios, with its provenance",
		Long:  promoteLong,
		Example: `  amr promote .amr/fuzz/latest/shrunk --name l1-crash-between-send-and-record
  amr shrink scenarios/l2-govern --impl weak-send-without-approval --out shrunk/
  amr promote shrunk/ --name l2-unapproved-send --description "A send with no approval at all."`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPromote(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "the published name, l<level>-<kebab-name>; the level becomes top_level")
	f.StringVar(&o.description, "description", "", "the scenario's description (default: the bundle's own)")
	f.StringVar(&o.root, "scenarios", "scenarios", "the published scenarios directory")
	f.BoolVar(&o.force, "force", false, "promote even when the reference fails the bundle")
	return cmd
}

func runPromote(cmd *cobra.Command, path string, o promoteOptions) error {
	if o.name == "" {
		return usageErr("promote needs --name l<level>-<kebab-name>")
	}
	bundles, err := loadBundles(cmd.ErrOrStderr(), []string{path})
	if err != nil {
		return err
	}
	p, err := fuzz.PreparePromotion(bundles[0].bundle, o.name, o.description, o.root, version)
	if err != nil {
		return &exitError{code: exitBad, err: fmt.Errorf("promote refused: %w", err)}
	}
	control, err := lookupImpl(promotionControl)
	if err != nil {
		return &exitError{code: exitBad, err: err}
	}
	checks, err := fuzz.CheckPromotion(p.Bundle, control, builtinImpl)
	if err != nil {
		return &exitError{code: exitBad, err: err}
	}
	w := cmd.OutOrStdout()
	if !checks[0].Report.Passed() && !o.force {
		fmt.Fprintf(w, "not promoted: %s\n", checks[0])
		return &exitError{code: exitFail, err: errors.New("the reference fails the bundle; a published scenario must be passable (--force to promote anyway)")}
	}
	if err := fuzz.WritePromotion(p); err != nil {
		return &exitError{code: exitBad, err: fmt.Errorf("promote refused: %w", err)}
	}
	end, err := fuzz.FinishPromotion(p, o.root, checks[0].Report.Passed(), regressImpls(), examples.ReferenceName)
	if err != nil {
		return err
	}
	printPromotion(w, p, checks)
	printPromotionEnd(w, p, end)
	return nil
}

// builtinImpl is the built-in implementation of that name, when there is
// one.
func builtinImpl(name string) (play.Impl, bool) {
	im, ok := examples.Lookup(name)
	return play.Impl{Name: im.Name, New: im.New}, ok
}

func printPromotion(w io.Writer, p *fuzz.Promotion, checks []fuzz.PromotionCheck) {
	b := p.Bundle
	fmt.Fprintln(w, seeds.OfRun(seeds.Named(b.Meta.Name)).Line())
	fmt.Fprintf(w, "promoted %s into %s\n", b.Meta.Name, p.Path)
	fmt.Fprintf(w, "  content hash  %s\n", p.Hash)
	if o := b.Meta.Origin; o != nil {
		fmt.Fprintf(w, "  origin        %s", o.Kind)
		if o.Impl != "" {
			fmt.Fprintf(w, ", %s violates %s", o.Impl, o.Invariant)
		}
		if o.CampaignSeed != "" {
			fmt.Fprintf(w, ", found by run %s of campaign %s", o.Run, o.CampaignSeed)
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
	if len(checks) > 1 && checks[1].Report.Passed() {
		fmt.Fprintf(w, "  note: %s passes under the seeds 'amr run' derives from the new name: its failure depended on the seed\n", checks[1].Impl)
	}
}

// printPromotionEnd says what finishing the promotion did and, when the
// repository is not green yet, what is left to do.
func printPromotionEnd(w io.Writer, p *fuzz.Promotion, end *fuzz.PromotionEnd) {
	baseline := shownPath(end.Baseline)
	if end.Baseline != "" {
		fmt.Fprintf(w, "  baseline      %d rows for %s added to %s (every built-in implementation, as 'amr regress' measures them)\n",
			end.Rows, p.Bundle.Meta.Name, baseline)
	}
	if len(end.Catches) > 0 {
		fmt.Fprintf(w, "  catches       %s\n", strings.Join(end.Catches, ", "))
	}
	if len(end.ToDo) == 0 {
		fmt.Fprintf(w, "nothing left to do: 'go run ./cmd/amr run' includes it from the next build (published scenarios are embedded), and 'amr regress' and 'go test ./...' stay green; commit %s and %s.\n",
			p.Path, baseline)
		return
	}
	fmt.Fprintln(w, "left to do before the repository is green:")
	for _, t := range end.ToDo {
		fmt.Fprintf(w, "  - %s\n", t)
	}
}
