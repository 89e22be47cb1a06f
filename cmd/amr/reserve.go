package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/safefile"
	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
)

func init() { commands = append(commands, newReserveCmd) }

// runBundle runs one bundle runs times against the named implementation
// and returns each level's result (L0..L6). amr reserve apply uses it; it is
// assigned where the runner lives.
var runBundle func(b *scenarios.Bundle, impl string, runs int) (levels [scenarios.Levels]string, err error)

// sealRandom supplies the entry order and the salts; tests replace it.
var sealRandom io.Reader = rand.Reader

// bundleLoader adapts loadBundle to the reserve package.
func bundleLoader(w io.Writer) reserve.Loader {
	return func(path string) (*scenarios.Bundle, error) { return loadBundle(w, path) }
}

func newReserveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reserve",
		Short: "Seal, apply, reveal and verify the hidden reserve set",
		Long: `The reserve set is a few scenario bundles published first as commitments only,
applied with their results published, and revealed later, so passing can never
mean "tuned to the published fixtures" (spec §5).

Each bundle is committed as sha256(domain tag, 32-byte random salt, canonical
bytes). The salt makes a commitment impossible to confirm by guessing the
bundle; the canonical bytes make the check independent of formatting.

  seal    DIR            -> manifest.json (public) + secrets.json (private)
  apply   manifest + secrets + bundles -> application log (public)
  reveal  secrets + bundles -> <id>.json + <id>.salt per bundle (public)
  verify  manifest + revealed directory -> clean, or each problem by id

See docs/reserve.md for the scheme and its threat model.`,
	}
	cmd.AddCommand(newReserveSealCmd(), newReserveApplyCmd(), newReserveRevealCmd(), newReserveVerifyCmd())
	return cmd
}

// parseTime reads an RFC 3339 flag value; empty means now. It is the only
// wall-clock value in the reserve files, and it is recorded as data.
func parseTime(flag, value string) (time.Time, error) {
	if value == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, usageErr("--%s: %v (want RFC 3339, e.g. 2026-03-01T12:00:00Z)", flag, err)
	}
	return t.UTC(), nil
}

// writeNew writes a reserve file that must not exist yet: overwriting a
// secrets file would lose the only way to open its commitments.
func writeNew(path string, v any, perm os.FileMode) error {
	data, err := reserve.Encode(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// Exclusive and whole: never over an existing file, never half of one.
	if err := safefile.CreateExclusive(path, data, perm); err != nil {
		if errors.Is(err, safefile.ErrExists) {
			return usageErr("%s already exists; amr never overwrites reserve files", path)
		}
		return err
	}
	return nil
}

func badInput(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitBad, err: err}
}

func newReserveSealCmd() *cobra.Command {
	var manifestPath, secretsPath, createdAt string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "seal DIR --manifest OUT --secrets OUT",
		Short: "Commit to the bundles in DIR: a public manifest and a private secrets file",
		Long: `Seal validates every bundle in DIR (each subdirectory or .json file is one
bundle), draws a random order and one 32-byte salt per bundle, and writes:

  --manifest  public: format, created_at, count, per entry an opaque id
              (r01, r02, ... in the random order), its commitment and its top
              level, and a root over all commitments in order.
  --secrets   private: per id the bundle's name in DIR, its salt and its
              unsalted bundle hash. Keep it with the maintainer until reveal;
              anyone holding it can confirm the bundles.

Both are canonical JSON. Neither file is ever overwritten.`,
		Example: `  amr reserve seal reserve-bundles/ --manifest reserve/manifest.json --secrets ~/private/secrets.json
  amr reserve seal reserve-bundles/ --manifest m.json --secrets s.json --created-at 2026-03-01T12:00:00Z`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if manifestPath == "" || secretsPath == "" {
				return usageErr("seal needs --manifest and --secrets")
			}
			at, err := parseTime("created-at", createdAt)
			if err != nil {
				return err
			}
			m, s, err := reserve.SealDir(args[0], bundleLoader(cmd.ErrOrStderr()), at, sealRandom)
			if err != nil {
				return badInput(err)
			}
			// A refused seal writes nothing: a secrets file of fresh salts
			// whose manifest was never written opens no commitment anyone
			// holds, and would only be mistaken for one that does.
			if err := writeNew(secretsPath, s, 0o600); err != nil {
				return badInput(err)
			}
			if err := writeNew(manifestPath, m, 0o644); err != nil {
				os.Remove(secretsPath) // ours: writeNew made it just now
				return badInput(err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{
					"manifest": manifestPath, "secrets": secretsPath, "count": m.Count, "root": m.Root,
				})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sealed %d bundle(s), root %s\nmanifest (publish): %s\nsecrets (keep private): %s\n",
				m.Count, m.Root, manifestPath, secretsPath)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&manifestPath, "manifest", "", "where to write the public manifest")
	f.StringVar(&secretsPath, "secrets", "", "where to write the private secrets file")
	f.StringVar(&createdAt, "created-at", "", "creation time recorded in the manifest, RFC 3339 (default: now, UTC)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

const reserveApplyLong = `Apply checks every bundle in --bundles against the secrets and the manifest's
commitments, runs each one --runs times against --impl, and writes the
application log: the manifest root, the implementation, and per entry only its
id, commitment and level results. The log holds no bundle content and no
unsalted hash, so it can be published while the bundles stay hidden. A runner
error is recorded as "error": true; its message (which may quote the bundle)
goes to stderr only.

Exit 0 when every reported level passed, 1 when any failed, 2 on bad input or
a runner error.`

type applyOptions struct {
	manifestPath, secretsPath, bundlesDir, impl, out, appliedAt string
	runs                                                        int
	asJSON                                                      bool
}

func newReserveApplyCmd() *cobra.Command {
	var o applyOptions
	cmd := &cobra.Command{
		Use:   "apply --manifest M --secrets S --bundles DIR [--impl NAME] --out LOG",
		Short: "Run the reserve bundles and write a publishable application log",
		Long:  reserveApplyLong,
		Example: `  amr reserve apply --manifest m.json --secrets s.json --bundles reserve-bundles/ --out apply-reference.json
  amr reserve apply --manifest m.json --secrets s.json --bundles reserve-bundles/ --impl weak-no-send --out apply-weak.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runReserveApply(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.manifestPath, "manifest", "", "the public manifest")
	f.StringVar(&o.secretsPath, "secrets", "", "the private secrets file")
	f.StringVar(&o.bundlesDir, "bundles", "", "the directory that was sealed")
	f.StringVar(&o.impl, "impl", "reference", "implementation to run (see 'amr impls')")
	f.IntVar(&o.runs, "runs", scenarios.ScoredRuns, "scored runs per bundle")
	f.StringVar(&o.out, "out", "", "where to write the application log")
	f.StringVar(&o.appliedAt, "applied-at", "", "application time recorded in the log, RFC 3339 (default: now, UTC)")
	f.BoolVar(&o.asJSON, "json", false, "print the application log as JSON")
	return cmd
}

func runReserveApply(cmd *cobra.Command, o applyOptions) error {
	if o.manifestPath == "" || o.secretsPath == "" || o.bundlesDir == "" || o.out == "" {
		return usageErr("apply needs --manifest, --secrets, --bundles and --out")
	}
	if o.runs < 1 {
		return usageErr("--runs must be at least 1")
	}
	if runBundle == nil {
		return &exitError{code: exitBad, err: errors.New("apply: this build of amr has no runner wired in")}
	}
	at, err := parseTime("applied-at", o.appliedAt)
	if err != nil {
		return err
	}
	m, err := reserve.ReadManifest(o.manifestPath)
	if err != nil {
		return badInput(err)
	}
	s, err := reserve.ReadSecrets(o.secretsPath)
	if err != nil {
		return badInput(err)
	}
	run := func(b *scenarios.Bundle) ([scenarios.Levels]string, error) { return runBundle(b, o.impl, o.runs) }
	opt := reserve.ApplyOptions{Impl: o.impl, Runs: o.runs, AppliedAt: at, HarnessVersion: version}
	app, runErrs, err := reserve.Apply(m, s, o.bundlesDir, bundleLoader(cmd.ErrOrStderr()), run, opt)
	if err != nil {
		return badInput(err)
	}
	if err := writeNew(o.out, app, 0o644); err != nil {
		return badInput(err)
	}
	w := cmd.OutOrStdout()
	if err := emit(w, o.asJSON, app, func() { printApplication(w, app, o.out) }); err != nil {
		return err
	}
	for _, e := range runErrs {
		fmt.Fprintln(cmd.ErrOrStderr(), "run error:", e)
	}
	if len(runErrs) > 0 {
		return &exitError{code: exitBad, err: fmt.Errorf("%d bundle(s) could not be run", len(runErrs))}
	}
	if anyFailed(app) {
		return &exitError{code: exitFail}
	}
	return nil
}

func anyFailed(app *reserve.Application) bool {
	for _, e := range app.Entries {
		for _, r := range e.Levels {
			if r == checker.Fail {
				return true
			}
		}
	}
	return false
}

func printApplication(w io.Writer, app *reserve.Application, path string) {
	fmt.Fprintln(w, namedSeedsLine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tL0\tL1\tL2\tL3\tL4\tL5\tL6")
	for _, e := range app.Entries {
		cells := []string{e.ID}
		for l := range reserve.Levels {
			r := e.Levels[fmt.Sprintf("L%d", l)]
			switch {
			case e.Error:
				r = "error"
			case r == "" || r == checker.Untested:
				r = "-"
			case r == checker.Fail:
				r = "FAIL"
			}
			cells = append(cells, r)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintf(w, "\napplied %d reserve bundle(s) (impl %s, %d run(s) each); log written to %s\n",
		len(app.Entries), app.Impl, app.Runs, path)
}

func newReserveRevealCmd() *cobra.Command {
	var secretsPath, bundlesDir, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reveal --secrets S --bundles DIR --out DIR",
		Short: "Write what is published at reveal time: each bundle with its salt",
		Long: `Reveal checks every sealed bundle against its hash in the secrets file and
writes into --out (which must be empty or new), per entry:

  <id>.json   the bundle in single-JSON form
  <id>.salt   its salt, hex, one line

With the public manifest, these files are all anyone needs to check the
commitments: 'amr reserve verify'. A revealed bundle can then be promoted into
the published scenarios with meta.origin {"kind": "reserve", "reserve_id": <id>}.`,
		Example: `  amr reserve reveal --secrets ~/private/secrets.json --bundles reserve-bundles/ --out reserve/revealed/`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if secretsPath == "" || bundlesDir == "" || out == "" {
				return usageErr("reveal needs --secrets, --bundles and --out")
			}
			s, err := reserve.ReadSecrets(secretsPath)
			if err != nil {
				return badInput(err)
			}
			ids, err := reserve.Reveal(s, bundlesDir, bundleLoader(cmd.ErrOrStderr()), out)
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), map[string]any{"out": out, "ids": ids})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revealed %d bundle(s) into %s: %s\n", len(ids), out, strings.Join(ids, " "))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&secretsPath, "secrets", "", "the private secrets file")
	f.StringVar(&bundlesDir, "bundles", "", "the directory that was sealed")
	f.StringVar(&out, "out", "", "empty or new directory to write the revealed files into")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newReserveVerifyCmd() *cobra.Command {
	var manifestPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify --manifest M REVEALED_DIR",
		Short: "Check revealed bundles against the public manifest",
		Long: `Verify needs only public files: the manifest and the revealed directory. It
checks the manifest (format, count, ids in their sealed positions, the root
over the commitments in order), opens each entry's commitment with its
revealed bundle and salt, compares the top level, and looks for files no entry
names. Every problem is reported by id as missing, extra, altered, reordered,
invalid (opens its commitment but is not a bundle) or manifest.

A reformatted bundle (whitespace, key order) still verifies: commitments are
over canonical bytes. Exit 0 when clean, 1 on any finding, 2 when the
manifest or directory cannot be read.`,
		Example: `  amr reserve verify --manifest reserve/manifest.json reserve/revealed/
  amr reserve verify --manifest reserve/manifest.json reserve/revealed/ --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if manifestPath == "" {
				return usageErr("verify needs --manifest")
			}
			m, err := reserve.ReadManifest(manifestPath)
			if err != nil {
				return badInput(err)
			}
			report, err := reserve.Verify(m, args[0])
			if err != nil {
				return badInput(err)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if err := printJSON(w, report); err != nil {
					return err
				}
			} else {
				printVerify(w, report)
			}
			if !report.OK() {
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&manifestPath, "manifest", "", "the public manifest")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printVerify(w io.Writer, r *reserve.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, id := range r.Verified {
		fmt.Fprintf(tw, "ok\t%s\n", id)
	}
	for _, f := range r.Findings {
		id := f.ID
		if id == "" {
			id = "(manifest)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.ToUpper(f.Kind), id, f.Detail)
	}
	tw.Flush()
	if r.OK() {
		fmt.Fprintf(w, "\nclean: %d of %d entries verified against root %s\n", len(r.Verified), r.Count, r.Root)
		return
	}
	fmt.Fprintf(w, "\n%d finding(s); %d of %d entries verified\n", len(r.Findings), len(r.Verified), r.Count)
}
