package examples

import (
	"fmt"
	"strings"
	"testing"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/bigbundle"
	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// untracked is the reference under another type: it derives its world
// afresh after every write, as before the tracker (D110).
type untracked struct{ reference }

// The reference with its tracker writes exactly what it writes deriving
// everything afresh, on every published scenario and on generated bundles
// with every kind of fault.
func TestTrackerWritesWhatAFreshDeriveWrites(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	var bundles []*scenarios.Bundle
	for _, p := range published {
		bundles = append(bundles, p.Bundle)
	}
	for i := 0; i < 40; i++ {
		p, err := faults.DrawProfile(rng.Stream(uint64(i), "profile"), "default")
		require.NoError(t, err)
		bundles = append(bundles, faults.Generate(rng.Stream(uint64(i), "bundle"), p))
	}
	for i, b := range bundles {
		for seed := uint64(1); seed <= 2; seed++ {
			tracked, err := sim.Run(b, Reference(), sim.Options{Seed: seed})
			require.NoError(t, err)
			fresh, err := sim.Run(b, factory(fresh[untracked]), sim.Options{Seed: seed})
			require.NoError(t, err)
			require.Equal(t, fresh.Files.Files(), tracked.Files.Files(), "bundle %d %s seed %d", i, b.Meta.Name, seed)
			require.Equal(t, fresh.Log, tracked.Log, "bundle %d %s seed %d", i, b.Meta.Name, seed)
		}
	}
}

// summary is what a world says, written out in file order.
func summary(w *world) string {
	var b strings.Builder
	fmt.Fprintf(&b, "alive=%v order=%v\n", w.alive, w.order)
	for _, wk := range w.works {
		fmt.Fprintf(&b, "%s msg=%s drafts=%d effects=%d claims=%v owner=%s won=%s resolved=%v/%s status=%s\n",
			wk.id, wk.message().ID, len(wk.drafts), wk.effects, wk.claims, wk.owner, wk.lastWon, wk.resolved, wk.outcome, w.status(wk))
	}
	for _, d := range w.v.drafts {
		fmt.Fprintf(&b, "decision %s=%v\n", d.DraftID, w.decisions[d.DraftID])
	}
	return b.String()
}

// trackedAgainst feeds views to a tracker one after the other and checks
// each world against one derived afresh; it returns the tracker's rebuilds.
func trackedAgainst(t *testing.T, views []*view) int {
	t.Helper()
	var tr tracker
	var tw, fw world
	var c caches // as loaded from files that end on whole lines
	c.inbox.whole, c.signals.whole, c.approvals.whole = true, true, true
	c.drafts.whole, c.outbox.whole, c.audit.whole = true, true, true
	for i, v := range views {
		got := summary(tr.update(&tw, v, &c, reference{}, 7))
		require.Equal(t, needingPlan(&tw), activeWorks(&tr), "active works, view %d", i)
		want := summary(fw.derive(v, reference{}, 7))
		require.Equal(t, want, got, "view %d", i)
	}
	return tr.rebuilds
}

func msg(id string) sandbox.Message {
	return sandbox.Message{ID: id, ConversationID: "c-" + id, From: "a@example.com", Subject: "s", Body: "b"}
}

func admission(workID, msgID string) auditRec {
	return auditRec{event: sandbox.EventAdmission, workID: workID, id: msgID}
}

// auditLine is the record of one audit line, as a view reads it.
func auditLine(t *testing.T, line string) auditRec {
	t.Helper()
	recs, errs := sandbox.ParseAudit([]byte(line))
	require.Empty(t, errs)
	return auditRecOf(recs[0].Rec)
}

func wonClaim(workID, agent string) auditRec {
	return auditRec{event: sandbox.EventClaim, workID: workID, agentID: agent, outcome: sandbox.ClaimWon}
}

// A record that names one already read extends the world; one named
// before it was written (a draft before its admission, an admission
// before its delivery, a send before its draft, an approval before its
// draft) makes the tracker derive the world again from every record.
func TestTrackerDerivesAgainOnlyForALateRecord(t *testing.T) {
	fleet := []string{"agent-1", "agent-2"}
	d1 := sandbox.Draft{DraftID: "d-m1.agent-1", WorkID: "w-m1", ContentHash: "sha256:x"}
	ap := sandbox.ApprovalRecord{ApprovalID: "a1", DraftID: d1.DraftID, ContentHash: d1.ContentHash, Decision: "approve"}
	sent := sandbox.Effect{EffectID: "e-" + d1.DraftID, DraftID: d1.DraftID}
	inOrder := []*view{
		{fleet: fleet},
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}},
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1"), wonClaim("w-m1", "agent-1")}},
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1"), wonClaim("w-m1", "agent-1")},
			drafts: []sandbox.Draft{d1}, approvals: []sandbox.ApprovalRecord{ap}},
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1"), wonClaim("w-m1", "agent-1")},
			drafts: []sandbox.Draft{d1}, approvals: []sandbox.ApprovalRecord{ap}, outbox: []sandbox.Effect{sent},
			signals: []sandbox.SignalRecord{{SignalType: sandbox.SignalAgentDeath, Target: "agent-2"}}},
	}
	assert.Equal(t, 1, trackedAgainst(t, inOrder), "records in order: one derive, at the start")

	late := map[string][]*view{
		"draft before admission": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, drafts: []sandbox.Draft{d1}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, drafts: []sandbox.Draft{d1}, audit: []auditRec{admission("w-m1", "m1")}},
		},
		"admission before delivery": {
			{fleet: fleet, audit: []auditRec{admission("w-m1", "m1")}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1")}},
		},
		"send before draft": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1")}, outbox: []sandbox.Effect{sent}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1")}, outbox: []sandbox.Effect{sent},
				drafts: []sandbox.Draft{d1}},
		},
		"approval before draft": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1")}, approvals: []sandbox.ApprovalRecord{ap}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1")}, approvals: []sandbox.ApprovalRecord{ap},
				drafts: []sandbox.Draft{d1}},
		},
		"decision ignored after it was taken": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []auditRec{admission("w-m1", "m1")}, drafts: []sandbox.Draft{d1},
				approvals: []sandbox.ApprovalRecord{ap}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, drafts: []sandbox.Draft{d1}, approvals: []sandbox.ApprovalRecord{ap},
				audit: []auditRec{admission("w-m1", "m1"), auditLine(t, `{"event":"`+eventApprovalIgnored+`","at":0,"approval_id":"a1"}`)}},
		},
	}
	for name, views := range late {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, 2, trackedAgainst(t, views), "the late record derives the world again")
		})
	}
}

// activeWorks are the works the tracker's plan looks at: those in its
// list not dropped since.
func activeWorks(t *tracker) []string {
	var ids []string
	for _, wk := range t.active {
		if wk.active {
			ids = append(ids, wk.id)
		}
	}
	return ids
}

// needingPlan are the works a prune of the whole list keeps, in file order.
func needingPlan(w *world) []string {
	var ids []string
	for _, wk := range w.works {
		if wk.needsPlan() {
			ids = append(ids, wk.id)
		}
	}
	return ids
}

// recording is the reference's factory that keeps every instance made.
func recording(made *[]*responder) sandbox.Factory {
	return func() sandbox.Implementation {
		r := &responder{p: &reference{}}
		*made = append(*made, r)
		return r
	}
}

// The reference with its tracker writes what it writes deriving every
// world afresh when many messages arrive in each tick (D180, D181).
func TestTrackedPlanWritesWhatAFreshDeriveWritesInABurst(t *testing.T) {
	b := bigbundle.GenerateBurst(300)
	for seed := uint64(1); seed <= 2; seed++ {
		var made []*responder
		tracked, err := sim.Run(b, recording(&made), sim.Options{Seed: seed})
		require.NoError(t, err)
		fresh, err := sim.Run(b, factory(fresh[untracked]), sim.Options{Seed: seed})
		require.NoError(t, err)
		require.Equal(t, fresh.Files.Files(), tracked.Files.Files(), "seed %d", seed)
		require.Equal(t, fresh.Log, tracked.Log, "seed %d", seed)
		for _, r := range made {
			require.Equal(t, needingPlan(&r.world), activeWorks(r.track), "the active works at the end")
		}
	}
}

// A step's scans look at a bounded number of works per write, however
// many arrive in the tick (D180): 20 and 50 arrivals a tick cost about
// the same per write. A plan that looked at every open work after each
// write would look at tens per write here, and more at the larger size.
func TestTrackedPlanLooksAtWhatChanged(t *testing.T) {
	perWrite := map[int]float64{}
	for _, n := range []int{2000, 5000} {
		b := bigbundle.GenerateBurst(n)
		var made []*responder
		tracked, err := sim.Run(b, recording(&made), sim.Options{Seed: 1})
		require.NoError(t, err)

		looks, writes := 0, 0
		for _, r := range made {
			require.NotNil(t, r.track)
			looks += r.track.looks
			require.Equal(t, needingPlan(&r.world), activeWorks(r.track), "the active works at the end, %d messages", n)
		}
		files := tracked.Files.Files()
		for _, f := range []string{sandbox.Audit, sandbox.Drafts, sandbox.Outbox} {
			writes += strings.Count(string(files[f]), "\n")
		}
		require.Positive(t, writes)
		perWrite[n] = float64(looks) / float64(writes)
		t.Logf("%d messages: %d writes, %d works looked at, %.2f a write", n, writes, looks, perWrite[n])
	}
	assert.Less(t, perWrite[5000], 8.0, "works looked at per write")
	assert.Less(t, perWrite[5000], 1.5*perWrite[2000], "works looked at per write, against the smaller run")
}

// A draft's id can be the owner's draft name of more than one work when
// ids hold dots; every phase looks again at every work it may name, and
// at no other.
func TestTouchNamedFindsEveryWorkADraftMayName(t *testing.T) {
	fleet := []string{"c", "b.c"}
	audit := []auditRec{admission("w-a", "a"), admission("w-a.b", "a.b"), admission("w-x", "x")}
	v := &view{fleet: fleet, inbox: []sandbox.Message{msg("a"), msg("a.b"), msg("x")}, audit: audit}
	var tr tracker
	var w world
	var c caches
	c.inbox.whole, c.signals.whole, c.approvals.whole = true, true, true
	c.drafts.whole, c.outbox.whole, c.audit.whole = true, true, true
	tr.update(&w, v, &c, reference{}, 7)

	settle := func() {
		tr.everyone()
		for p := range tr.clean {
			tr.clean[p] = len(w.works)
		}
		tr.dirty = tr.dirty[:0]
	}
	ids := func(list []*work) []string {
		out := []string{}
		for _, wk := range list {
			out = append(out, wk.id)
		}
		return out
	}
	rechecked := func(want ...string) {
		if want == nil {
			want = []string{}
		}
		t.Helper()
		for p := range tr.recheck {
			assert.Equal(t, want, ids(tr.recheck[p]), "phase %d", p)
		}
		assert.Equal(t, [scanPhases]int{3, 3, 3, 3, 3}, tr.clean)
	}
	settle()
	tr.touchNamed(&w, "d-a.b.c")
	assert.ElementsMatch(t, []string{"w-a", "w-a.b"}, ids(tr.dirty), "d-a.b.c is w-a's for b.c and w-a.b's for c")
	rechecked("w-a", "w-a.b")

	settle()
	tr.touchNamed(&w, "d-x.c")
	rechecked("w-x")

	for _, id := range []string{"x-a.b", "d-abc", "d-q.c"} {
		settle()
		tr.touchNamed(&w, id)
		assert.Empty(t, tr.dirty, id)
		rechecked()
	}
}

// ownerByLatestWin is the owner as the claims define it: of the agents
// whose latest outcome is won, the one whose latest won record is last.
func ownerByLatestWin(claims []claim) string {
	last, wonAt := map[string]string{}, map[string]int{}
	for i, c := range claims {
		last[c.agent] = c.outcome
		if c.outcome == sandbox.ClaimWon {
			wonAt[c.agent] = i
		}
	}
	owner, best := "", -1
	for a, i := range wonAt {
		if last[a] == sandbox.ClaimWon && i > best {
			owner, best = a, i
		}
	}
	return owner
}

func TestSettleClaimsOwnerIsTheLatestStillWon(t *testing.T) {
	outcomes := []string{sandbox.ClaimClaimed, sandbox.ClaimWon, sandbox.ClaimStoodDown}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		wk := &work{}
		for i := 0; i < n; i++ {
			agent := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "agent")
			wk.claims = append(wk.claims, claim{agent: agent, outcome: rapid.SampledFrom(outcomes).Draw(t, "outcome")})
		}
		wk.resettle()
		if wk.owner != ownerByLatestWin(wk.claims) {
			t.Fatalf("claims %v: owner %q, want %q", wk.claims, wk.owner, ownerByLatestWin(wk.claims))
		}
	})
}
