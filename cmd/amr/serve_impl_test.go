package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

// execRoot runs root on args and returns what it printed and its error.
func execRoot(root *cobra.Command, args []string) string {
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(&bytes.Buffer{})
	root.SetArgs(args)
	err := root.Execute()
	return fmt.Sprintf("%s\nerror: %v", out.String(), err)
}

// serve-impl alone in its root (D174) answers exactly as it does among
// every command: its help, its usage errors, a name that is no
// implementation. Every other command still gets the whole root.
func TestServeImplAloneAnswersAsAmongAllCommands(t *testing.T) {
	for _, args := range [][]string{
		{"serve-impl", "--help"},
		{"serve-impl"},
		{"serve-impl", "no-such-impl"},
		{"serve-impl", "reference", "--max-steps", "0"},
		{"serve-impl", "reference", "--no-such-flag"},
	} {
		assert.Equal(t, execRoot(newRoot(), args), execRoot(rootFor(args), args), "%v", args)
	}
	assert.Len(t, rootFor([]string{"serve-impl"}).Commands(), 1)
	for _, args := range [][]string{{"run"}, {"help", "serve-impl"}, {}, {"--help"}} {
		assert.Equal(t, len(newRoot().Commands()), len(rootFor(args).Commands()), "%v", args)
	}
}
