package examples

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/rng"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			wk.id, wk.msg.ID, len(wk.drafts), wk.effects, wk.claims, wk.owner, wk.lastWon, wk.resolved, wk.outcome, w.status(wk))
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
		want := summary(fw.derive(v, reference{}, 7))
		require.Equal(t, want, got, "view %d", i)
	}
	return tr.rebuilds
}

func msg(id string) sandbox.Message {
	return sandbox.Message{ID: id, ConversationID: "c-" + id, From: "a@example.com", Subject: "s", Body: "b"}
}

func admission(workID, msgID string) sandbox.AuditRecord {
	return sandbox.AuditRecord{Event: sandbox.EventAdmission, WorkID: workID, MessageID: msgID}
}

func wonClaim(workID, agent string) sandbox.AuditRecord {
	return sandbox.AuditRecord{Event: sandbox.EventClaim, WorkID: workID, AgentID: agent, Outcome: sandbox.ClaimWon}
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
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1"), wonClaim("w-m1", "agent-1")}},
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1"), wonClaim("w-m1", "agent-1")},
			drafts: []sandbox.Draft{d1}, approvals: []sandbox.ApprovalRecord{ap}},
		{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1"), wonClaim("w-m1", "agent-1")},
			drafts: []sandbox.Draft{d1}, approvals: []sandbox.ApprovalRecord{ap}, outbox: []sandbox.Effect{sent},
			signals: []sandbox.SignalRecord{{SignalType: sandbox.SignalAgentDeath, Target: "agent-2"}}},
	}
	assert.Equal(t, 1, trackedAgainst(t, inOrder), "records in order: one derive, at the start")

	late := map[string][]*view{
		"draft before admission": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, drafts: []sandbox.Draft{d1}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, drafts: []sandbox.Draft{d1}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}},
		},
		"admission before delivery": {
			{fleet: fleet, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}},
		},
		"send before draft": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}, outbox: []sandbox.Effect{sent}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}, outbox: []sandbox.Effect{sent},
				drafts: []sandbox.Draft{d1}},
		},
		"approval before draft": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}, approvals: []sandbox.ApprovalRecord{ap}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}, approvals: []sandbox.ApprovalRecord{ap},
				drafts: []sandbox.Draft{d1}},
		},
		"decision ignored after it was taken": {
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, audit: []sandbox.AuditRecord{admission("w-m1", "m1")}, drafts: []sandbox.Draft{d1},
				approvals: []sandbox.ApprovalRecord{ap}},
			{fleet: fleet, inbox: []sandbox.Message{msg("m1")}, drafts: []sandbox.Draft{d1}, approvals: []sandbox.ApprovalRecord{ap},
				audit: []sandbox.AuditRecord{admission("w-m1", "m1"), {Event: eventApprovalIgnored,
					Fields: map[string]json.RawMessage{"approval_id": json.RawMessage(`"a1"`)}}}},
		},
	}
	for name, views := range late {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, 2, trackedAgainst(t, views), "the late record derives the world again")
		})
	}
}
