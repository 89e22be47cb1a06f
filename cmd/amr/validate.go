package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newValidateCmd) }

const validateLong = `Validate loads each bundle (a directory holding bundle.json, or a single-JSON
file) and checks it: JSON syntax, unknown fields, types, references to messages,
approvals and agents that do not exist, ticks beyond the horizon, duplicate ids,
overlapping tick jumps, approvals no rule set could ever make bindable, ...

Every problem is printed as file:line: field: message. Warnings (for example an
unknown rule condition, which never matches) do not fail validation.

Exit 0 when every bundle is valid, 2 otherwise.`

func newValidateCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate BUNDLE...",
		Short: "Check scenario bundles and name the file, line and field of every problem",
		Long:  validateLong,
		Example: `  amr validate scenarios/l2-govern
  amr validate scenarios/l*/ --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			type result struct {
				Path     string   `json:"path"`
				Valid    bool     `json:"valid"`
				Problems []string `json:"problems"`
			}
			var results []result
			bad := false
			for _, p := range args {
				r := result{Path: p, Problems: []string{}}
				_, probs, err := loadOne(p)
				if err != nil {
					r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", p, err))
				}
				for _, pr := range probs {
					r.Problems = append(r.Problems, pr.String())
				}
				r.Valid = err == nil && len(probs.Errors()) == 0
				bad = bad || !r.Valid
				results = append(results, r)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := printJSON(out, results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					for _, p := range r.Problems {
						fmt.Fprintln(out, p)
					}
					if r.Valid {
						fmt.Fprintf(out, "ok  %s\n", r.Path)
					} else {
						fmt.Fprintf(out, "BAD %s\n", r.Path)
					}
				}
			}
			if bad {
				return &exitError{code: exitBad}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print results as JSON")
	return cmd
}
