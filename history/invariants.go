package history

// Invariant ids of the history oracle. They never change meaning.
const (
	H1DuplicateEffect         = "H1.duplicate-effect"
	H2OrphanEffect            = "H2.orphan-effect"
	H3LostWork                = "H3.lost-work"
	H4EffectAfterCancellation = "H4.effect-after-cancellation"
	H5UnauthorizedEffect      = "H5.unauthorized-effect"
	H6FalseSuppression        = "H6.false-suppression"
	H7ClaimContradiction      = "H7.claim-contradiction"
	H8EffectDespiteCrash      = "H8.effect-despite-pre-persist-crash"
	H9Admission               = "H9.admission"
	H10DraftAfterEscalation   = "H10.draft-after-escalation"
	H11SendAfterRejection     = "H11.send-after-rejection"
)

// Causes name the kind of a violation, where an invariant has several.
const (
	CauseUndeclared = "undeclared" // H2: the draft was not declared before the effect
	CauseUnadmitted = "unadmitted" // H2: the draft's work item was not admitted before the effect

	CauseEscalation = "escalation" // H4: after an OPERATOR_ESCALATION naming the work item
	CauseResolution = "resolution" // H4: after a resolution record of the work item

	CauseCompletedWithoutSend = "completed-without-send"       // H7: audit says completed, outbox has nothing
	CauseAbandonedWithSend    = "abandoned-with-send"          // H7: audit says abandoned, outbox has a send
	CauseResolvedBothWays     = "resolved-both-ways"           // H7: completed and abandoned records
	CauseStateCompleted       = "state-completed-without-send" // H7: state.json says completed, outbox has nothing
	CauseStateAbandoned       = "state-abandoned-with-send"    // H7: state.json says abandoned, outbox has a send

	CauseOutAtCrash  = "effect-out-at-crash" // H8: a crash found the effect out, its draft not declared
	CauseLostAtCrash = "draft-lost-at-crash" // H8: the draft's model call preceded a crash, the draft was declared only after the effect

	CauseUnwarranted = "unwarranted" // H9: an admission of a message no rules and posture it may be judged under admit
	CauseMissing     = "missing"     // H9: a message every such context admits is not admitted within 5 visited ticks
)

// Invariant describes one history invariant.
type Invariant struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

var catalogue = []Invariant{
	{H1DuplicateEffect, "At most one effect per effect id, per draft and per work item; each further one is a violation."},
	{H2OrphanEffect, "Every effect's draft was declared before it, for a work item admitted before it."},
	{H3LostWork, "Admitted work with a valid approve decision, never escalated nor validly rejected, is sent or resolved by the end of the history."},
	{H4EffectAfterCancellation, "No effect for a work item after its escalation or after a resolution record of it (a rejection is H11's)."},
	{H5UnauthorizedEffect, "Every effect has, before it, a valid approve line binding its draft id and the draft's declared content hash."},
	{H6FalseSuppression, "Admitted work is abandoned only with a cause before it: its escalation, a valid reject of one of its drafts, the death of an agent that claimed it, or a crash while it was pending."},
	{H7ClaimContradiction, "Audit and state.json agree with the outbox: nothing completed without a send, nothing abandoned with a send, nothing resolved both ways."},
	{H8EffectDespiteCrash, "No crash finds an effect out whose draft is not yet declared, and no effect sent after a crash rests on a draft whose model call preceded the crash but that was declared only after the effect."},
	{H9Admission, "A message is admitted only if some rules and posture it may be judged under admit it, and within 5 visited ticks when all of them do; the history evaluates the rules itself."},
	{H10DraftAfterEscalation, "No draft is first declared for a work item after an escalation naming it or a work item admitted for a message it was admitted for (D135)."},
	{H11SendAfterRejection, "No effect after a valid reject that was the first valid decision on the effect's draft, or on the draft that was its work item's latest when the reject came (D154, D155)."},
}

// Invariants returns the history oracle's catalogue, in id order.
func Invariants() []Invariant {
	return append([]Invariant(nil), catalogue...)
}
