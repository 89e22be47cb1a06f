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
// posture condition under the rules and posture in force at its tick.
func admitsOverAPosture(b *scenarios.Bundle) bool {
	type change struct {
		at      int
		rules   []scenarios.Rule
		posture string
	}
	var changes []change
	for _, f := range b.Faults {
		switch f.Kind {
		case scenarios.FaultRules:
			changes = append(changes, change{at: f.At, rules: f.Rules})
		case scenarios.FaultPosture:
			changes = append(changes, change{at: f.At, posture: f.Posture})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at < changes[j].at })
	thread, sender := map[string]int{}, map[string]int{}
	for _, m := range b.Inbox {
		thread[m.ConversationID]++
		facts := scenarios.Facts{Subject: m.Subject, Body: m.Body, From: m.From,
			ThreadLength: thread[m.ConversationID], SenderHistory: sender[m.From]}
		sender[m.From]++
		rules, posture := b.Rules, b.Mode.Posture
		for _, c := range changes {
			if c.at > m.At {
				break
			}
			if c.rules != nil {
				rules = c.rules
			} else {
				posture = c.posture
			}
		}
		facts.Posture = posture
		id, ok := scenarios.Admitted(rules, facts)
		if ok && hasPostureCondition(rules, id) {
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
