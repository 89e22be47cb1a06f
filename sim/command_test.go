package sim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim"
)

// A command line given in the working directory runs the same from the
// sandbox directory: the program is found in PATH, a script and a data
// directory named relative to the working directory become absolute, and
// flags, absolute words and words that name nothing stay as given.
func TestResolveCommand(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh in PATH")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("responder.sh", []byte("exit 0\n"), 0o755))
	require.NoError(t, os.Mkdir("data", 0o755))

	words, err := sim.ResolveCommand(`sh responder.sh --flag data "not a file" /abs/path`)
	require.NoError(t, err)
	here, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, []string{sh, filepath.Join(here, "responder.sh"), "--flag", filepath.Join(here, "data"),
		"not a file", "/abs/path"}, words)

	words, err = sim.ResolveCommand("./responder.sh")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(here, "responder.sh")}, words, "a path to the program is made absolute")
}

func TestResolveCommandRejects(t *testing.T) {
	for _, line := range []string{"", "   ", `sh 'unclosed`, "no-such-program-anywhere-amr"} {
		_, err := sim.ResolveCommand(line)
		assert.Error(t, err, "%q", line)
	}
}
