package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strconv"
)

// defaultFiles are the reference's decision logic: its plan, the world it
// derives from the files, its answer at each decision point (policy.go),
// its admission rules, its model retries and its mending of torn lines.
// The weak implementations live in weak_*.go files of their own and are
// never mutated: they are not the reference.
var defaultFiles = []string{"examples/plan.go", "examples/world.go", "examples/policy.go",
	"examples/rules.go", "examples/retry.go", "examples/torn.go"}

// mutant is one change at one decision point, and the file it makes.
type mutant struct {
	file      string
	line, col int
	op        string
	src       []byte
	// apply mutates the parsed file in place; undo restores it.
	apply, undo func()
}

func (m mutant) String() string { return fmt.Sprintf("%s:%d:%d %s", m.file, m.line, m.col, m.op) }

// The operators:
//
//   - cond: an if condition negated, and each ==/!=, </<=, >/>=, &&/||
//     in it swapped;
//   - answer: each bool a function returns answered the other way (a
//     literal flipped, an expression negated) and its comparisons and
//     connectives swapped: the reference's answers at its decision points
//     (policy.go) and its predicates;
//   - const: an integer constant, case value or comparison operand off by
//     one either way (the budgets the reference keeps: model attempts, the
//     write bound of a step, the agent counts of a contest);
//   - phase: a phase of the plan left out, or two adjacent phases run in
//     the other order (the order is the plan's safety argument).
var swaps = map[token.Token]token.Token{
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.LAND: token.LOR, token.LOR: token.LAND,
}

var comparisons = map[token.Token]bool{token.EQL: true, token.NEQ: true, token.LSS: true,
	token.LEQ: true, token.GTR: true, token.GEQ: true}

// listMutants parses the files and lists their mutants in source order,
// each with the source it makes.
func listMutants(files []string) ([]mutant, error) {
	var all []mutant
	for _, name := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		ms := fileMutants(fset, name, f)
		for i := range ms {
			ms[i].apply()
			var b bytes.Buffer
			err := printer.Fprint(&b, fset, f)
			ms[i].undo()
			if err != nil {
				return nil, fmt.Errorf("%s: printing a mutant: %w", ms[i], err)
			}
			ms[i].src = b.Bytes()
		}
		all = append(all, ms...)
	}
	return all, nil
}

type lister struct {
	fset *token.FileSet
	name string
	out  []mutant
}

func fileMutants(fset *token.FileSet, name string, f *ast.File) []mutant {
	l := &lister{fset: fset, name: name}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.CONST {
				l.constDecl(d)
			}
		case *ast.FuncDecl:
			if d.Body != nil {
				l.function(d)
			}
		}
	}
	return l.out
}

func (l *lister) add(pos token.Pos, op string, apply, undo func()) {
	p := l.fset.Position(pos)
	l.out = append(l.out, mutant{file: l.name, line: p.Line, col: p.Column, op: op, apply: apply, undo: undo})
}

func (l *lister) constDecl(d *ast.GenDecl) {
	for _, s := range d.Specs {
		vs, ok := s.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for _, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok {
				l.offByOne(lit)
			}
			// "2 * time.Second": the literal is the budget.
			if be, ok := v.(*ast.BinaryExpr); ok {
				if lit, ok := be.X.(*ast.BasicLit); ok {
					l.offByOne(lit)
				}
			}
		}
	}
}

// function lists the mutants of a function's body.
func (l *lister) function(fd *ast.FuncDecl) {
	l.body(fd.Body, boolResultIndexes(fd.Type))
}

// body lists the mutants of a function's or a function literal's body,
// whose bool results are boolResults. A function literal inside is listed
// on its own, with its own results: its returns are not the enclosing
// function's, but its conditions are decision points too (the reference
// decides each work item inside the literal it hands to its scan).
func (l *lister) body(b *ast.BlockStmt, boolResults []int) {
	ast.Inspect(b, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			l.body(x.Body, boolResultIndexes(x.Type))
			return false
		case *ast.IfStmt:
			l.cond(x)
		case *ast.ReturnStmt:
			for _, i := range boolResults {
				if i < len(x.Results) {
					l.answer(x, i)
				}
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				if lit, ok := e.(*ast.BasicLit); ok {
					l.offByOne(lit)
				}
			}
		case *ast.BinaryExpr:
			if comparisons[x.Op] {
				for _, e := range []ast.Expr{x.X, x.Y} {
					if lit, ok := e.(*ast.BasicLit); ok {
						l.offByOne(lit)
					}
				}
			}
		case *ast.CompositeLit:
			l.phases(x)
		}
		return true
	})
}

func boolResultIndexes(ft *ast.FuncType) []int {
	if ft.Results == nil {
		return nil
	}
	var out []int
	i := 0
	for _, f := range ft.Results.List {
		n := max(len(f.Names), 1)
		for range n {
			if id, ok := f.Type.(*ast.Ident); ok && id.Name == "bool" {
				out = append(out, i)
			}
			i++
		}
	}
	return out
}

// cond: the if condition negated, then each swap inside it.
func (l *lister) cond(ifs *ast.IfStmt) {
	cond := ifs.Cond
	l.add(ifs.Pos(), "negate",
		func() { ifs.Cond = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: cond}} },
		func() { ifs.Cond = cond })
	l.swapsIn(cond)
}

// answer: the i-th result answered the other way, then each swap inside.
func (l *lister) answer(ret *ast.ReturnStmt, i int) {
	e := ret.Results[i]
	if id, ok := e.(*ast.Ident); ok && (id.Name == "true" || id.Name == "false") {
		other := "true"
		if id.Name == "true" {
			other = "false"
		}
		l.add(e.Pos(), "return "+id.Name+"->"+other,
			func() { ret.Results[i] = ast.NewIdent(other) },
			func() { ret.Results[i] = e })
		return
	}
	l.add(e.Pos(), "return negated",
		func() { ret.Results[i] = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: e}} },
		func() { ret.Results[i] = e })
	l.swapsIn(e)
}

func (l *lister) swapsIn(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		be, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		to, ok := swaps[be.Op]
		if !ok {
			return true
		}
		from := be.Op
		l.add(be.OpPos, from.String()+"->"+to.String(), func() { be.Op = to }, func() { be.Op = from })
		return true
	})
}

// offByOne: an integer literal one more and one less.
func (l *lister) offByOne(lit *ast.BasicLit) {
	if lit.Kind != token.INT {
		return
	}
	v, err := strconv.ParseInt(lit.Value, 0, 64)
	if err != nil {
		return
	}
	from := lit.Value
	for _, d := range []int64{1, -1} {
		to := strconv.FormatInt(v+d, 10)
		l.add(lit.Pos(), from+"->"+to, func() { lit.Value = to }, func() { lit.Value = from })
	}
}

// phases: a slice literal of functions (the plan's phases) with each
// element left out, and each adjacent pair run in the other order.
func (l *lister) phases(cl *ast.CompositeLit) {
	at, ok := cl.Type.(*ast.ArrayType)
	if !ok {
		return
	}
	if _, ok := at.Elt.(*ast.FuncType); !ok || len(cl.Elts) < 2 {
		return
	}
	orig := append([]ast.Expr(nil), cl.Elts...)
	restore := func() { cl.Elts = append([]ast.Expr(nil), orig...) }
	for i, e := range orig {
		i := i
		l.add(e.Pos(), "drop phase "+exprString(e), func() {
			cl.Elts = append(append([]ast.Expr(nil), orig[:i]...), orig[i+1:]...)
		}, restore)
	}
	for i := 0; i+1 < len(orig); i++ {
		i := i
		l.add(orig[i].Pos(), "swap phases "+exprString(orig[i])+","+exprString(orig[i+1]), func() {
			cl.Elts = append([]ast.Expr(nil), orig...)
			cl.Elts[i], cl.Elts[i+1] = cl.Elts[i+1], cl.Elts[i]
		}, restore)
	}
}

func exprString(e ast.Expr) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, token.NewFileSet(), e)
	return b.String()
}
