package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/internal/shell"
	"github.com/amr-bench/amr/scaffold"
)

func init() { commands = append(commands, newInitCmd) }

func newInitCmd() *cobra.Command {
	var lang string
	cmd := &cobra.Command{
		Use:   "init DIR --lang " + strings.Join(scaffold.Languages(), "|"),
		Short: "Write a minimal responder skeleton that passes the published scenarios",
		Long: `Init writes into DIR a minimal, commented Async Message Responder in the
language --lang names, with a README that says how to run it. It passes the
published scenarios in the step regime as written, so a team starts from green
and changes it from there; docs/implementing.md is the contract it implements.
The Python and Node skeletons use only their standard library, the Go skeleton
only Go's.

DIR must not exist or be empty: init never writes among existing files (exit
2, nothing written).`,
		Example: `  amr init my-responder --lang python
  cd my-responder && amr run --impl-cmd "python3 responder.py" --regime step`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, ok := scaffold.Lookup(lang)
			if !ok {
				return usageErr("--lang: want one of %s, not %q", strings.Join(scaffold.Languages(), ", "), lang)
			}
			dir := args[0]
			names, err := scaffold.Write(dir, lang)
			if err != nil {
				return usageErr("init: %v", err)
			}
			w := cmd.OutOrStdout()
			for _, n := range names {
				fmt.Fprintf(w, "wrote %s\n", filepath.Join(dir, filepath.FromSlash(n)))
			}
			fmt.Fprintf(w, "\nnext, the published scenarios against it (every level should pass):\n  cd %s\n", shell.Quote(dir))
			if len(s.Build) > 0 {
				fmt.Fprintf(w, "  %s\n", shell.Join(s.Build...))
			}
			fmt.Fprintf(w, "  amr run --impl-cmd %s --regime step\n", shell.Quote(shell.Join(s.Run...)))
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "the skeleton's language: "+strings.Join(scaffold.Languages(), ", "))
	return cmd
}
