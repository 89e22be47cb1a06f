package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/suite"
)

func init() { commands = append(commands, newImplsCmd) }

// lookupImpl resolves --impl to a runnable implementation.
func lookupImpl(name string) (suite.Impl, error) {
	impl, ok := examples.Lookup(name)
	if !ok {
		var names []string
		for _, i := range examples.All() {
			names = append(names, i.Name)
		}
		sort.Strings(names)
		return suite.Impl{}, usageErr("unknown implementation %q (built in: %s)", name, strings.Join(names, ", "))
	}
	return suite.Impl{Name: impl.Name, New: impl.New}, nil
}

func newImplsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "impls",
		Short: "List the built-in implementations: the reference and the weak ones",
		Long: `Impls lists the implementations compiled into amr. The reference is correct at
every level; each weak implementation is the reference with one planted defect,
and names the invariant ids that defect must trip (any one counts as caught) and
the published scenario that must catch it.`,
		Example: `  amr impls
  amr impls --json | jq '.[] | select(.kind=="weak") | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			type row struct {
				Name        string   `json:"name"`
				Kind        string   `json:"kind"`
				Targets     []string `json:"targets,omitempty"`
				Scenario    string   `json:"scenario,omitempty"`
				Description string   `json:"description"`
			}
			var rows []row
			for _, i := range examples.All() {
				rows = append(rows, row{Name: i.Name, Kind: i.Kind, Targets: i.Targets, Scenario: i.Scenario, Description: i.Description})
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tSCENARIO\tTARGETS\tDESCRIPTION")
			for _, r := range rows {
				scen := r.Scenario
				if scen == "" {
					scen = "-"
				}
				targets := strings.Join(r.Targets, ",")
				if targets == "" {
					targets = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Kind, scen, targets, r.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
