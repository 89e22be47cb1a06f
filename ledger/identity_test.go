package ledger_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/ledger"
)

// program writes a file standing for an installed program or a script.
func program(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o755))
	return p
}

func identity(t *testing.T, d ledger.Declared, command ...string) ledger.Identity {
	t.Helper()
	id, err := ledger.ProcessIdentity(command, d)
	require.NoError(t, err)
	return id
}

// What runs is what is hashed: the interpreter and the script both, so a
// changed script is another implementation and an unchanged one the same.
func TestIdentityCoversTheScript(t *testing.T) {
	dir := t.TempDir()
	py := program(t, dir, "bin/python3", "interpreter v1")
	script := program(t, dir, "impl/responder.py", "print('v1')\n")
	first := identity(t, ledger.Declared{}, py, script)
	require.True(t, first.Known(), first.Unknown)
	assert.Regexp(t, `^process:.+@sha256:[0-9a-f]{64}$`, first.Fingerprint)
	assert.Equal(t, first, identity(t, ledger.Declared{}, py, script), "the same files, the same identity")
	roles := []string{}
	for _, p := range first.Parts {
		roles = append(roles, p.Role)
	}
	assert.Equal(t, []string{ledger.RoleExecutable, ledger.RoleFile}, roles)

	program(t, dir, "impl/responder.py", "print('v2')\n")
	assert.NotEqual(t, first.Fingerprint, identity(t, ledger.Declared{}, py, script).Fingerprint, "an edited script")
	program(t, dir, "impl/responder.py", "print('v1')\n")
	program(t, dir, "bin/python3", "interpreter v2")
	assert.NotEqual(t, first.Fingerprint, identity(t, ledger.Declared{}, py, script).Fingerprint, "another interpreter")

	cfg := program(t, dir, "impl/prod.toml", "a = 1\n")
	withFlag := identity(t, ledger.Declared{}, py, script, "--config="+cfg)
	program(t, dir, "impl/prod.toml", "a = 2\n")
	assert.NotEqual(t, withFlag.Fingerprint, identity(t, ledger.Declared{}, py, script, "--config="+cfg).Fingerprint, "a file named in --flag=value")
}

// A directory named on the command line is hashed whole; a script run by
// its shebang brings its interpreter.
func TestIdentityCoversDirectoriesAndShebangs(t *testing.T) {
	dir := t.TempDir()
	node := program(t, dir, "bin/node", "node")
	program(t, dir, "app/index.js", "v1")
	app := filepath.Join(dir, "app")
	before := identity(t, ledger.Declared{}, node, app)
	require.True(t, before.Known())
	program(t, dir, "app/lib/util.js", "new")
	assert.NotEqual(t, before.Fingerprint, identity(t, ledger.Declared{}, node, app).Fingerprint)

	interp := program(t, dir, "bin/myinterp", "i1")
	script := program(t, dir, "run.my", "#!"+interp+" -q\nwork\n")
	id := identity(t, ledger.Declared{}, script)
	require.True(t, id.Known())
	require.Len(t, id.Parts, 2)
	assert.Equal(t, ledger.Part{Role: ledger.RoleInterpreter, Path: interp, Hash: id.Parts[1].Hash}, id.Parts[1])
}

// Where the command runs code it does not name as a file, the identity is
// unknown, and says why; a declaration makes it known.
func TestIdentityIsUnknownWhereAmrCannotSeeWhatRuns(t *testing.T) {
	dir := t.TempDir()
	sh := program(t, dir, "bin/sh", "shell")
	py := program(t, dir, "bin/python3.12", "python")
	node := program(t, dir, "bin/node", "node")
	gobin := program(t, dir, "bin/go", "go")
	script := program(t, dir, "s.sh", "echo hi\n")
	cases := []struct {
		name    string
		command []string
		why     string
	}{
		{"sh -c", []string{sh, "-c", "cd x && ./run"}, "sh -c runs code"},
		{"sh -ec", []string{sh, "-ec", "./run"}, "sh -ec runs code"},
		{"python -m", []string{py, "-m", "responder"}, "python3.12 -m runs code"},
		{"python -c", []string{py, "-c", "import responder"}, "python3.12 -c runs code"},
		{"node -e", []string{node, "-e", "require('./x')"}, "node -e runs code"},
		{"an interpreter given nothing", []string{node}, "node is given no file"},
		{"go run", []string{gobin, "run", "."}, "go resolves what runs"},
		{"no such executable", []string{filepath.Join(dir, "nope")}, "not found"},
		{"a word, no file", []string{py, "responder"}, "given no file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := identity(t, ledger.Declared{}, c.command...)
			assert.False(t, id.Known())
			assert.Contains(t, id.Unknown, c.why)
			assert.Contains(t, id.Fingerprint, ledger.UnknownSuffix)

			declared := identity(t, ledger.Declared{Version: "2.0"}, c.command...)
			assert.True(t, declared.Known(), "a declared version answers for it")
			assert.NotEqual(t, declared.Fingerprint, identity(t, ledger.Declared{Version: "2.1"}, c.command...).Fingerprint)
		})
	}
	// The other direction: the same programs told to run a file are known.
	for _, command := range [][]string{{sh, script}, {sh, "-e", script}, {py, "-u", script}, {node, script}} {
		assert.True(t, identity(t, ledger.Declared{}, command...).Known(), "%v", command)
	}
}

// env is looked through: the program it runs is the implementation.
func TestIdentityLooksThroughEnv(t *testing.T) {
	dir := t.TempDir()
	env := program(t, dir, "bin/env", "env")
	sh := program(t, dir, "bin/sh", "shell")
	script := program(t, dir, "s.sh", "v1")
	id := identity(t, ledger.Declared{}, env, "A=1", sh, script)
	require.True(t, id.Known())
	require.Len(t, id.Parts, 3)
	assert.Equal(t, script, id.Parts[2].Path)
	assert.False(t, identity(t, ledger.Declared{}, env, "A=1", sh, "-c", "x").Known())
}

// A declared directory is hashed by sorted path and content, links by
// their target, and the same tree gives the same digest wherever it is.
func TestDirectoryDigest(t *testing.T) {
	tree := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, content := range files {
			program(t, dir, name, content)
		}
		return dir
	}
	base := map[string]string{"a.py": "a", "lib/b.py": "b", "lib/c/d.py": "d"}
	h1, err := ledger.DirectoryDigest(tree(t, base))
	require.NoError(t, err)
	h2, err := ledger.DirectoryDigest(tree(t, base))
	require.NoError(t, err)
	assert.Equal(t, h1, h2, "the same tree elsewhere")

	for name, files := range map[string]map[string]string{
		"a content changed": {"a.py": "A", "lib/b.py": "b", "lib/c/d.py": "d"},
		"a file renamed":    {"a2.py": "a", "lib/b.py": "b", "lib/c/d.py": "d"},
		"a file added":      {"a.py": "a", "lib/b.py": "b", "lib/c/d.py": "d", "e.py": ""},
	} {
		h, err := ledger.DirectoryDigest(tree(t, files))
		require.NoError(t, err)
		assert.NotEqual(t, h1, h, name)
	}
	skipped := map[string]string{"a.py": "a", "lib/b.py": "b", "lib/c/d.py": "d", ".git/HEAD": "x", "lib/__pycache__/b.pyc": "y"}
	h, err := ledger.DirectoryDigest(tree(t, skipped))
	require.NoError(t, err)
	assert.Equal(t, h1, h, "a repository's history and a byte-code cache are not what runs")

	withLink := tree(t, base)
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(withLink, "link")))
	h, err = ledger.DirectoryDigest(withLink)
	require.NoError(t, err)
	assert.NotEqual(t, h1, h, "a link is part of the tree, by its target")

	withFIFO := tree(t, base)
	require.NoError(t, syscall.Mkfifo(filepath.Join(withFIFO, "pipe"), 0o644))
	_, err = ledger.DirectoryDigest(withFIFO)
	assert.ErrorContains(t, err, "pipe is not a regular file")
	_, err = ledger.ProcessIdentity([]string{"/bin/true"}, ledger.Declared{Dir: withFIFO})
	assert.ErrorContains(t, err, "declared directory")
}
