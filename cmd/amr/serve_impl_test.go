package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim"
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

// A plain serve-impl line is run without building a command (D226), with
// the flags the command would parse; every other line, help and each usage
// error included, goes to the command, which answers it.
func TestOnlyAPlainServeImplLineTakesTheQuickPath(t *testing.T) {
	for _, c := range []struct {
		args         []string
		name, regime string
		steps        int
	}{
		{[]string{"serve-impl", "reference"}, "reference", "", sim.DefaultMaxSteps},
		{[]string{"serve-impl", "reference", "--regime", "step"}, "reference", "step", sim.DefaultMaxSteps},
		{[]string{"serve-impl", "--regime=once", "weak-no-send", "--max-steps", "3"}, "weak-no-send", "once", 3},
	} {
		name, cfg, ok := quickServeImpl(c.args)
		require.True(t, ok, "%v", c.args)
		assert.Equal(t, c.name, name)
		assert.Equal(t, c.regime, cfg.Regime)
		assert.Equal(t, c.steps, cfg.MaxSteps)
		assert.Equal(t, 10*time.Millisecond, cfg.Poll)
	}
	for _, args := range [][]string{
		{"serve-impl", "--help"},
		{"serve-impl", "reference", "-h"},
		{"serve-impl"},
		{"serve-impl", "no-such-impl"},
		{"serve-impl", "reference", "weak-no-send"},
		{"serve-impl", "reference", "--max-steps", "0"},
		{"serve-impl", "reference", "--no-such-flag"},
		{"serve-impl", "reference", "--poll", "soon"},
		{"run", "reference"},
		{},
	} {
		_, _, ok := quickServeImpl(args)
		assert.False(t, ok, "%v", args)
	}
}
