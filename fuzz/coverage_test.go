package fuzz

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Each published scenario, played against the reference, reaches exactly
// the situations it was written for.
func TestObserveReadsWhatHappened(t *testing.T) {
	want := map[string][]string{
		"l0-respond":          nil,
		"l1-anchor-collision": {CAnchorCollision, CSameSubject, CDuplicateDelivery, CLongFollowUp},
		"l1-crash-after-send": {CCrashDeclareSend, CCrashSendRecord, CCrashMidTick, CCrashApproved,
			EdgeCounter("approval_budget", "at"), EdgeCounter("approval_budget", "past"), EdgeCounter("reply_budget", "before")},
		"l1-multiturn-crash":             {CCrashDeclareSend, CLongFollowUp, CCrashMidTick, CDraftAfterRestart, CCrashApproved},
		"l2-approval-redelivery":         {CRedelivered, CRedeliveredSent},
		"l2-govern":                      {CForgedDelivered, CCrashDeclareSend, CPostureInFlight, CRulesChange, CLateApproval, CDraftAfterRestart, CDeclined},
		"l2-tick-jump-intake":            {CJumpAcrossBudget, CMessageInJump},
		"l3-fleet-concurrent":            {CDeathPendingDraft, CContestedClaim, CDuplicateDelivery, CRedraft, CReassigned},
		"l3-fleet-concurrent-redelivery": {CRedelivered, CDeathPendingDraft, CContestedClaim, CDuplicateDelivery, CRedraft, CRedeliveredSent, CReassigned},
		"l4-operator-escalation":         {CEscalationUnapprove},
		"l5-identity-fallibility":        {CSameSubject, CEscalationUnapprove},
		"l2-approval-of-previous-draft":  {CDeathPendingDraft, CContestedClaim, CRedraft, CReassigned, CStaleApproval},
		"l3-reject-then-approve":         {CRejected, CRejectThenApprove},
		"l2-same-sender-same-body":       {CFollowUpPending, CSameBody},
		"l2-posture-allowance-edge":      {CPostureInFlight, CDraftAfterRestart, CDeclined, EdgeCounter("posture_allowance", "past")},
		"l6-post-approval-escalation":    {CEscalationApproved, CEscalationSameTick},
	}
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	ref := builtin(t, "reference")
	for _, p := range pubs {
		expected, ok := want[p.Name]
		if !ok {
			continue // a scenario published after this table was written
		}
		t.Run(p.Name, func(t *testing.T) {
			r, err := Play(p.Bundle, ref, nil, 0)
			require.NoError(t, err)
			require.False(t, r.Failed())
			var got []string
			for _, c := range Counters() {
				if r.Seen.Has(c.Name) {
					got = append(got, c.Name)
				}
			}
			var wantOrdered []string
			for _, c := range Counters() {
				for _, e := range expected {
					if e == c.Name {
						wantOrdered = append(wantOrdered, e)
					}
				}
			}
			assert.Equal(t, wantOrdered, got)
		})
	}
}

// The "sometimes" assertions: a default campaign of modest size reaches
// every situation at least once, and the reference fails none of its runs.
func TestDefaultCampaignReachesEveryCounter(t *testing.T) {
	runs := 2000
	if testing.Short() {
		runs = 300
	}
	sum := runCampaign(t, Config{Impl: builtin(t, "reference"), Seed: 1, Runs: runs})
	if sum.Failure != nil {
		data, _ := sum.Failure.Bundle.MarshalIndent()
		t.Fatalf("the reference failed run %d: %v\n%s", sum.Failure.Index, sum.Failure.Verdict().Violations, data)
	}
	assert.Equal(t, runs, sum.Runs)
	assert.Empty(t, sum.Coverage.Missing())
}

func TestCoverageCounts(t *testing.T) {
	var a, b Coverage
	var s Seen
	s.mark(CRulesChange)
	s.mark(CLongFollowUp)
	a.Add(s)
	a.Add(0)
	b.Add(s)
	a.Merge(b)
	assert.Equal(t, 3, a.Runs)
	assert.Equal(t, 2, a.Hits(CRulesChange))
	assert.Equal(t, 2, a.Hits(CLongFollowUp))
	assert.Zero(t, a.Hits(CForgedDelivered))
	assert.Len(t, a.Missing(), len(Counters())-2)
	assert.Len(t, a.Counts(), len(Counters()))
	assert.True(t, s.Has(CRulesChange))
	assert.False(t, s.Has(CRejected))
	assert.Panics(t, func() { s.Has("no-such-counter") })
}

// A campaign's coverage reads the files through the parse the oracles
// shared; reading them afresh finds the same counters.
func TestCoverageFromTheSharedParseIsCoverageAfresh(t *testing.T) {
	ref := play.Impl{Name: examples.ReferenceName, New: examples.Reference()}
	var any Seen
	for i := range 40 {
		r, err := PlayGenerated(3, i, faults.DefaultPreset, ref, 0)
		require.NoError(t, err)
		assert.Equal(t, Observe(r.Bundle, r.Result.Files.Files(), r.Result.Log), r.Seen, "run %d", i)
		any |= r.Seen
	}
	assert.NotZero(t, any)
}

// pendingWork answers for the moment asked, whether the last answer it
// kept was for that moment or another; a caller appending to an answer
// does not change the next one.
func TestPendingWorkAnswersForTheMomentAsked(t *testing.T) {
	audit := []byte(`{"event":"admission","at":1,"work_id":"w1","message_id":"m1","rules_hash":"sha256:x"}
{"event":"admission","at":2,"work_id":"w2","message_id":"m2","rules_hash":"sha256:x"}
{"event":"resolution","at":3,"work_id":"w1","outcome":"completed","reason":null}
`)
	o := newObserver(nil, map[string][]byte{sandbox.Audit: audit}, nil)
	ids := func(ws []*workView) (out []string) {
		for _, w := range ws {
			out = append(out, w.id)
		}
		return out
	}
	open := func(w *workView) bool { return !w.resolved }
	assert.Equal(t, []string{"w1"}, ids(o.pendingWork(progress{audit: 1}, nil)))
	assert.Equal(t, []string{"w1", "w2"}, ids(o.pendingWork(progress{audit: 2}, nil)))
	assert.Equal(t, []string{"w1", "w2"}, ids(o.pendingWork(progress{audit: 3, approvals: 5}, nil)))
	assert.Equal(t, []string{"w2"}, ids(o.pendingWork(progress{audit: 3}, open)))
	grown := append(o.pendingWork(progress{audit: 3}, nil), &workView{id: "extra"})
	assert.Len(t, grown, 3)
	assert.Equal(t, []string{"w1", "w2"}, ids(o.pendingWork(progress{audit: 3}, nil)))
	assert.Equal(t, []string{"w1"}, ids(o.pendingWork(progress{audit: 1}, nil)))
	assert.Empty(t, o.pendingWork(progress{}, nil))
}

// A run's coverage is a 64-bit mask (Seen), one bit a counter: a 65th
// counter would shift out of it and never be marked.
func TestEveryCounterHasABitOfItsOwn(t *testing.T) {
	require.LessOrEqual(t, len(Counters()), 64, "Seen is a uint64: widen it before adding counters")
	for i, c := range Counters() {
		var s Seen
		s.mark(c.Name)
		assert.Equal(t, Seen(1)<<i, s, c.Name)
	}
}
