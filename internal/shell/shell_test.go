package shell_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/shell"
)

func TestQuote(t *testing.T) {
	tests := map[string]string{
		"plain":                "plain",
		"--impl-cmd":           "--impl-cmd",
		"a/b.json":             "a/b.json",
		"":                     "''",
		"two words":            "'two words'",
		"it's":                 `'it'\''s'`,
		"$HOME":                "'$HOME'",
		"python3 responder.py": "'python3 responder.py'",
	}
	for in, want := range tests {
		assert.Equal(t, want, shell.Quote(in), "shell.Quote(%q)", in)
	}
}

// TestJoinSurvivesTheShell hands joined words to a real shell and reads
// them back one per line.
func TestJoinSurvivesTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	words := []string{"a b", "it's", "$HOME", "`x`", "", "*", "plain"}
	out, err := exec.Command(sh, "-c", `for w in `+shell.Join(words...)+`; do printf '%s|' "$w"; done`).Output()
	require.NoError(t, err)
	assert.Equal(t, "a b|it's|$HOME|`x`||*|plain|", string(out))
}
