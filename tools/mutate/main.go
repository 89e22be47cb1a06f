// Command mutate measures how much of the reference's decision logic the
// fault search guards: it mutates the reference's decision points one at a
// time (negate an if condition; swap == and !=, < and <=, > and >=, && and
// ||), builds amr with each mutant in a scratch copy of the repository,
// fuzzes the mutated reference for a fixed budget of generated runs, and
// reports which mutants a campaign killed (a counterexample, exit 1) and
// which survived. Conditions that test a planted defect (they name
// "defect") are the zoo's hooks, not the reference's logic, and are left
// alone, with the code only a planted defect runs (their bodies, the
// functions that return unless a defect is planted, and the helpers only
// such code calls): a mutant there is equivalent for the reference.
//
//	go run ./tools/mutate -runs 1000                 # every mutant, one line each, then the score
//	go run ./tools/mutate -list                      # the mutants only
//	go run ./tools/mutate -every 3 -runs 500         # every third mutant
//
// It is a script, not a test: a mutant costs a build and a campaign.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// mutant is one change at one decision point.
type mutant struct {
	file string
	line int
	op   string // "negate" or "a->b"
	// apply mutates the parsed file in place; undo restores it.
	apply, undo func()
}

func (m mutant) String() string { return fmt.Sprintf("%s:%d %s", m.file, m.line, m.op) }

// limit bounds one mutant's campaign: a mutant can make every step spin to
// the planner's write bound, and a campaign over such steps does not end in
// useful time.
var limit time.Duration

var swaps = map[token.Token]token.Token{
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.LAND: token.LOR, token.LOR: token.LAND,
}

func mentionsDefect(fset *token.FileSet, e ast.Expr) bool {
	var b bytes.Buffer
	_ = printer.Fprint(&b, fset, e)
	return strings.Contains(b.String(), "defect")
}

// weakOnly are the reference's functions that only a planted defect
// reaches; a mutant there is equivalent for the reference.
var weakOnly = map[string]bool{"flushPending": true, "approveLines": true, "reclaimSlowly": true,
	"sendUnapproved": true, "latestOfWork": true, "reopens": true}

// weakCode reports whether a node is code only a planted defect runs: the
// body of an if or a case whose condition names the defect, or a function
// that starts by returning unless a defect is planted.
func weakCode(fset *token.FileSet, n ast.Node) bool {
	switch x := n.(type) {
	case *ast.FuncDecl:
		if weakOnly[x.Name.Name] {
			return true
		}
		if x.Body != nil && len(x.Body.List) > 0 {
			// "if r.defect != X { return ... }": the rest runs only with X.
			if ifs, ok := x.Body.List[0].(*ast.IfStmt); ok && returns(ifs.Body) {
				if be, ok := ifs.Cond.(*ast.BinaryExpr); ok && be.Op == token.NEQ && mentionsDefect(fset, be) {
					return true
				}
			}
		}
	case *ast.CaseClause:
		for _, e := range x.List {
			if mentionsDefect(fset, e) {
				return true
			}
		}
	}
	return false
}

func returns(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	_, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	return ok
}

// mutants lists a file's mutants in source order, leaving out the code
// only planted defects run.
func mutants(fset *token.FileSet, name string, f *ast.File) []mutant {
	var out []mutant
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if n == nil || weakCode(fset, n) {
			return false
		}
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		if mentionsDefect(fset, ifs.Cond) {
			// Its body runs only with the defect; its else branch is the
			// reference's own.
			if ifs.Else != nil {
				ast.Inspect(ifs.Else, visit)
			}
			return false
		}
		out = append(out, conditionMutants(fset, name, ifs)...)
		return true
	}
	ast.Inspect(f, visit)
	return out
}

// conditionMutants are the mutants of one if condition: negated, and each
// of its comparisons and connectives swapped.
func conditionMutants(fset *token.FileSet, name string, ifs *ast.IfStmt) []mutant {
	cond := ifs.Cond
	out := []mutant{{file: name, line: fset.Position(ifs.Pos()).Line, op: "negate",
		apply: func() { ifs.Cond = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: cond}} },
		undo:  func() { ifs.Cond = cond }}}
	ast.Inspect(cond, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		to, ok := swaps[be.Op]
		if !ok {
			return true
		}
		from := be.Op
		out = append(out, mutant{file: name, line: fset.Position(be.OpPos).Line, op: from.String() + "->" + to.String(),
			apply: func() { be.Op = to },
			undo:  func() { be.Op = from }})
		return true
	})
	return out
}

func main() {
	files := flag.String("files", "examples/plan.go,examples/world.go,examples/policy.go", "the reference's files whose decision points are mutated")
	runs := flag.Int("runs", 1000, "generated runs each mutant is fuzzed for")
	seed := flag.Int("seed", 1, "campaign seed")
	list := flag.Bool("list", false, "list the mutants and stop")
	only := flag.Int("max", 0, "mutate only the first N mutants (0: all)")
	every := flag.Int("every", 1, "mutate every k-th mutant only, from the first: a sample when time is short")
	flag.DurationVar(&limit, "timeout", 2*time.Minute, "wall-clock limit of one mutant's campaign; a mutant that outlasts it is reported as slow, not judged")
	flag.Parse()
	if err := run(strings.Split(*files, ","), *runs, *seed, *list, *only, max(*every, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
}

func run(files []string, runs, seed int, list bool, only, every int) error {
	scratch, err := os.MkdirTemp("", "amr-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	if err := copyTree(scratch); err != nil {
		return err
	}
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	var all []mutant
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		parsed[name] = f
		all = append(all, mutants(fset, name, f)...)
	}
	if every > 1 {
		var sample []mutant
		for i := 0; i < len(all); i += every {
			sample = append(sample, all[i])
		}
		all = sample
	}
	if only > 0 && only < len(all) {
		all = all[:only]
	}
	if list {
		for i, m := range all {
			fmt.Printf("%3d %s\n", i+1, m)
		}
		return nil
	}
	bin := filepath.Join(scratch, "amr-mutant")
	counts := map[string]int{}
	var survivors []string
	for i, m := range all {
		m.apply()
		outcome, detail := try(fset, parsed[m.file], scratch, m.file, bin, runs, seed)
		m.undo()
		counts[outcome]++
		if outcome == "survived" {
			survivors = append(survivors, m.String())
		}
		fmt.Printf("%3d %-40s %-10s %s\n", i+1, m, outcome, detail)
	}
	// Put the original files back in the scratch copy's place (it is
	// removed anyway) and report.
	judged := counts["killed"] + counts["survived"] + counts["invalid"]
	fmt.Printf("\nmutants: %d; did not build: %d; too slow to judge: %d; judged: %d; killed: %d; invalid (oracles disagree): %d; survived: %d\n",
		len(all), counts["stillborn"], counts["slow"], judged, counts["killed"], counts["invalid"], counts["survived"])
	if judged > 0 {
		fmt.Printf("kill rate: %.1f%% of judged mutants (killed or invalid), %d runs each, campaign seed %d\n",
			100*float64(counts["killed"]+counts["invalid"])/float64(judged), runs, seed)
	}
	sort.Strings(survivors)
	for _, s := range survivors {
		fmt.Println("survivor:", s)
	}
	return nil
}

// try writes the mutated file into the scratch copy, builds amr there and
// fuzzes the mutated reference.
func try(fset *token.FileSet, f *ast.File, scratch, name, bin string, runs, seed int) (string, string) {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, f); err != nil {
		return "stillborn", err.Error()
	}
	path := filepath.Join(scratch, name)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "stillborn", err.Error()
	}
	defer os.WriteFile(path, orig, 0o644)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return "stillborn", err.Error()
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/amr")
	build.Dir = scratch
	if out, err := build.CombinedOutput(); err != nil {
		return "stillborn", firstLine(string(out))
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	fz := exec.CommandContext(ctx, bin, "fuzz", "--seed", fmt.Sprint(seed), "--runs", fmt.Sprint(runs), "--no-corpus", "--no-shrink",
		"--replays", "1", "--out", filepath.Join(scratch, "cx"))
	fz.Dir = scratch
	out, err := fz.CombinedOutput()
	if ctx.Err() != nil {
		return "slow", fmt.Sprintf("no verdict within %s", limit)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return "stillborn", err.Error()
	}
	switch code {
	case 0:
		return "survived", ""
	case 1:
		return "killed", violated(string(out))
	case 3:
		return "invalid", ""
	}
	return "stillborn", fmt.Sprintf("exit %d: %s", code, firstLine(string(out)))
}

func violated(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "violated:"); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// copyTree copies the repository's tracked files into dir.
func copyTree(dir string) error {
	ls, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		return fmt.Errorf("listing the repository's files: %w", err)
	}
	for _, name := range strings.Fields(string(ls)) {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // a tracked file removed in the work tree
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
