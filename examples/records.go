package examples

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/amr-bench/amr/sim/sandbox"
)

// The audit lines the responder writes. The required event types carry
// every field the spec requires (reason included, even when there is none to
// give); the free-form ones carry what a reader needs to follow a decision.

type admissionLine struct {
	Event     string `json:"event"`
	At        int    `json:"at"`
	WorkID    string `json:"work_id"`
	MessageID string `json:"message_id"`
	RulesHash string `json:"rules_hash"`
	RuleID    string `json:"rule_id"`
	Posture   string `json:"posture"`
}

type claimLine struct {
	Event   string `json:"event"`
	At      int    `json:"at"`
	WorkID  string `json:"work_id"`
	AgentID string `json:"agent_id"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

type resolutionLine struct {
	Event      string `json:"event"`
	At         int    `json:"at"`
	WorkID     string `json:"work_id"`
	Outcome    string `json:"outcome"`
	Reason     string `json:"reason"`
	ApprovalID string `json:"approval_id,omitempty"`
	SignalID   string `json:"signal_id,omitempty"`
}

type declinedLine struct {
	Event     string `json:"event"`
	At        int    `json:"at"`
	MessageID string `json:"message_id"`
	RulesHash string `json:"rules_hash"`
	Posture   string `json:"posture"`
}

type approvalLine struct {
	Event      string `json:"event"`
	At         int    `json:"at"`
	ApprovalID string `json:"approval_id"`
	DraftID    string `json:"draft_id"`
	WorkID     string `json:"work_id,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

func (w *world) claim(wk *work, agent, outcome, reason string) *write {
	return audit(claimLine{Event: sandbox.EventClaim, At: w.v.tick, WorkID: wk.id, AgentID: agent,
		Outcome: outcome, Reason: reason})
}

func (w *world) resolution(wk *work, outcome, reason string) resolutionLine {
	return resolutionLine{Event: sandbox.EventResolution, At: w.v.tick, WorkID: wk.id, Outcome: outcome, Reason: reason}
}

func (w *world) resolve(wk *work, outcome, reason string) *write {
	return audit(w.resolution(wk, outcome, reason))
}

func audit(rec any) *write { return &write{file: sandbox.Audit, rec: rec} }

func (w *world) effect(draftID, sentAs string) *write {
	return &write{file: sandbox.Outbox, rec: sandbox.Effect{EffectID: "e-" + draftID, DraftID: sentAs, SentAt: w.v.tick}}
}

// contentHash is the spec's blessed content_hash form.
func contentHash(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sha256:" + hex.EncodeToString(sum[:])
}
