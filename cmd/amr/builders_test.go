package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxBuilderLines bounds a command builder: flags, help and wiring fit in
// it, and logic that grows past it belongs in a package its tests reach.
const maxBuilderLines = 60

// builderSizes returns the line count of every function in the package's
// non-test files that returns a *cobra.Command, by name.
func builderSizes(t *testing.T) map[string]int {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	sizes := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && returnsCommand(fn) {
				sizes[fn.Name.Name] = fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			}
		}
	}
	return sizes
}

func returnsCommand(fn *ast.FuncDecl) bool {
	if fn.Type.Results == nil {
		return false
	}
	for _, r := range fn.Type.Results.List {
		star, ok := r.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Command" {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "cobra" {
				return true
			}
		}
	}
	return false
}

func TestCommandBuildersStaySmall(t *testing.T) {
	sizes := builderSizes(t)
	require.Contains(t, sizes, "newRoot", "the measure finds the builders")
	require.Contains(t, sizes, "newFuzzCmd")
	for name, n := range sizes {
		assert.LessOrEqual(t, n, maxBuilderLines, "%s is %d lines", name, n)
	}
}
