package faults_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/scenarios"
)

// The spec's liveness names rules over posture. The default profile makes
// bundles where a message is admitted by a rule only because the posture in
// force is the one the rule names (D233): before D233 no generated rule
// admitted over a posture, so a responder that read that condition wrongly
// passed every campaign.
func TestDefaultCampaignAdmitsOverAPosture(t *testing.T) {
	const runs = 2000
	admittedByPosture := 0
	for i := range runs {
		_, b, err := fuzz.Generated(1, i, "default")
		require.NoError(t, err)
		if admitsOverAPosture(b) {
			admittedByPosture++
		}
	}
	require.GreaterOrEqual(t, admittedByPosture, runs/400,
		"%d of %d default bundles admit a message by a rule over the posture", admittedByPosture, runs)
}

// admitsOverAPosture says whether a message of b is admitted by a rule with a
// posture condition under the rules and posture in force at its tick. A
// generated bundle's inbox is in arrival order, so one pass over it and the
// changes, both by tick, finds what is in force.
func admitsOverAPosture(b *scenarios.Bundle) bool {
	var changes []scenarios.Fault
	for _, f := range b.Faults {
		if f.Kind == scenarios.FaultRules || f.Kind == scenarios.FaultPosture {
			changes = append(changes, f)
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].At < changes[j].At })
	rules, posture, next := b.Rules, b.Mode.Posture, 0
	thread, sender := map[string]int{}, map[string]int{}
	for _, m := range b.Inbox {
		for ; next < len(changes) && changes[next].At <= m.At; next++ {
			if c := changes[next]; c.Kind == scenarios.FaultRules {
				rules = c.Rules
			} else {
				posture = c.Posture
			}
		}
		thread[m.ConversationID]++
		facts := scenarios.Facts{Subject: m.Subject, Body: m.Body, From: m.From, Posture: posture,
			ThreadLength: thread[m.ConversationID], SenderHistory: sender[m.From]}
		sender[m.From]++
		if id, ok := scenarios.Admitted(rules, facts); ok && hasPostureCondition(rules, id) {
			return true
		}
	}
	return false
}

func hasPostureCondition(rules []scenarios.Rule, id string) bool {
	for _, r := range rules {
		if r.ID == id {
			return r.When.Posture != nil
		}
	}
	return false
}
