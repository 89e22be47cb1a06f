package shrink_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/shrink"
)

// tb is what the helpers need from *testing.T and *rapid.T alike.
type tb interface {
	require.TestingT
	Helper()
	Fatalf(format string, args ...any)
}

// published returns a fresh copy of a published scenario.
func published(t tb, name string) *scenarios.Bundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range pubs {
		if p.Name == name {
			return p.Bundle.Clone()
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

func jsonOf(t tb, b *scenarios.Bundle) string {
	t.Helper()
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	return string(data)
}

func countKind(b *scenarios.Bundle, kind string) int {
	n := 0
	for _, f := range b.Faults {
		if f.Kind == kind {
			n++
		}
	}
	return n
}

// requireMinimal checks that removing any single event (with what refers to
// it) gives an invalid bundle or one the oracle rejects.
func requireMinimal(t tb, b *scenarios.Bundle, oracle shrink.Oracle) {
	t.Helper()
	for _, e := range shrink.Events(b) {
		c := shrink.Without(b, []shrink.Event{e})
		if len(scenarios.Validate(c, nil).Errors()) > 0 {
			continue
		}
		require.False(t, oracle(c), "still failing without %s:\n%s", shrink.Describe(b, e), jsonOf(t, b))
	}
}

// requireFloor checks the horizon keeps the liveness tail after the last
// scheduled event, unless the input's own horizon was already shorter.
func requireFloor(t tb, in, out *scenarios.Bundle) {
	t.Helper()
	last := 0
	for _, e := range shrink.Events(out) {
		last = max(last, e.At)
	}
	require.GreaterOrEqual(t, out.Meta.Horizon, min(last+shrink.LivenessTail, in.Meta.Horizon))
	require.LessOrEqual(t, out.Meta.Horizon, in.Meta.Horizon)
}

func TestShrinkTargets(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		oracle   shrink.Oracle
		check    func(t *testing.T, b *scenarios.Bundle)
	}{
		{
			name:     "an approved message from one sender",
			scenario: "l2-govern",
			oracle: func(b *scenarios.Bundle) bool {
				for _, a := range b.Approvals {
					if d, ok := b.Message(a.Match.MessageID); ok && d.From == "dave@example.com" && a.Forge == "" {
						return true
					}
				}
				return false
			},
			check: func(t *testing.T, b *scenarios.Bundle) {
				require.Len(t, b.Inbox, 1)
				require.Len(t, b.Approvals, 1)
				assert.Equal(t, "m1", b.Inbox[0].ID)
				assert.Equal(t, "c1", b.Inbox[0].ConversationID)
				assert.Equal(t, "ap1", b.Approvals[0].ID)
				assert.Equal(t, "m1", b.Approvals[0].Match.MessageID)
				assert.Empty(t, b.Signals)
				assert.Empty(t, b.Faults)
			},
		},
		{
			name:     "two conversations",
			scenario: "l1-anchor-collision",
			oracle: func(b *scenarios.Bundle) bool {
				convs := map[string]bool{}
				for _, d := range b.Inbox {
					convs[d.ConversationID] = true
				}
				return len(convs) >= 2
			},
			check: func(t *testing.T, b *scenarios.Bundle) {
				require.Len(t, b.Inbox, 2)
				assert.Equal(t, []string{"c1", "c2"}, []string{b.Inbox[0].ConversationID, b.Inbox[1].ConversationID})
				assert.Len(t, shrink.Events(b), 2)
				assert.Empty(t, b.Model.Anchors)
				assert.Empty(t, b.Inbox[0].Body)
				assert.Equal(t, []int{1, 2}, []int{b.Inbox[0].At, b.Inbox[1].At}, "distinct ticks stay distinct")
			},
		},
		{
			name:     "a long tick jump",
			scenario: "l2-tick-jump-intake",
			oracle: func(b *scenarios.Bundle) bool {
				for _, f := range b.Faults {
					if f.Kind == scenarios.FaultTickJump && f.By >= 10 {
						return true
					}
				}
				return false
			},
			check: func(t *testing.T, b *scenarios.Bundle) {
				require.Len(t, shrink.Events(b), 1)
				assert.Equal(t, 10, b.Faults[0].By)
				assert.Equal(t, 1, b.Faults[0].At)
				assert.Equal(t, 1+shrink.LivenessTail, b.Meta.Horizon)
			},
		},
		{
			name:     "a subject that names an anchor",
			scenario: "l2-govern",
			oracle: func(b *scenarios.Bundle) bool {
				for _, d := range b.Inbox {
					for _, a := range b.Model.Anchors {
						if strings.Contains(d.Subject, a) {
							return true
						}
					}
				}
				return false
			},
			check: func(t *testing.T, b *scenarios.Bundle) {
				require.Len(t, b.Inbox, 1)
				require.Len(t, b.Model.Anchors, 1)
				assert.Equal(t, b.Model.Anchors[0], b.Inbox[0].Subject)
				assert.Empty(t, b.Inbox[0].Body)
				assert.Empty(t, b.Rules, "no rule is needed")
			},
		},
		{
			name:     "a redelivered approval",
			scenario: "l2-approval-redelivery",
			oracle:   func(b *scenarios.Bundle) bool { return countKind(b, scenarios.FaultRedeliver) > 0 },
			check: func(t *testing.T, b *scenarios.Bundle) {
				require.Len(t, shrink.Events(b), 3, "delivery, approval, redelivery")
				assert.Equal(t, "ap1", b.Faults[0].ApprovalID)
			},
		},
		{
			name:     "an agent death in a fleet of two",
			scenario: "l3-fleet-concurrent",
			oracle: func(b *scenarios.Bundle) bool {
				return len(b.Fleet) >= 2 && len(b.Signals) > 0 && b.Signals[0].Type == scenarios.AgentDeath
			},
			check: func(t *testing.T, b *scenarios.Bundle) {
				assert.Len(t, b.Fleet, 2)
				require.Len(t, b.Signals, 1)
				assert.Equal(t, "s1", b.Signals[0].ID)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := published(t, tc.scenario)
			before := jsonOf(t, in)
			res, err := shrink.Shrink(in, tc.oracle, shrink.Options{})
			require.NoError(t, err)
			out := res.Bundle
			assert.Equal(t, before, jsonOf(t, in), "the input must not change")
			require.Empty(t, scenarios.Validate(out, nil).Errors())
			require.True(t, tc.oracle(out))
			requireMinimal(t, out, tc.oracle)
			requireFloor(t, in, out)
			assert.False(t, res.Stats.BudgetHit)
			assert.Equal(t, len(shrink.Events(out)), res.Stats.EventsAfter)
			assert.Equal(t, len(shrink.Events(in)), res.Stats.EventsBefore)
			tc.check(t, out)
		})
	}
}

// oracleFamily draws an oracle the bundle satisfies: enough deliveries,
// approvals, signals and faults of each kind, and texts that mention some
// anchors. Each is monotone in the bundle's content, as real failures
// usually are not; the properties checked hold for any oracle.
func oracleFamily(t *rapid.T, b *scenarios.Bundle) shrink.Oracle {
	deliveries := rapid.IntRange(0, len(b.Inbox)).Draw(t, "deliveries")
	approvals := rapid.IntRange(0, len(b.Approvals)).Draw(t, "approvals")
	signals := rapid.IntRange(0, len(b.Signals)).Draw(t, "signals")
	kinds := map[string]int{}
	for _, k := range scenarios.FaultKinds {
		if n := countKind(b, k); n > 0 {
			kinds[k] = rapid.IntRange(0, n).Draw(t, "faults "+k)
		}
	}
	var anchors []string
	for _, a := range b.Model.Anchors {
		for _, d := range b.Inbox {
			if strings.Contains(d.Body, a) && rapid.Bool().Draw(t, "needs "+a) {
				anchors = append(anchors, a)
				break
			}
		}
	}
	agents := rapid.IntRange(1, len(b.Fleet)).Draw(t, "agents")
	return func(c *scenarios.Bundle) bool {
		if len(c.Inbox) < deliveries || len(c.Approvals) < approvals || len(c.Signals) < signals || len(c.Fleet) < agents {
			return false
		}
		for k, n := range kinds {
			if countKind(c, k) < n {
				return false
			}
		}
		for _, a := range anchors {
			if !slices.ContainsFunc(c.Inbox, func(d scenarios.Delivery) bool { return strings.Contains(d.Body, a) }) {
				return false
			}
		}
		return true
	}
}

func TestShrinkProperties(t *testing.T) {
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(pubs).Draw(t, "scenario")
		in := p.Bundle.Clone()
		oracle := oracleFamily(t, in)
		res, err := shrink.Shrink(in, oracle, shrink.Options{Budget: -1})
		require.NoError(t, err)
		out := res.Bundle
		require.Empty(t, scenarios.Validate(out, nil).Errors())
		require.True(t, oracle(out))
		requireMinimal(t, out, oracle)
		requireFloor(t, in, out)
		require.LessOrEqual(t, res.Stats.EventsAfter, res.Stats.EventsBefore)
		require.Equal(t, jsonOf(t, out), jsonOf(t, shrink.Renumber(out)), "ids are renumbered")
		again, err := shrink.Shrink(in, oracle, shrink.Options{Budget: -1})
		require.NoError(t, err)
		require.Equal(t, jsonOf(t, out), jsonOf(t, again.Bundle), "same input, same output")
		require.Equal(t, res.Stats.OracleCalls, again.Stats.OracleCalls)
	})
}

func TestShrinkErrors(t *testing.T) {
	always := func(*scenarios.Bundle) bool { return true }
	_, err := shrink.Shrink(nil, always, shrink.Options{})
	require.Error(t, err)
	_, err = shrink.Shrink(published(t, "l0-respond"), nil, shrink.Options{})
	require.Error(t, err)
	bad := published(t, "l0-respond")
	bad.Fleet = nil
	_, err = shrink.Shrink(bad, always, shrink.Options{})
	require.ErrorContains(t, err, "invalid")
	_, err = shrink.Shrink(published(t, "l0-respond"), func(*scenarios.Bundle) bool { return false }, shrink.Options{})
	require.ErrorIs(t, err, shrink.ErrNotFailing)
}

func TestShrinkBudget(t *testing.T) {
	in := published(t, "l2-govern")
	slow := func(b *scenarios.Bundle) bool {
		time.Sleep(2 * time.Millisecond)
		return len(b.Inbox) > 0
	}
	res, err := shrink.Shrink(in, slow, shrink.Options{Budget: 10 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, res.Stats.BudgetHit)
	assert.True(t, slow(res.Bundle), "a stopped shrink still returns a failing bundle")
	assert.Empty(t, scenarios.Validate(res.Bundle, nil).Errors())
	assert.Less(t, res.Stats.OracleCalls, 20)

	res, err = shrink.Shrink(in, func(b *scenarios.Bundle) bool { return len(b.Inbox) > 0 }, shrink.Options{})
	require.NoError(t, err)
	assert.False(t, res.Stats.BudgetHit)
	assert.Equal(t, 1, res.Stats.EventsAfter)
}

func TestShrinkMemoizesByCanonicalHash(t *testing.T) {
	in := published(t, "l1-anchor-collision")
	seen := map[string]int{}
	oracle := func(b *scenarios.Bundle) bool {
		h, err := b.Hash()
		require.NoError(t, err)
		seen[h]++
		return len(b.Approvals) >= 2
	}
	res, err := shrink.Shrink(in, oracle, shrink.Options{})
	require.NoError(t, err)
	for h, n := range seen {
		assert.Equal(t, 1, n, "bundle %s judged twice", h)
	}
	assert.Equal(t, len(seen), res.Stats.OracleCalls)
	assert.Positive(t, res.Stats.CacheHits)
	assert.Positive(t, res.Stats.Invalid)
}

func TestShrinkOracleGetsACopy(t *testing.T) {
	in := published(t, "l2-approval-redelivery")
	oracle := func(b *scenarios.Bundle) bool {
		ok := len(b.Approvals) > 0
		b.Approvals, b.Inbox = nil, nil
		return ok
	}
	res, err := shrink.Shrink(in, oracle, shrink.Options{})
	require.NoError(t, err)
	assert.Len(t, res.Bundle.Approvals, 1)
	assert.Len(t, res.Bundle.Inbox, 1)
}

func TestWithoutCascades(t *testing.T) {
	tests := []struct {
		scenario string
		drop     func(b *scenarios.Bundle) []shrink.Event
		want     [4]int // deliveries, approvals, signals, faults left
	}{
		{"l2-approval-redelivery", func(b *scenarios.Bundle) []shrink.Event { return pick(b, shrink.KindDelivery, 0) },
			[4]int{0, 0, 0, 0}},
		{"l2-approval-redelivery", func(b *scenarios.Bundle) []shrink.Event { return pick(b, shrink.KindApproval, 0) },
			[4]int{1, 0, 0, 0}},
		{"l2-approval-redelivery", func(b *scenarios.Bundle) []shrink.Event { return pick(b, shrink.KindFault, 0) },
			[4]int{1, 1, 0, 1}},
		// m1 carries an approval and an AGENT_DEATH; m2 an approval and a duplicate.
		{"l3-fleet-concurrent", func(b *scenarios.Bundle) []shrink.Event { return pick(b, shrink.KindDelivery, 0) },
			[4]int{1, 1, 0, 1}},
		{"l3-fleet-concurrent", func(b *scenarios.Bundle) []shrink.Event { return pick(b, shrink.KindDelivery, 1) },
			[4]int{1, 1, 1, 0}},
	}
	for _, tc := range tests {
		b := published(t, tc.scenario)
		c := shrink.Without(b, tc.drop(b))
		assert.Equal(t, tc.want, [4]int{len(c.Inbox), len(c.Approvals), len(c.Signals), len(c.Faults)}, tc.scenario)
		assert.Empty(t, scenarios.Validate(c, nil).Errors())
	}
}

func pick(b *scenarios.Bundle, kind string, index int) []shrink.Event {
	for _, e := range shrink.Events(b) {
		if e.Kind == kind && e.Index == index {
			return []shrink.Event{e}
		}
	}
	return nil
}

func TestRenumber(t *testing.T) {
	b := published(t, "l1-anchor-collision")
	for i := range b.Inbox {
		b.Inbox[i].ID = "msg-" + b.Inbox[i].ID
		b.Inbox[i].ConversationID = "conv-" + b.Inbox[i].ConversationID
	}
	for i := range b.Approvals {
		b.Approvals[i].ID = "x" + b.Approvals[i].ID
		b.Approvals[i].Match.MessageID = "msg-" + b.Approvals[i].Match.MessageID
	}
	for i := range b.Faults {
		b.Faults[i].MessageID = "msg-" + b.Faults[i].MessageID
	}
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	r := shrink.Renumber(b)
	require.Empty(t, scenarios.Validate(r, nil).Errors())
	assert.Equal(t, []string{"m1", "m2", "m3"}, []string{r.Inbox[0].ID, r.Inbox[1].ID, r.Inbox[2].ID})
	assert.Equal(t, []string{"c1", "c2", "c2"}, []string{r.Inbox[0].ConversationID, r.Inbox[1].ConversationID, r.Inbox[2].ConversationID})
	assert.Equal(t, []string{"ap1", "ap2", "ap3"}, []string{r.Approvals[0].ID, r.Approvals[1].ID, r.Approvals[2].ID})
	assert.Equal(t, []string{"m1", "m2", "m3"}, []string{r.Approvals[0].Match.MessageID, r.Approvals[1].Match.MessageID, r.Approvals[2].Match.MessageID})
	assert.Equal(t, []string{"m1", "m3"}, []string{r.Faults[0].MessageID, r.Faults[1].MessageID})
	assert.Equal(t, "msg-m1", b.Inbox[0].ID, "the input must not change")
}

func TestRenumberAgents(t *testing.T) {
	b := published(t, "l3-fleet-concurrent")
	b.Fleet = []string{"agent-7", "agent-3"}
	require.NotEmpty(t, b.Signals)
	b.Signals[0].Target = scenarios.Match{AgentID: "agent-3"}
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	r := shrink.Renumber(b)
	require.Empty(t, scenarios.Validate(r, nil).Errors())
	assert.Equal(t, []string{"agent-1", "agent-2"}, r.Fleet, "fleet order is kept")
	assert.Equal(t, "agent-2", r.Signals[0].Target.AgentID, "a signal naming an agent follows it")
	assert.Equal(t, []string{"agent-7", "agent-3"}, b.Fleet, "the input must not change")
}
