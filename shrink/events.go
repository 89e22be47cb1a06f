package shrink

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/amr-bench/amr/scenarios"
)

// Kinds of scheduled item.
const (
	KindDelivery = "delivery"
	KindApproval = "approval"
	KindSignal   = "signal"
	KindFault    = "fault"
)

// kindRank orders the kinds within one tick.
var kindRank = map[string]int{KindDelivery: 0, KindApproval: 1, KindSignal: 2, KindFault: 3}

// Event names one scheduled item of a bundle: a delivery, an approval, a
// signal or a fault, by its kind and its index in that list, with its tick.
type Event struct {
	Kind  string
	Index int
	At    int
}

// Events lists a bundle's scheduled items as one list, ordered by tick, then
// by kind (deliveries, approvals, signals, faults), then by position. This is
// the list delta debugging works on, and the one 1-minimality speaks of.
func Events(b *scenarios.Bundle) []Event {
	var out []Event
	for i, d := range b.Inbox {
		out = append(out, Event{KindDelivery, i, d.At})
	}
	for i, a := range b.Approvals {
		out = append(out, Event{KindApproval, i, a.At})
	}
	for i, sg := range b.Signals {
		out = append(out, Event{KindSignal, i, sg.At})
	}
	for i, f := range b.Faults {
		out = append(out, Event{KindFault, i, f.At})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return kindRank[out[i].Kind] < kindRank[out[j].Kind]
	})
	return out
}

// Describe names an event for reports, e.g. "delivery m1 at 3".
func Describe(b *scenarios.Bundle, e Event) string {
	switch e.Kind {
	case KindDelivery:
		return fmt.Sprintf("delivery %s at %d", b.Inbox[e.Index].ID, e.At)
	case KindApproval:
		return fmt.Sprintf("approval %s at %d", b.Approvals[e.Index].ID, e.At)
	case KindSignal:
		return fmt.Sprintf("signal %s at %d", b.Signals[e.Index].ID, e.At)
	default:
		return fmt.Sprintf("%s fault at %d", b.Faults[e.Index].Kind, e.At)
	}
}

// Without returns a copy of b without the given events and without what
// referred to them: approvals, signals and duplicates naming a removed
// message, redeliveries of a removed approval, and approvals the validator
// says can no longer bind because no rule set admits their message any more.
// b is not modified.
func Without(b *scenarios.Bundle, drop []Event) *scenarios.Bundle {
	gone := map[Event]bool{}
	for _, e := range drop {
		gone[Event{Kind: e.Kind, Index: e.Index}] = true
	}
	c := b.Clone()
	c.Inbox = keep(c.Inbox, func(i int) bool { return !gone[Event{Kind: KindDelivery, Index: i}] })
	c.Approvals = keep(c.Approvals, func(i int) bool { return !gone[Event{Kind: KindApproval, Index: i}] })
	c.Signals = keep(c.Signals, func(i int) bool { return !gone[Event{Kind: KindSignal, Index: i}] })
	c.Faults = keep(c.Faults, func(i int) bool { return !gone[Event{Kind: KindFault, Index: i}] })
	dropDangling(c)
	dropUnbindable(c)
	return c
}

// keep filters a list by index.
func keep[T any](list []T, ok func(int) bool) []T {
	out := make([]T, 0, len(list))
	for i, x := range list {
		if ok(i) {
			out = append(out, x)
		}
	}
	return out
}

// dropDangling removes items that name a message or approval no longer in
// the bundle.
func dropDangling(c *scenarios.Bundle) {
	msgs := map[string]bool{}
	for _, d := range c.Inbox {
		msgs[d.ID] = true
	}
	c.Approvals = keep(c.Approvals, func(i int) bool {
		id := c.Approvals[i].Match.MessageID
		return id == "" || msgs[id]
	})
	c.Signals = keep(c.Signals, func(i int) bool {
		id := c.Signals[i].Target.MessageID
		return id == "" || msgs[id]
	})
	aps := map[string]bool{}
	for _, a := range c.Approvals {
		aps[a.ID] = true
	}
	c.Faults = keep(c.Faults, func(i int) bool {
		f := c.Faults[i]
		switch f.Kind {
		case scenarios.FaultDuplicate:
			return msgs[f.MessageID]
		case scenarios.FaultRedeliver:
			return aps[f.ApprovalID]
		}
		return true
	})
}

// dropUnbindable removes approvals whose message no rule set of the bundle
// admits any more (removing a delivery changes thread lengths and sender
// histories; removing a rules or posture fault changes what is in force).
// Such an approval could never fire, so it carries no meaning.
func dropUnbindable(c *scenarios.Bundle) {
	bad := map[int]bool{}
	for _, p := range scenarios.Validate(c, nil).Errors() {
		rest, ok := strings.CutPrefix(p.Field, "approvals[")
		if !ok {
			continue
		}
		num, ok := strings.CutSuffix(rest, "].match.message_id")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(num); err == nil {
			bad[i] = true
		}
	}
	if len(bad) == 0 {
		return
	}
	c.Approvals = keep(c.Approvals, func(i int) bool { return !bad[i] })
	dropDangling(c)
}

// events removes events by delta debugging (ddmin): it splits the event
// list into n chunks, keeps one chunk alone or removes one chunk when the
// failure survives, and otherwise doubles n. It ends with n equal to the
// number of events, where every single event has been tried: the result is
// 1-minimal.
func (s *shrinker) events() bool {
	changed := false
	n := 2
	for !s.out {
		evs := Events(s.cur)
		if len(evs) == 0 {
			break
		}
		n = min(n, len(evs))
		chunks := split(evs, n)
		reduced := false
		// With two chunks, keeping one is removing the other.
		if n > 2 {
			keepOne := make([]*scenarios.Bundle, len(chunks))
			for i := range chunks {
				keepOne[i] = Without(s.cur, others(chunks, i))
			}
			if s.first(keepOne) >= 0 {
				n, reduced = 2, true
			}
		}
		if !reduced && !s.out {
			dropOne := make([]*scenarios.Bundle, len(chunks))
			for i, ch := range chunks {
				dropOne[i] = Without(s.cur, ch)
			}
			if s.first(dropOne) >= 0 {
				n, reduced = max(n-1, 2), true
			}
		}
		if reduced {
			changed = true
			continue
		}
		if n >= len(evs) {
			break
		}
		n = min(2*n, len(evs))
	}
	return changed
}

// split cuts evs into n chunks of near-equal size, in order.
func split(evs []Event, n int) [][]Event {
	out := make([][]Event, 0, n)
	start := 0
	for i := 0; i < n; i++ {
		end := start + (len(evs)-start)/(n-i)
		out = append(out, evs[start:end])
		start = end
	}
	return out
}

// others joins every chunk but the i-th.
func others(chunks [][]Event, i int) []Event {
	var out []Event
	for j, ch := range chunks {
		if j != i {
			out = append(out, ch...)
		}
	}
	return out
}

// conversations removes whole conversations: every delivery of one
// conversation id, with everything that refers to them.
func (s *shrinker) conversations() bool {
	changed := false
	for _, conv := range conversationIDs(s.cur) {
		if s.out || len(conversationIDs(s.cur)) < 2 {
			break
		}
		var drop []Event
		for _, e := range Events(s.cur) {
			if e.Kind == KindDelivery && s.cur.Inbox[e.Index].ConversationID == conv {
				drop = append(drop, e)
			}
		}
		if len(drop) > 0 && s.try(Without(s.cur, drop)) {
			changed = true
		}
	}
	return changed
}

// conversationIDs lists the conversation ids in order of first delivery.
func conversationIDs(b *scenarios.Bundle) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range b.Inbox {
		if !seen[d.ConversationID] {
			seen[d.ConversationID] = true
			out = append(out, d.ConversationID)
		}
	}
	return out
}
