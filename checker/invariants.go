package checker

// Invariant kinds.
const (
	KindSafety   = "safety"
	KindLiveness = "liveness"
	KindContract = "contract"
)

// Invariant describes one named invariant: its stable id, its level, its
// kind, a one-line summary, and the part of the spec it implements.
type Invariant struct {
	ID      string `json:"id"`
	Level   int    `json:"level"`
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	Spec    string `json:"spec"`
}

var catalogue = []Invariant{
	{"L0.record-format", 0, KindContract,
		"Every non-blank line of drafts, outbox and audit is a valid record with its required fields.",
		"§2 drafts/outbox/audit record shapes; audit envelope {event, at}"},
	{"L0.harness-files", 0, KindContract,
		"The harness's files (inbox, approvals, signals, mode, clock, rules) hold what the run log, or without one the bundle, says the harness wrote.",
		"§2 inbox, approvals, signals, mode.json, clock, rules.json: written by the harness"},
	{"L0.append-only", 0, KindContract,
		"drafts, outbox and audit are only appended to: no line the harness saw written is changed, moved or taken back.",
		"§2 drafts, outbox, audit: append-only; outbox: a line here is sent, there is no unsend"},
	{"L0.draft-redeclared", 0, KindContract,
		"A draft id is declared once; declaring it again with other content is a violation.",
		"§2 approvals: a draft that changes by one word is a new draft"},
	{"L0.outbox-declared", 0, KindContract,
		"Every outbox line's draft_id was declared in drafts.jsonl before the send.",
		"§2 outbox: valid only if its draft_id was previously declared; §4 L0 safety"},
	{"L0.draft-origin", 0, KindContract,
		"A draft's origin is \"model-free\" or model call ids that all appear in model-calls.jsonl.",
		"§2 model contract: every declared draft's origin must trace to stub call ids or be model-free"},
	{"L0.reply", 0, KindLiveness,
		"The first message of a conversation that expects a reply gets an outbox effect by its deadline.",
		"§4 L0 liveness: a valid reply lands in the outbox within 10 ticks of arrival"},
	{"L1.duplicate-effect", 1, KindSafety,
		"At most one outbox effect per work item, per draft and per effect id.",
		"§4 L1 safety: no duplicate outbox effect for one approved unit of work"},
	{"L1.duplicate-work", 1, KindSafety,
		"A message is admitted under one work id only.",
		"§4 L1 safety: no forked thread from a duplicate delivery"},
	{"L1.own-anchor", 1, KindSafety,
		"A sent draft carries its own conversation's anchor and no other anchor.",
		"§4 L1 liveness and falsifier: a reply carrying its own thread's anchor, never the sibling's"},
	{"L1.follow-up-reply", 1, KindLiveness,
		"A follow-up that expects a reply gets an outbox effect by its deadline.",
		"§4 L1 liveness: a follow-up arriving later receives a reply within 10 ticks"},
	{"L1.crash-resolution", 1, KindLiveness,
		"Work approved but unsent at a crash is sent or abandoned with a record within 20 ticks.",
		"§4 L1 liveness: after a crash between declared draft and send, pending work resolves within 20 ticks"},
	{"L1.resolution-conflict", 1, KindSafety,
		"A work item is never both sent and abandoned, never resolved both ways, never completed without a send.",
		"§4 L1 liveness: completed exactly once, or abandoned with a resolution record — never both, never silently"},
	{"L2.admission-unwarranted", 2, KindSafety,
		"No admission record for a message that no rule in force admits.",
		"§4 L2 safety: no work item without a matching rule"},
	{"L2.admission-missing", 2, KindLiveness,
		"A message that the rules in force admit is admitted within 5 ticks of arriving.",
		"§4 L2 liveness: a message matching a rule becomes a work item within 5 ticks"},
	{"L2.admission-record", 2, KindSafety,
		"Every work id in use has an admission record naming a delivered message and the rules_hash in force.",
		"§4 L2 safety: no work item without an admission record; every admission traceable to the rules version"},
	{"L2.approval-binding", 2, KindSafety,
		"Every outbox effect's draft has an approve line with its draft id and content hash, written before the send.",
		"§4 L2 safety: no outbox effect without an approval binding its draft id and content hash"},
	{"L2.forged-approval-acted", 2, KindSafety,
		"No outbox effect whose only authority is a forged approval (dangling id or hash mismatch).",
		"§4 L2 safety: no effect authorized by a forged or dangling approval"},
	{"L2.forged-approval-cited", 2, KindSafety,
		"No audit record names a forged approval's id, at any depth, without saying where it sits that the approval is not valid.",
		"§2 fault schedule: a system must ignore forged approvals and must not cite them as authority"},
	{"L2.approval-latency", 2, KindLiveness,
		"A valid approval of a work item's latest draft is followed by a send within 5 ticks.",
		"§4 L2 liveness: an approved draft sends within 5 ticks of approval"},
	{"L2.redelivery-duplicate", 2, KindSafety,
		"A redelivered approval never yields a second outbox effect.",
		"§4 L2 falsifier: duplicate outbox effects from a redelivered approval"},
	{"L2.send-after-rejection", 2, KindSafety,
		"No outbox effect for a draft whose first valid decision was a reject, nor for a work item such a rejection of its latest draft ended.",
		"§1.2: decision == reject: abandon(work_id, reason); SPEC-NOTES: a rejected draft ends its work item (D154, D155)"},
	{"L3.double-handled", 3, KindSafety,
		"At no tick do two agents hold a won claim on one work item.",
		"§4 L3 safety: two agents claiming one work item resolve to exactly one owner"},
	{"L3.claim-winner", 3, KindSafety,
		"A contested work item ends with exactly one winner, or none when it is visibly orphaned.",
		"§2 claim: a work item must end with exactly one won and zero or more stood_down entries"},
	{"L3.stand-down-record", 3, KindSafety,
		"An agent that claimed a work item and did not win it has a later stood_down record.",
		"§4 L3 safety: claim records for both the win and the stand-down"},
	{"L3.claim-window", 3, KindLiveness,
		"A work item's first claimed record is followed by a won record within 5 ticks.",
		"§4 L3 liveness: concurrent claims resolve within 5 ticks"},
	{"L3.agent-death", 3, KindLiveness,
		"A dead agent's unfinished work is won by or assigned to another live agent, sent, or resolved by the horizon.",
		"§4 L3 safety: a dead agent's work is reassigned or visibly orphaned — never silently dropped"},
	{"L3.agent-death-unbound", 3, KindLiveness,
		"A scheduled AGENT_DEATH for a message reaches an agent by the horizon: the message is admitted and some source names the agent holding its unfinished work.",
		"§2 state: work_items[].assigned_agent, assignments; §2 claim; §4 L3: the harness may write AGENT_DEATH signals"},
	{"L3.resolution-missing", 3, KindLiveness,
		"Every admitted work item has a resolution record by the horizon.",
		"§4 L3 liveness: every accepted work item reaches a terminal state with a resolution record"},
	{"L3.state-consistency", 3, KindSafety,
		"state.json agrees with the logs exactly at quiescent ticks and within 2 ticks after a forced advance.",
		"§2 state; §4 L3 safety: the snapshot agrees with the logs within the lag allowance, exactly at quiescent points"},
	{"L3.state-schema", 3, KindContract,
		"Every version of state.json is a JSON object with the spec's minimal schema and its required fields.",
		"§2 state: {work_items: [{work_id, status, assigned_agent}], agents: [{id, alive}], assignments: [{work_id, agent_id}]}"},
	{"L4.send-after-escalation", 4, KindSafety,
		"No outbox effect for a work item after an OPERATOR_ESCALATION naming it.",
		"§4 L4 safety: no outbox effect for an escalated work item after the escalation signal"},
	{"L4.draft-after-escalation", 4, KindSafety,
		"No draft declared for a work item after an OPERATOR_ESCALATION naming it.",
		"§4 L4: after escalation, the system must stop all automated work on that item (D135)"},
	{"L4.escalation-outcome", 4, KindSafety,
		"An escalated work item reaches no terminal state other than abandoned for operator_escalation.",
		"§4 L4 falsifier: an escalated work item that reaches any terminal state other than operator_escalation"},
	{"L4.escalation-resolution", 4, KindLiveness,
		"An escalated work item has an abandoned/operator_escalation resolution record by the horizon.",
		"§4 L4 liveness: escalated work items still produce an observable resolution"},
	{"L5.distinct-work", 5, KindSafety,
		"Each admitted message is its own work item: no work id covers two messages.",
		"§4 L5 safety: each admitted message becomes a distinct work item"},
	{"L5.conversation-identity", 5, KindSafety,
		"A draft carries the conversation_id of the message its work item answers.",
		"§4 L5 safety: no draft or sent reply carries the wrong conversation_id"},
	{"L5.escalated-send", 5, KindSafety,
		"No outbox effect for a work item after its escalation (the L4 facts, reported at L5).",
		"§4 L5 safety: an escalated work item is abandoned without a send"},
	{"L5.approved-send", 5, KindLiveness,
		"Every message that expects a reply gets one by its deadline (the L0/L1 reply rule, reported at L5).",
		"§4 L5 liveness: the approved work item sends within its approval window"},
	{"L5.escalation-resolution", 5, KindLiveness,
		"An escalated work item has an abandoned/operator_escalation record by the horizon (the L4 rule, reported at L5).",
		"§4 L5 liveness: the escalated work item produces an observable abandoned resolution"},
	{"L6.post-approval-send", 6, KindSafety,
		"No outbox effect after an escalation that came after a valid approval was in force.",
		"§4 L6 safety: no outbox effect after escalation, even with a legitimate approval"},
	{"L6.post-approval-abandon", 6, KindLiveness,
		"A work item escalated after its approval is abandoned for operator_escalation by the horizon.",
		"§4 L6 liveness: the escalation produces an observable abandoned resolution"},
}

// Invariants returns the catalogue of named invariants, in a stable order
// (by level, then as the spec lists them).
func Invariants() []Invariant {
	return append([]Invariant(nil), catalogue...)
}

// Lookup returns the invariant with the given id.
func Lookup(id string) (Invariant, bool) {
	for _, inv := range catalogue {
		if inv.ID == id {
			return inv, true
		}
	}
	return Invariant{}, false
}
