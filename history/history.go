// Package history owns amr's second oracle. It compiles one run's artifacts
// (the bundle, the sandbox files and, when the run came from amr's engine,
// the run log) into a single totally ordered history of operations: the
// harness's actions and the implementation's observable acts, each with its
// tick, its actor and the unique ids that make every effect traceable to its
// cause. A checker then verifies the named invariants H1–H9 over that history
// in one linear pass, and a diagnostic attributes every stub model call to
// the surprise that justified it.
//
// The package is written apart from the level checker on purpose: it shares
// no code with it beyond the sandbox record types. The two oracles answer
// overlapping questions, and the differential guard compares their answers;
// a disagreement is a harness bug, never a verdict on the implementation.
package history

import (
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Format tags a history document.
const Format = "amr.history/v1"

// FileName is the history's file name, written beside a kept sandbox.
const FileName = "history.jsonl"

// Orderings a history can have. A run log gives the exact order in which
// the harness acted and the implementation wrote; without one the order is
// rebuilt from the files' own ticks and is weaker: two implementation lines
// of one tick in different files have no known order.
const (
	OrderRunLog = "run-log"
	OrderFiles  = "file-order"
)

// Actors.
const (
	ActorHarness = "harness"
	ActorImpl    = "impl"
	ActorStub    = "stub"
)

// Operation types.
const (
	OpDeliver       = "deliver"
	OpDuplicate     = "duplicate"
	OpApprove       = "approve"
	OpSignal        = "signal"
	OpPosture       = "posture"
	OpRules         = "rules"
	OpCrash         = "crash"
	OpRestart       = "restart"
	OpForcedAdvance = "forced_advance"
	OpAdmit         = "admit"
	OpClaim         = "claim"
	OpDraft         = "draft"
	OpSend          = "send"
	OpResolve       = "resolve"
	OpModelCall     = "model_call"
	// OpState is the implementation's final state.json, the last operation
	// of a history whose sandbox has one.
	OpState = "state"
)

// Values of an approve operation's Forged field, decided from the history
// itself: dangling when no draft with that id was declared before the line,
// hash_mismatch when one was but with another content hash, no otherwise.
const (
	ForgedDangling     = "dangling"
	ForgedHashMismatch = "hash_mismatch"
	ForgedNo           = "no"
)

// Op is one operation of a history. Which fields are set depends on Type.
type Op struct {
	Index int    `json:"index"`
	Tick  int    `json:"tick"`
	Actor string `json:"actor"`
	Type  string `json:"type"`

	MessageID      string `json:"message_id,omitempty"`
	ConversationID string `json:"conversation_id,omitempty"`
	WorkID         string `json:"work_id,omitempty"`
	DraftID        string `json:"draft_id,omitempty"`
	ApprovalID     string `json:"approval_id,omitempty"`
	EffectID       string `json:"effect_id,omitempty"`
	SignalID       string `json:"signal_id,omitempty"`
	AgentID        string `json:"agent_id,omitempty"`
	CallID         string `json:"call_id,omitempty"`

	ContentHash string   `json:"content_hash,omitempty"`
	Decision    string   `json:"decision,omitempty"`
	Forged      string   `json:"forged,omitempty"`
	Repeat      bool     `json:"repeat,omitempty"` // approve: a redelivered line
	SignalType  string   `json:"signal_type,omitempty"`
	Posture     string   `json:"posture,omitempty"`
	RulesHash   string   `json:"rules_hash,omitempty"`
	Outcome     string   `json:"outcome,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Down        int      `json:"down,omitempty"`       // crash: the ticks the implementation stays down (D70)
	Calls       []string `json:"calls,omitempty"`      // draft: the model calls it cites
	ModelFree   bool     `json:"model_free,omitempty"` // draft: origin "model-free"
	Items       []Item   `json:"items,omitempty"`      // state: its work items
	// Approximate marks an operation whose place in the order is not
	// exactly known (a crash without a run log, a line the run log does not
	// account for).
	Approximate bool `json:"approximate,omitempty"`

	// Src is where the operation comes from: file:line of a sandbox file,
	// run.jsonl:N of the run log, or bundle:faults[i].
	Src string `json:"src"`
}

// Item is one work item of a state operation.
type Item struct {
	WorkID string `json:"work_id"`
	Status string `json:"status"`
}

// History is one run's compiled history.
type History struct {
	Format   string `json:"format"`
	Scenario string `json:"scenario"`
	Ordering string `json:"ordering"`
	// Fleet lists the agents the run started with.
	Fleet []string `json:"fleet"`
	// Skipped lists the implementation lines that did not parse; they take
	// no part in the history (the level checker scores them).
	Skipped []string `json:"skipped"`
	Ops     []Op     `json:"-"`
	// Admission is what H9 reads besides the operations (nil without a
	// bundle); history.jsonl carries it in its header.
	Admission *Admission `json:"-"`
}

// Input is what a history is compiled from: the bundle, the sandbox files,
// and the run log when there is one.
type Input struct {
	Bundle *scenarios.Bundle
	Files  map[string][]byte
	Log    []sandbox.LogRecord
	// Parsed, when set, is the parse of Files shared with the run's other
	// readers; nil: the compiler parses itself. Either way it reads the
	// same lines.
	Parsed *sandbox.Parsed
}
