package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository this test runs in: the nearest directory
// above the package that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
}

// docFiles are the Markdown files whose commands are held to their text:
// README.md, then docs/*.md by name, relative to root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	sort.Strings(docs)
	files := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		require.NoError(t, err)
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

// parseDocs parses every doc file under root.
func parseDocs(t *testing.T, root string) map[string][]Block {
	t.Helper()
	out := map[string][]Block{}
	for _, f := range docFiles(t, root) {
		data, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		blocks, err := Parse(f, data)
		require.NoError(t, err)
		out[f] = blocks
	}
	return out
}

// Every shell block of the README says whether it runs, every annotation
// in the docs parses, and the docs hold blocks that run: the commands a
// reader sees are the ones TestDocumentedCommands runs, or say why not.
func TestDocsAreAnnotated(t *testing.T) {
	docs := parseDocs(t, repoRoot(t))
	for _, b := range docs["README.md"] {
		if b.Shell() {
			assert.True(t, b.Annotated, "%s: a shell block of the README says whether it runs (<!-- doc: run --> or <!-- doc: no-run reason=... -->)", b.Where())
		}
	}
	runs := map[string]int{}
	for f, blocks := range docs {
		for _, b := range blocks {
			if b.Run {
				runs[f] += len(b.Commands)
			}
		}
	}
	assert.Positive(t, runs["README.md"])
	assert.GreaterOrEqual(t, runs["docs/tutorial.md"], 10, "the walkthrough is commands that run")
}

// The README's top: the two commands, the walkthrough's link, and the Go
// version go.mod asks for.
func TestReadmeTop(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	text := string(readme)
	top, _, ok := strings.Cut(text, "\n## What it does")
	require.True(t, ok, "the README has its 'What it does' section")
	assert.Contains(t, top, "(docs/tutorial.md)", "the first-hour walkthrough is linked from the top")
	_, twoCommands, ok := strings.Cut(top, "## The two commands")
	require.True(t, ok)
	assert.Contains(t, twoCommands, "go run ./cmd/amr run")
	assert.Contains(t, twoCommands, "go test ./...")

	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(string(gomod))
	require.NotNil(t, m)
	assert.Contains(t, twoCommands, "Go "+m[1]+" or later", "the README names the Go version go.mod requires")
}
