package examples

import (
	"github.com/amr-bench/amr/sim/sandbox"
)

// policy is every decision point of the responder: the places where a
// weak implementation may answer differently from the reference. The
// responder's step, its reading of the files and its plan call these
// methods and nothing else that depends on which implementation it is.
//
// reference answers each one as the spec asks. A weak implementation is a
// type in a file of its own (weak_<name>.go) that embeds reference and
// overrides the one or two methods its defect is about; any memory the
// defect needs lives in that type, so the reference itself keeps none.
type policy interface {
	// prepare runs before a step reads the files (weak-unsend writes here).
	prepare(s sandbox.Store) error
	// settles reports whether a step that reads exactly the files of the
	// last step that had nothing to do may skip: true when the decisions
	// depend on the files alone, not on the tick or on memory.
	settles() bool
	// see may change what a step read, before anything is derived from it.
	see(v *view, c *caches)
	// derived may change what the files are taken to say, once derived.
	derived(w *world)
	// snapshot is the state.json to write, and whether to write one.
	snapshot(w *world) (sandbox.Snapshot, bool)

	// bind finds the declared draft an approval line authorizes.
	bind(w *world, a sandbox.ApprovalRecord) (sandbox.Draft, bool)
	// ignoredEvent is the audit event that records an approval line that
	// binds nothing.
	ignoredEvent() string
	// stopped reports whether all work on an unresolved item has stopped.
	stopped(w *world, wk *work) bool

	// sent reports whether a reply went out for a work item.
	sent(w *world, wk *work) bool
	// escalation returns the work item an OPERATOR_ESCALATION signal makes
	// the responder abandon now, if any.
	escalation(w *world, s sandbox.SignalRecord) (*work, bool)
	// standsDown reports whether an open claim is stood down for reason.
	standsDown(reason string) bool
	// takeOver is the next write for a work item whose owner died, once
	// the dead agents' claims are stood down; nil for none now.
	takeOver(w *world, wk *work) *write
	// early is a write before the approvals are read; nil for none.
	early(w *world) *write
	// resend is a send again of a draft already sent; nil for none.
	resend(w *world, wk *work, d sandbox.Draft, dec decision) *write
	// accept records a valid approve as taken up; nil: it is not.
	accept(w *world, wk *work, d sandbox.Draft, dec decision) *write
	// send is the outbox line for an accepted draft; nil: not now.
	send(w *world, wk *work, d sandbox.Draft) *write
	// late is a write after the approvals and before admissions; nil for
	// none.
	late(w *world) *write
	// polls reports whether the step looks at an inbox line at all.
	polls(v *view, m sandbox.Message) bool
	// key names the work item the occurrence-th delivery of a message is
	// admitted as, and reports false when that delivery is not new work.
	key(w *world, m sandbox.Message, occurrence int) (string, bool)
	// facts are what the rules see of a message.
	facts(w *world, m sandbox.Message) facts
	// nameDraft is the id of the owner's draft for a work item.
	nameDraft(w *world, wk *work) string
	// prompt is the model request for a work item's draft.
	prompt(w *world, wk *work) string
	// redecides reports whether a later valid decision on a draft replaces
	// the first one.
	redecides() bool
	// reopens reports whether a resolved work item is taken up again on a
	// decision.
	reopens(w *world, wk *work, dec decision) bool
	// complete asks the model for a draft's text.
	complete(m sandbox.Model, prompt string) (sandbox.Completion, error)
	// mendsTorn reports whether a fresh instance ends a log's torn last
	// line before it writes on.
	mendsTorn() bool
}

// reference is the reference responder's answer at every decision point.
type reference struct{}

var _ policy = reference{}

func (reference) prepare(sandbox.Store) error { return nil }

func (reference) settles() bool { return true }

func (reference) redecides() bool { return false }

func (reference) reopens(*world, *work, decision) bool { return false }

func (reference) see(*view, *caches) {}

func (reference) derived(*world) {}

func (reference) snapshot(w *world) (sandbox.Snapshot, bool) { return snapshot(w), true }

// bind accepts a declared draft with that id and exactly that content
// hash, and only a decision the spec defines.
func (reference) bind(w *world, a sandbox.ApprovalRecord) (sandbox.Draft, bool) {
	if !knownDecision(a) {
		return sandbox.Draft{}, false
	}
	d, ok := w.drafts[a.DraftID]
	return d, ok && d.ContentHash == a.ContentHash
}

func (reference) ignoredEvent() string { return eventApprovalIgnored }

func (reference) stopped(*world, *work) bool { return false }

func (reference) sent(_ *world, wk *work) bool { return wk.effects > 0 }

// escalation abandons the work item the signal names, while it is
// unfinished: even one whose draft is approved but not yet sent.
func (reference) escalation(w *world, s sandbox.SignalRecord) (*work, bool) {
	wk, ok := w.byID[s.Target]
	return wk, ok && !wk.resolved && wk.effects == 0
}

func (reference) standsDown(string) bool { return true }

// takeOver hands the work to another alive agent, or abandons it visibly
// when no agent is left.
func (reference) takeOver(w *world, wk *work) *write {
	if len(w.alive) == 0 {
		return w.resolve(wk, sandbox.OutcomeAbandoned, reasonNoAgent)
	}
	return w.claim(wk, w.reassignee(wk), sandbox.ClaimWon, reasonReassigned)
}

func (reference) early(*world) *write { return nil }

func (reference) resend(*world, *work, sandbox.Draft, decision) *write { return nil }

func (reference) accept(w *world, wk *work, d sandbox.Draft, dec decision) *write {
	return audit(approvalLine{Event: eventApprovalAccepted, At: w.v.tick, ApprovalID: dec.approvalID,
		DraftID: d.DraftID, WorkID: wk.id})
}

func (reference) send(w *world, _ *work, d sandbox.Draft) *write {
	return w.effect(d.DraftID, d.DraftID)
}

func (reference) late(*world) *write { return nil }

func (reference) polls(*view, sandbox.Message) bool { return true }

// key admits a message once, as its own work item, "w-" and its id;
// redeliveries are not new work.
func (reference) key(w *world, m sandbox.Message, occurrence int) (string, bool) {
	if occurrence > 0 || w.decided[m.ID] {
		return "", false
	}
	return ownWorkID(m), true
}

func (reference) facts(w *world, m sandbox.Message) facts { return w.facts(m) }

func (reference) nameDraft(_ *world, wk *work) string { return draftID(wk.id, wk.owner) }

// prompt holds the work item's own conversation up to its message.
func (reference) prompt(w *world, wk *work) string {
	return promptOf(w.thread(wk.message().ConversationID, wk.message().ID))
}

// complete asks again after a failed call (see retry.go), and drafts only
// from the call that answered.
func (reference) complete(m sandbox.Model, prompt string) (sandbox.Completion, error) {
	return complete(m, prompt)
}

// mendsTorn ends a torn line, so the next record starts a line of its own.
func (reference) mendsTorn() bool { return true }

// fresh returns a new policy of type T: the registry's constructor for a
// weak implementation, so every instance starts with empty memory.
func fresh[T any, P interface {
	*T
	policy
}]() policy {
	return P(new(T))
}
