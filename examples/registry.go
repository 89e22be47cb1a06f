// Package examples owns the implementations under test that ship with amr:
// the reference responder, correct at every level under every fault, and the
// weak implementations, each the reference with one planted defect that a
// published scenario must catch. They read and write only the sandbox files
// and call only the stub model, as any implementation under test must.
//
// The reference is plain code (responder.go, view.go, world.go, plan.go)
// that asks a policy at every point where an implementation could decide
// differently: admit, key a message, bind an approval, accept, send, stand
// down, take over, escalate, name a draft, prompt (policy.go lists them all).
// Its own answers are the methods of the type reference. A weak
// implementation is a file weak_<name>.go with a type that embeds reference
// and overrides the one or two methods its defect is about, keeping any
// memory the defect needs in its own fields; a row in zoo below names it
// with fresh[<type>], and a case in weakCases (weak_test.go) shows the
// defect in its files and not in the reference's. docs/implementations.md
// ("Adding a weak implementation") walks through it.
package examples

import (
	"sort"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Kinds of implementation.
const (
	KindReference = "reference"
	KindWeak      = "weak"
)

// ReferenceName is the reference responder's name.
const ReferenceName = "reference"

// Impl describes one built-in implementation. For a weak one, Targets are
// the invariant ids its defect must trip (any one of them counts as caught;
// an id starting "surprise." names a diagnostic, not an invariant) and
// Scenario is the published scenario that must catch it; an empty
// Scenario means no published scenario exercises the defect yet and only the
// fault search can find it.
type Impl struct {
	Name        string
	Kind        string
	Description string
	Scenario    string
	Targets     []string
	// NeedsRunLog is set when the defect shows only in what the harness saw
	// written, not in the files it leaves: judged without the run log, it
	// passes.
	NeedsRunLog bool
	New         sandbox.Factory
}

// weakSpec is one row of the zoo: a defect and what must catch it. policy
// makes a fresh instance's decisions (fresh[T] for the type T of
// weak_<name>.go).
type weakSpec struct {
	name        string
	policy      func() policy
	description string
	scenario    string
	targets     []string
}

var zoo = []weakSpec{
	{"weak-no-send", fresh[noSend],
		"drafts replies but never sends them",
		"l0-respond", []string{"L0.reply", "L2.approval-latency"}},
	{"weak-undeclared-send", fresh[undeclaredSend],
		"declares its draft under one id and sends under another it never declared",
		"l0-respond", []string{"L0.outbox-declared"}},
	{"weak-memory-pending", fresh[memoryPending],
		"keeps an accepted approval's send only in memory and sends a tick later; a crash forgets it",
		"l1-multiturn-crash", []string{"L1.crash-resolution"}},
	{"weak-context-stuffing", fresh[contextStuffing],
		"prompts the model with every thread of the same customer, not just this one",
		"l1-anchor-collision", []string{"L1.own-anchor"}},
	{"weak-fork-on-duplicate", fresh[forkOnDuplicate],
		"admits every inbox line, duplicate deliveries included, as new work",
		"l1-anchor-collision", []string{"L1.duplicate-work"}},
	{"weak-ignore-posture", fresh[ignorePosture],
		"evaluates the rules as if the posture were always normal",
		"l2-govern", []string{"L2.admission-unwarranted", "L2.admission-missing"}},
	{"weak-trust-any-approval", fresh[trustAnyApproval],
		"accepts an approval that matches a draft by id or by content hash, not both",
		"l2-govern", []string{"L2.forged-approval-acted", "L2.approval-binding", "L2.forged-approval-cited"}},
	{"weak-send-per-approval", fresh[sendPerApproval],
		"sends once per approval line, so a redelivered approval sends again",
		"l2-approval-redelivery", []string{"L1.duplicate-effect", "L2.redelivery-duplicate"}},
	{"weak-drop-dead-agent-work", fresh[dropDeadAgentWork],
		"marks a dead agent dead and does nothing with its work",
		"l3-fleet-concurrent", []string{"L3.agent-death"}},
	{"weak-no-stand-down", fresh[noStandDown],
		"never writes stood_down claim records",
		"l3-fleet-concurrent", []string{"L3.stand-down-record"}},
	{"weak-stale-state", fresh[staleState],
		"writes state.json once and never again",
		"l3-fleet-concurrent-redelivery", []string{"L3.state-consistency"}},
	{"weak-ignore-escalation", fresh[ignoreEscalation],
		"ignores OPERATOR_ESCALATION signals",
		"l4-operator-escalation", []string{"L4.send-after-escalation", "L4.escalation-resolution"}},
	{"weak-subject-keyed", fresh[subjectKeyed],
		"keys work on the subject: a second message with the same subject joins the first's work item",
		"l5-identity-fallibility", []string{"L5.distinct-work"}},
	{"weak-escalate-before-approval-only", fresh[escalateBeforeApprovalOnly],
		"honours an escalation only while no approval has arrived for the draft",
		"l6-post-approval-escalation", []string{"L6.post-approval-send"}},
	{"weak-silent-abandon", fresh[silentAbandon],
		"stops work on an escalated item but writes no resolution record",
		"l4-operator-escalation", []string{"L4.escalation-resolution"}},
	{"weak-send-without-approval", fresh[sendWithoutApproval],
		"sends every draft as soon as it is declared, without waiting for an approval",
		"l2-govern", []string{"L2.approval-binding"}},
	{"weak-cite-forged", fresh[citeForged],
		"records every approval it rejects as received, citing forged approvals in the audit",
		"l2-govern", []string{"L2.forged-approval-cited"}},
	{"weak-rules-once", fresh[rulesOnce],
		"reads rules.json once when it starts and never again",
		"l2-govern", []string{"L2.admission-unwarranted", "L2.admission-missing", "L2.admission-record"}},
	{"weak-send-before-record", fresh[sendBeforeRecord],
		"knows a reply was sent only from its resolution record, so a crash between send and record sends twice",
		"l1-crash-after-send", []string{"L1.duplicate-effect"}},
	{"weak-jump-blind", fresh[jumpBlind],
		"polls only for messages stamped with the current or previous tick, missing those inside a tick jump",
		"l2-tick-jump-intake", []string{"L2.admission-missing", "L0.reply"}},
	{"weak-thread-keyed", fresh[threadKeyed],
		"keys work on the conversation: a follow-up joins its thread's work item, answered long before",
		"l1-multiturn-crash", []string{"L1.follow-up-reply", "L5.distinct-work"}},
	{"weak-slow-reclaim", fresh[slowReclaim],
		"claims a dead agent's work at once but wins it only when the dead agent's lease runs out, 8 ticks later",
		"l3-fleet-concurrent", []string{"L3.claim-window"}},
	// l4-downtime-escalation escalates one item while another is open.
	{"weak-escalate-all", fresh[escalateAll],
		"on any OPERATOR_ESCALATION abandons every unfinished work item, not only the one it names",
		"l4-downtime-escalation", []string{"L0.reply", "L1.follow-up-reply", "L2.approval-latency", "L4.escalation-resolution", "L5.approved-send"}},
	{"weak-no-agents", fresh[noAgents],
		"ignores agents: writes no claims, and a state.json with no assigned agent, assignment or agent",
		"l3-fleet-concurrent", []string{"L3.agent-death-unbound"}},
	{"weak-unsend", fresh[unsend],
		"sends each draft before it is approved and takes the outbox line back at once, leaving only approved sends",
		"l2-govern", []string{"L0.append-only", "L2.approval-binding"}},
	{"weak-approval-by-work", fresh[approvalByWork],
		"files a decision under the work item, so an approval of the previous draft sends the re-drafted one",
		"l2-approval-of-previous-draft", []string{"L2.approval-binding"}},
	{"weak-last-decision-wins", fresh[lastDecisionWins],
		"takes the latest decision on a draft as final: an approval after a rejection reopens the abandoned item and sends",
		"l3-reject-then-approve", []string{"L1.resolution-conflict", "L2.send-after-rejection"}},
	// Rejected work it never hears of stays open, so where no approval
	// follows the rejection it is also never resolved.
	{"weak-ignore-reject", fresh[ignoreReject],
		"reads only approve lines: a rejection is never recorded, and a later approval of the rejected draft sends it",
		"l3-reject-then-approve", []string{"L2.send-after-rejection", "L3.resolution-missing"}},
	{"weak-content-dedup", fresh[contentDedup],
		"takes a message with an earlier one's sender, subject and body for a redelivery and never admits it",
		"l2-same-sender-same-body", []string{"L2.admission-missing", "L0.reply", "L1.follow-up-reply"}},
	{"weak-lazy-mode", fresh[lazyMode],
		"polls mode.json every 8 ticks, so a posture change reaches admissions after the 5-tick allowance",
		"l2-posture-allowance-edge", []string{"L2.admission-unwarranted", "L2.admission-missing"}},
	// A cost defect, not a correctness one: its target is the surprise
	// diagnostic, which no level verdict includes.
	{"weak-redraft-every-tick", fresh[redraftEveryTick],
		"declares a fresh draft, with a fresh model call, on every tick its work waits for approval",
		"l3-fleet-concurrent", []string{"surprise.unattributed-call"}},
	// The faults real deployments have (issue 20): each is caught by its
	// kind of fault in generated runs, and by the published scenario named.
	{"weak-skip-old-signals", fresh[skipOldSignals],
		"ignores escalations stamped before its instance started, so those that fired while it was down",
		"l4-downtime-escalation", []string{"L4.send-after-escalation", "L4.escalation-resolution"}},
	{"weak-stale-approval", fresh[staleApproval],
		"ignores an approval decided before its draft was declared, as a stamped late decision is",
		"l2-stale-stamp", []string{"L2.approval-latency", "L0.reply", "L3.resolution-missing"}},
	{"weak-cite-failed-call", fresh[citeFailedCall],
		"on a failed model call that names its id, drafts a stock reply citing that call",
		"l0-model-failures", []string{"L0.draft-origin"}},
	{"weak-torn-glue", fresh[tornGlue],
		"writes on after a crash without ending a torn last line, gluing its next record onto it",
		"l1-torn-write", []string{"L0.record-format"}},
	{"weak-count-duplicates", fresh[countDuplicates],
		"counts thread length and sender history over inbox lines, so a duplicate delivery counts again",
		"l2-threshold-edges", []string{"L2.admission-unwarranted", "L2.admission-missing"}},
}

// runLogOnly are the weak implementations that leave files an honest
// implementation could leave: only the run log shows their defect.
var runLogOnly = map[string]bool{"weak-unsend": true}

// All lists the built-in implementations: the reference first, then the weak
// ones sorted by name.
func All() []Impl {
	out := []Impl{{
		Name:        ReferenceName,
		Kind:        KindReference,
		Description: "derives its world from the sandbox files and keeps it across steps; correct at every level under every fault",
		New:         Reference(),
	}}
	weak := make([]Impl, 0, len(zoo))
	for _, w := range zoo {
		weak = append(weak, Impl{
			Name:        w.name,
			Kind:        KindWeak,
			Description: w.description,
			Scenario:    w.scenario,
			Targets:     append([]string(nil), w.targets...),
			NeedsRunLog: runLogOnly[w.name],
			New:         factory(w.policy),
		})
	}
	sort.Slice(weak, func(i, j int) bool { return weak[i].Name < weak[j].Name })
	return append(out, weak...)
}

// Lookup finds a built-in implementation by name.
func Lookup(name string) (Impl, bool) {
	for _, im := range All() {
		if im.Name == name {
			return im, true
		}
	}
	return Impl{}, false
}

// Reference returns a factory for the reference responder.
func Reference() sandbox.Factory { return factory(fresh[reference]) }

func factory(p func() policy) sandbox.Factory {
	return func() sandbox.Implementation { return &responder{p: p()} }
}
