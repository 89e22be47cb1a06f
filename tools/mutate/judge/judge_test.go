package main

import (
	"strings"
	"testing"

	"github.com/amr-bench/amr/sim/sandbox"
)

// writer appends n lines a step to the audit log.
type writer struct{ n int }

func (w writer) Step(env *sandbox.Env) error {
	for i := 0; i < w.n; i++ {
		if err := env.Files.Append(sandbox.Audit, []byte(`{"event":"x","at":0}`)); err != nil {
			return err
		}
	}
	return nil
}

func stepGuarded(t *testing.T, perStep, steps int, lim limits) *guard {
	t.Helper()
	g := &guard{lim: lim}
	x := &guarded{inner: writer{perStep}, g: g}
	env := &sandbox.Env{Files: sandbox.NewMemory()}
	for i := 0; i < steps; i++ {
		_ = x.Step(env)
	}
	return g
}

func TestAStepPastItsWriteBudgetIsHung(t *testing.T) {
	lim := limits{step: 5, run: 100, hang: 3}
	if g := stepGuarded(t, 5, 3, lim); g.hung != "" || g.maxStep != 5 || g.total != 15 {
		t.Fatalf("5 lines a step under a budget of 5: hung %q, max %d, total %d", g.hung, g.maxStep, g.total)
	}
	g := stepGuarded(t, 6, 3, lim)
	if !strings.Contains(g.hung, "a step wrote more than 5 lines") {
		t.Fatalf("6 lines a step under a budget of 5: hung %q", g.hung)
	}
	if g.total != 6 {
		t.Fatalf("writes went on after the budget was spent: %d counted", g.total)
	}
}

func TestARunPastItsWriteBudgetIsHung(t *testing.T) {
	lim := limits{step: 10, run: 20, hang: 3}
	if g := stepGuarded(t, 4, 5, lim); g.hung != "" {
		t.Fatalf("20 lines in a run under a budget of 20: hung %q", g.hung)
	}
	if g := stepGuarded(t, 4, 6, lim); !strings.Contains(g.hung, "a run wrote more than 20 lines") {
		t.Fatalf("24 lines in a run under a budget of 20: hung %q", g.hung)
	}
}

func TestForcedAdvancesInARowMakeAHang(t *testing.T) {
	end := func(tick int, forced bool) sandbox.LogRecord {
		return sandbox.LogRecord{Kind: sandbox.LogTickEnd, Tick: tick, Forced: forced}
	}
	broken := []sandbox.LogRecord{end(1, true), end(2, true), end(3, false), end(4, true), end(5, true)}
	if got := forcedInARow(broken, 3); got != "" {
		t.Fatalf("two forced advances in a row, twice: %q", got)
	}
	row := append(broken, end(6, true))
	if got := forcedInARow(row, 3); !strings.Contains(got, "the last at tick 6") {
		t.Fatalf("three forced advances in a row: %q", got)
	}
}

// The unmutated reference survives its own judge, within the budgets, and
// two judgements of it have the same digest: the digest is what tells a
// survivor with the reference's artifacts from one without.
func TestTheReferenceSurvivesWithTheSameDigestTwice(t *testing.T) {
	lim := limits{step: 512, run: 5000, hang: 3}
	a, err := judge(1, 8, "default", 1, lim)
	if err != nil {
		t.Fatal(err)
	}
	b, err := judge(1, 8, "default", 1, lim)
	if err != nil {
		t.Fatal(err)
	}
	if a.Outcome != "survived" || a.Suite != "passes" {
		t.Fatalf("the reference: %+v", a)
	}
	if a.Digest != b.Digest {
		t.Fatalf("two judgements of the reference differ: %s and %s", a.Digest, b.Digest)
	}
	c, err := judge(2, 8, "default", 1, lim)
	if err != nil {
		t.Fatal(err)
	}
	if c.Digest == a.Digest {
		t.Fatal("another campaign seed gave the same digest: the digest does not cover the runs")
	}
}
