package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/amr-bench/amr/scenarios"
)

func init() { commands = append(commands, newHashCmd) }

// loadBundle is how hash and reserve read a bundle: load, validate, print
// every problem (warnings too) to w, and fail on any error-level problem.
func loadBundle(w io.Writer, path string) (*scenarios.Bundle, error) {
	b, probs, err := loadOne(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range probs {
		if p.Warning {
			fmt.Fprintln(w, p.String())
		}
	}
	if errs := probs.Errors(); len(errs) > 0 {
		return nil, errs
	}
	return b, nil
}

type hashJSON struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

func newHashCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "hash BUNDLE...",
		Short: "Print the canonical hash of each bundle",
		Long: `Hash prints one line per bundle: "sha256:<hex>  <path>", the SHA-256 of the
bundle's canonical bytes (its single-JSON form in RFC 8785 canonical JSON). The
hash does not depend on the form (a directory or one JSON file) or on how the
files are formatted: only on what the bundle says.

This is the hash run logs and reports record. It is not a reserve commitment:
anyone can hash a guessed bundle and compare (see 'amr reserve').

Every bundle is validated first; problems are printed as file:line: field:
message, and any invalid bundle makes the exit code 2.`,
		Example: `  amr hash scenarios/l0-respond
  amr hash scenarios/l0-respond l0.json      # the same bundle in both forms: one hash
  amr hash --json scenarios/l*/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			rows := []hashJSON{}
			bad := false
			for _, path := range args {
				b, err := loadBundle(stderr, path)
				if err == nil {
					var h string
					if h, err = b.Hash(); err == nil {
						rows = append(rows, hashJSON{Path: path, Hash: h})
						continue
					}
					err = fmt.Errorf("%s: %w", path, err)
				}
				fmt.Fprintln(stderr, err)
				bad = true
			}
			out := cmd.OutOrStdout()
			err := emit(out, asJSON, rows, func() {
				for _, r := range rows {
					fmt.Fprintf(out, "%s  %s\n", r.Hash, r.Path)
				}
			})
			if err != nil {
				return err
			}
			if bad {
				return &exitError{code: exitBad, err: errors.New("bad bundle input (see above)")}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON list of {path, hash}")
	return cmd
}
