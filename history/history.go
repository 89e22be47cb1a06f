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
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

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

// Actor is who did an operation; history.jsonl writes its name. A run
// holds about ten operations a message, so each keeps its actor and type in
// a byte, not a string.
type Actor uint8

// Actors.
const (
	ActorHarness Actor = iota + 1
	ActorImpl
	ActorStub
)

var actorNames = [...]string{ActorHarness: "harness", ActorImpl: "impl", ActorStub: "stub"}

// String is the actor's name, "" for the zero Actor.
func (a Actor) String() string {
	if int(a) < len(actorNames) {
		return actorNames[a]
	}
	return ""
}

// OpType is an operation's type; history.jsonl writes its name.
type OpType uint8

// Operation types.
const (
	OpDeliver OpType = iota + 1
	OpDuplicate
	OpApprove
	OpSignal
	OpPosture
	OpRules
	OpCrash
	OpRestart
	OpForcedAdvance
	OpAdmit
	OpClaim
	OpDraft
	OpSend
	OpResolve
	OpModelCall
	// OpState is the implementation's final state.json, the last operation
	// of a history whose sandbox has one.
	OpState
)

var opTypeNames = [...]string{OpDeliver: "deliver", OpDuplicate: "duplicate", OpApprove: "approve", OpSignal: "signal",
	OpPosture: "posture", OpRules: "rules", OpCrash: "crash", OpRestart: "restart", OpForcedAdvance: "forced_advance",
	OpAdmit: "admit", OpClaim: "claim", OpDraft: "draft", OpSend: "send", OpResolve: "resolve",
	OpModelCall: "model_call", OpState: "state"}

// String is the type's name, "" for the zero OpType.
func (t OpType) String() string {
	if int(t) < len(opTypeNames) {
		return opTypeNames[t]
	}
	return ""
}

// nameIndex is the index of name in names, 0 for "" or a name not there.
func nameIndex(names []string, name string) (uint8, bool) {
	if name == "" {
		return 0, true
	}
	for i, n := range names {
		if i > 0 && n == name {
			return uint8(i), true
		}
	}
	return 0, false
}

// Values of an approve operation's Forged field, decided from the history
// itself: dangling when no draft with that id was declared before the line,
// hash_mismatch when one was but with another content hash, no otherwise.
const (
	ForgedDangling     = "dangling"
	ForgedHashMismatch = "hash_mismatch"
	ForgedNo           = "no"
)

// Op is one operation of a history. Which fields are set depends on Type.
// The fields most operations leave empty are in Rare, behind a pointer
// (nil when all of them are), so that a run's many operations stay small;
// history.jsonl lays every field out flat all the same (opLine).
type Op struct {
	Index int
	Tick  int
	Actor Actor
	Type  OpType
	// Approximate marks an operation whose place in the order is not
	// exactly known (a crash without a run log, a line the run log does not
	// account for).
	Approximate bool
	// srcFile and srcLine are Src when it is line srcLine of a file amr
	// knows (srcFiles[srcFile]): most operations' source, held in the bytes
	// the fields above leave free instead of as a string of its own.
	srcFile uint8
	srcLine int32

	MessageID      string
	ConversationID string
	WorkID         string
	DraftID        string
	AgentID        string
	ContentHash    string
	Outcome        string
	Reason         string

	// src is where the operation comes from (Src), when srcFile does not
	// say it.
	src string

	Rare *Rare
}

// srcFiles are the files an operation's source names by number.
var srcFiles = [...]string{1: sandbox.Inbox, 2: sandbox.Approvals, 3: sandbox.Signals, 4: sandbox.Drafts,
	5: sandbox.Outbox, 6: sandbox.Audit, 7: sandbox.ModelCalls, 8: sandbox.State, 9: sandbox.RunLogFile}

// Src is where the operation comes from: file:line of a sandbox file,
// run.jsonl:N of the run log, or bundle:faults[i].
func (op *Op) Src() string {
	if op.srcFile == 0 {
		return op.src
	}
	return ref(srcFiles[op.srcFile], int(op.srcLine))
}

// SetSrc sets where the operation comes from.
func (op *Op) SetSrc(src string) {
	if i := strings.LastIndexByte(src, ':'); i > 0 {
		if n, err := strconv.ParseInt(src[i+1:], 10, 32); err == nil && n > 0 && strconv.FormatInt(n, 10) == src[i+1:] {
			if op.setRef(src[:i], int(n)) {
				return
			}
		}
	}
	op.src, op.srcFile, op.srcLine = src, 0, 0
}

// setRef sets the source to line n of file, as ref writes it, and reports
// whether the file and line fit the compact form; when they do not, the
// source is left as it was.
func (op *Op) setRef(file string, n int) bool {
	if n < 1 || n > math.MaxInt32 {
		return false
	}
	for i, f := range srcFiles {
		if i > 0 && f == file {
			op.src, op.srcFile, op.srcLine = "", uint8(i), int32(n)
			return true
		}
	}
	return false
}

// at sets the source to line n of file.
func (op *Op) at(file string, n int) {
	if !op.setRef(file, n) {
		op.src, op.srcFile, op.srcLine = ref(file, n), 0, 0
	}
}

// Rare holds the fields only a few kinds of operation set.
type Rare struct {
	ApprovalID string
	EffectID   string
	SignalID   string
	CallID     string
	Decision   string
	Forged     string
	SignalType string
	Posture    string
	RulesHash  string
	Down       int      // crash: the ticks the implementation stays down (D70)
	Calls      []string // draft: the model calls it cites
	Items      []Item   // state: its work items
	Repeat     bool     // approve: a redelivered line
	ModelFree  bool     // draft: origin "model-free"
}

// noRare is what R reads for an operation without rare fields; it is never
// written.
var noRare Rare

// R returns the operation's rare fields for reading; every field is zero
// when the operation has none.
func (op *Op) R() *Rare {
	if op.Rare == nil {
		return &noRare
	}
	return op.Rare
}

// W returns the operation's rare fields for writing, made on first use.
func (op *Op) W() *Rare {
	if op.Rare == nil {
		op.Rare = &Rare{}
	}
	return op.Rare
}

// opLine is an operation as history.jsonl writes it: every field flat, in
// this order.
type opLine struct {
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
	Repeat      bool     `json:"repeat,omitempty"`
	SignalType  string   `json:"signal_type,omitempty"`
	Posture     string   `json:"posture,omitempty"`
	RulesHash   string   `json:"rules_hash,omitempty"`
	Outcome     string   `json:"outcome,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Down        int      `json:"down,omitempty"`
	Calls       []string `json:"calls,omitempty"`
	ModelFree   bool     `json:"model_free,omitempty"`
	Items       []Item   `json:"items,omitempty"`
	Approximate bool     `json:"approximate,omitempty"`
	Src         string   `json:"src"`
}

func (op *Op) line() opLine {
	r := op.R()
	return opLine{Index: op.Index, Tick: op.Tick, Actor: op.Actor.String(), Type: op.Type.String(),
		MessageID: op.MessageID, ConversationID: op.ConversationID, WorkID: op.WorkID, DraftID: op.DraftID,
		ApprovalID: r.ApprovalID, EffectID: r.EffectID, SignalID: r.SignalID, AgentID: op.AgentID, CallID: r.CallID,
		ContentHash: op.ContentHash, Decision: r.Decision, Forged: r.Forged, Repeat: r.Repeat,
		SignalType: r.SignalType, Posture: r.Posture, RulesHash: r.RulesHash, Outcome: op.Outcome, Reason: op.Reason,
		Down: r.Down, Calls: r.Calls, ModelFree: r.ModelFree, Items: r.Items, Approximate: op.Approximate, Src: op.Src()}
}

func (l *opLine) op() (Op, error) {
	actor, ok := nameIndex(actorNames[:], l.Actor)
	if !ok {
		return Op{}, fmt.Errorf("history: unknown actor %q", l.Actor)
	}
	typ, ok := nameIndex(opTypeNames[:], l.Type)
	if !ok {
		return Op{}, fmt.Errorf("history: unknown operation type %q", l.Type)
	}
	op := Op{Index: l.Index, Tick: l.Tick, Actor: Actor(actor), Type: OpType(typ),
		MessageID: l.MessageID, ConversationID: l.ConversationID, WorkID: l.WorkID, DraftID: l.DraftID,
		AgentID: l.AgentID, ContentHash: l.ContentHash, Outcome: l.Outcome, Reason: l.Reason,
		Approximate: l.Approximate}
	op.SetSrc(l.Src)
	r := Rare{ApprovalID: l.ApprovalID, EffectID: l.EffectID, SignalID: l.SignalID, CallID: l.CallID,
		Decision: l.Decision, Forged: l.Forged, Repeat: l.Repeat, SignalType: l.SignalType, Posture: l.Posture,
		RulesHash: l.RulesHash, Down: l.Down, Calls: l.Calls, ModelFree: l.ModelFree, Items: l.Items}
	if !r.zero() {
		op.Rare = &r
	}
	return op, nil
}

func (r *Rare) zero() bool {
	return r.ApprovalID == "" && r.EffectID == "" && r.SignalID == "" && r.CallID == "" && r.Decision == "" &&
		r.Forged == "" && !r.Repeat && r.SignalType == "" && r.Posture == "" && r.RulesHash == "" && r.Down == 0 &&
		r.Calls == nil && !r.ModelFree && r.Items == nil
}

// MarshalJSON writes the operation as history.jsonl's line does.
func (op Op) MarshalJSON() ([]byte, error) { return json.Marshal(op.line()) }

// UnmarshalJSON reads an operation from history.jsonl's line.
func (op *Op) UnmarshalJSON(data []byte) error {
	var l opLine
	if err := json.Unmarshal(data, &l); err != nil {
		return err
	}
	o, err := l.op()
	if err != nil {
		return err
	}
	*op = o
	return nil
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
