package scaffold_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scaffold"
)

func TestEverySkeletonHasItsFiles(t *testing.T) {
	want := map[string][]string{
		"python": {"README.md", "responder.py"},
		"node":   {"README.md", "responder.mjs"},
		"go":     {"README.md", "go.mod", "main.go"},
	}
	assert.Equal(t, []string{"go", "node", "python"}, scaffold.Languages())
	for lang, names := range want {
		dir := filepath.Join(t.TempDir(), lang)
		got, err := scaffold.Write(dir, lang)
		require.NoError(t, err)
		assert.Equal(t, names, got, lang)
		s, _ := scaffold.Lookup(lang)
		readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
		require.NoError(t, err)
		assert.Contains(t, string(readme), strings.Join(s.Run, " "), "the README says how to run it")
		assert.Contains(t, string(readme), "docs/implementing.md")
	}
}

// The Go skeleton needs nothing beyond the standard library: its go.mod
// requires nothing, and its imports are all standard.
func TestTheGoSkeletonIsStandardLibraryOnly(t *testing.T) {
	s, _ := scaffold.Lookup("go")
	files, err := s.Files()
	require.NoError(t, err)
	assert.NotContains(t, string(files["go.mod"]), "require")
	imports := string(files["main.go"])
	imports = imports[strings.Index(imports, "import ("):]
	imports = imports[:strings.Index(imports, ")")]
	for _, line := range strings.Split(imports, "\n")[1:] {
		if p := strings.Trim(strings.TrimSpace(line), `"`); p != "" {
			assert.NotContains(t, p, ".", "%s is not in the standard library", p)
		}
	}
}

// Init writes only into a new or empty directory; refused, it writes
// nothing, and the same skeleton is the same bytes every time.
func TestWriteRefusesWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	_, err := scaffold.Write(dir, "python")
	assert.ErrorIs(t, err, scaffold.ErrNotEmpty)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1)

	_, err = scaffold.Write(filepath.Join(dir, "x"), "python")
	assert.ErrorContains(t, err, "not a directory")
	_, err = scaffold.Write(filepath.Join(dir, "new"), "fortran")
	assert.ErrorContains(t, err, "no skeleton")
	assert.NoDirExists(t, filepath.Join(dir, "new"))

	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	_, err = scaffold.Write(a, "node")
	require.NoError(t, err)
	_, err = scaffold.Write(b, "node")
	require.NoError(t, err)
	da, _ := os.ReadFile(filepath.Join(a, "responder.mjs"))
	db, _ := os.ReadFile(filepath.Join(b, "responder.mjs"))
	assert.True(t, bytes.Equal(da, db))
	info, err := os.Stat(filepath.Join(a, "responder.mjs"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm(), "a script is executable")
}
