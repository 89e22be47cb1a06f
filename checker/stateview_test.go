package checker

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

// sortedView is a view with its sets in sorted order, as viewAt gives them.
// A map the view never wrote may be nil: it reads as an empty one.
func sortedView(v *logView) logView {
	out := logView{isAdmitted: orEmpty(v.isAdmitted), outcome: orEmpty(v.outcome), winner: orEmpty(v.winner)}
	out.admitted = append([]string{}, v.admitted...)
	out.dead = append([]string{}, v.dead...)
	sort.Strings(out.admitted)
	sort.Strings(out.dead)
	return out
}

func orEmpty[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

// randomFacts draws the lines a view reads, with ticks that need not follow
// list order (a run log no engine of ours wrote can say anything).
func randomFacts(t *rapid.T) *facts {
	works := []string{"w1", "w2", "w3"}
	agents := []string{agent1, agent2, "agent-3"}
	tick := rapid.IntRange(0, 6)
	line := func(label string) *auditLine {
		return &auditLine{at: stamp{tick.Draw(t, label+"-tick"), seqImpl},
			AuditRecord: &sandbox.AuditRecord{WorkID: rapid.SampledFrom(works).Draw(t, label+"-work")}}
	}
	f := &facts{}
	for i := rapid.IntRange(0, 6).Draw(t, "admissions"); i > 0; i-- {
		f.admissions = append(f.admissions, line("admit"))
	}
	for i := rapid.IntRange(0, 6).Draw(t, "resolutions"); i > 0; i-- {
		r := line("resolve")
		r.Outcome = rapid.SampledFrom([]string{sandbox.OutcomeCompleted, sandbox.OutcomeAbandoned}).Draw(t, "outcome")
		f.resolutions = append(f.resolutions, r)
	}
	for i := rapid.IntRange(0, 10).Draw(t, "claims"); i > 0; i-- {
		c := line("claim")
		c.AgentID = rapid.SampledFrom(agents).Draw(t, "agent")
		c.Outcome = rapid.SampledFrom([]string{sandbox.ClaimClaimed, sandbox.ClaimWon, sandbox.ClaimStoodDown}).Draw(t, "claim-outcome")
		f.claims = append(f.claims, c)
	}
	for i := rapid.IntRange(0, 3).Draw(t, "deaths"); i > 0; i-- {
		s := &signal{at: stamp{tick.Draw(t, "death-tick"), seqHarness}}
		s.Target = rapid.SampledFrom(agents).Draw(t, "target")
		f.deaths = append(f.deaths, s)
	}
	return f
}

// The cursor's view at any tick is viewAt's, whichever order it is moved
// in: forward a tick at a time, by jumps, or back.
func TestViewCursorIsViewAt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := randomFacts(t)
		c := newViewCursor(f, viewEvents(f))
		for _, at := range rapid.SliceOfN(rapid.IntRange(-1, 7), 1, 12).Draw(t, "ticks") {
			require.Equal(t, sortedView(f.viewAt(at)), sortedView(c.viewAt(at)), "tick %d", at)
		}
	})
}

// A claim earlier in list order but observed later does not override the
// later line: the outcome is the line latest in list order, as viewAt has
// it; and a resolution likewise.
func TestViewCursorKeepsListOrder(t *testing.T) {
	f := &facts{
		claims: []*auditLine{
			{at: stamp{3, 0}, AuditRecord: &sandbox.AuditRecord{WorkID: "w1", AgentID: agent1, Outcome: sandbox.ClaimWon}},
			{at: stamp{1, 0}, AuditRecord: &sandbox.AuditRecord{WorkID: "w1", AgentID: agent1, Outcome: sandbox.ClaimStoodDown}},
		},
		resolutions: []*auditLine{
			{at: stamp{3, 0}, AuditRecord: &sandbox.AuditRecord{WorkID: "w1", Outcome: sandbox.OutcomeCompleted}},
			{at: stamp{2, 0}, AuditRecord: &sandbox.AuditRecord{WorkID: "w1", Outcome: sandbox.OutcomeAbandoned}},
		},
	}
	c := newViewCursor(f, viewEvents(f))
	v := c.viewAt(2)
	require.Equal(t, sandbox.OutcomeAbandoned, v.outcome["w1"])
	require.NotContains(t, v.winner, "w1")
	v = c.viewAt(5)
	require.Equal(t, sandbox.OutcomeAbandoned, v.outcome["w1"], "the later line in list order wins")
	require.NotContains(t, v.winner, "w1", "the later line in list order stood the agent down")
	require.Equal(t, sortedView(f.viewAt(5)), sortedView(v))
}

// soleWinner answers what winners lists when it lists exactly one.
func TestSoleWinnerIsWinners(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cs := claimState{}
		for _, a := range []string{agent1, agent2, "agent-3"} {
			if rapid.Bool().Draw(t, a+"-claims") {
				cs[a] = rapid.SampledFrom([]string{sandbox.ClaimWon, sandbox.ClaimClaimed, sandbox.ClaimStoodDown}).Draw(t, a)
			}
		}
		win, ok := cs.soleWinner()
		all := cs.winners()
		require.Equal(t, len(all) == 1, ok)
		if ok {
			require.Equal(t, all[0], win)
		}
	})
}
