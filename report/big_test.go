package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// bigBundle is l0-respond grown to n messages, 100 delivered per tick, each
// approved the tick after it arrives.
func bigBundle(base *scenarios.Bundle, n int) *scenarios.Bundle {
	b := *base
	b.Meta.Name = fmt.Sprintf("l0-respond-%d", n)
	b.Meta.Horizon = n/100 + 20
	b.Inbox, b.Approvals = nil, nil
	m0, a0 := base.Inbox[0], base.Approvals[0]
	for i := 1; i <= n; i++ {
		m := m0
		m.ID, m.ConversationID, m.At = fmt.Sprintf("m%d", i), fmt.Sprintf("c%d", i), 1+(i-1)/100
		m.From = fmt.Sprintf("customer-%d@example.com", i)
		b.Inbox = append(b.Inbox, m)
		a := a0
		a.ID, a.At = fmt.Sprintf("ap%d", i), m.At+1
		a.Match.MessageID = m.ID
		b.Approvals = append(b.Approvals, a)
	}
	return &b
}

// streamer is a responder for large runs: the reference re-derives
// everything at every step, which is the obviously correct way and a
// quadratic one. This one reads only the lines appended since its last
// step, and answers every message the way the reference does at L0.
type streamer struct {
	inboxAt, approvalsAt int
	rulesHash            string
	drafts               map[string]streamDraft
	status               []workStatus
	index                map[string]int
}

type streamDraft struct{ work, hash string }

type workStatus struct {
	WorkID        string `json:"work_id"`
	Status        string `json:"status"`
	AssignedAgent string `json:"assigned_agent"`
}

func newStreamer() sandbox.Implementation {
	return &streamer{drafts: map[string]streamDraft{}, index: map[string]int{}}
}

const streamAgent = "agent-1"

func (s *streamer) Step(env *sandbox.Env) error {
	if s.rulesHash == "" {
		rules, err := env.Files.Read(sandbox.Rules)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(rules)
		s.rulesHash = hex.EncodeToString(sum[:])
	}
	tick, err := sandbox.ReadClock(env.Files)
	if err != nil {
		return err
	}
	wrote := false
	for _, line := range s.fresh(env, sandbox.Inbox, &s.inboxAt) {
		var m sandbox.Message
		if json.Unmarshal(line, &m) != nil || s.index[m.ID] > 0 {
			continue
		}
		if err := s.answer(env, tick, m); err != nil {
			return err
		}
		wrote = true
	}
	for _, line := range s.fresh(env, sandbox.Approvals, &s.approvalsAt) {
		var a sandbox.ApprovalRecord
		if json.Unmarshal(line, &a) != nil {
			continue
		}
		d, ok := s.drafts[a.DraftID]
		if !ok || a.Decision != "approve" || a.ContentHash != d.hash || s.status[s.index[d.work]-1].Status != "drafted" {
			continue
		}
		if err := s.send(env, tick, a, d); err != nil {
			return err
		}
		wrote = true
	}
	if !wrote {
		return nil
	}
	return s.writeState(env)
}

// fresh returns the complete lines appended to a log since the last call.
func (s *streamer) fresh(env *sandbox.Env, name string, at *int) [][]byte {
	data, err := env.Files.Read(name)
	if err != nil || len(data) <= *at {
		return nil
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	if end <= *at {
		return nil
	}
	lines := bytes.Split(bytes.TrimSuffix(data[*at:end], []byte("\n")), []byte("\n"))
	*at = end
	return lines
}

func (s *streamer) answer(env *sandbox.Env, tick int, m sandbox.Message) error {
	work := "w-" + m.ID
	draftID := "d-" + m.ID + "." + streamAgent
	c, err := env.Model.Complete("Draft a reply to this support conversation.\n\nSubject: " + m.Subject + "\n" + m.Body + "\n")
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(c.Text))
	hash := "sha256:" + hex.EncodeToString(sum[:])
	records := []struct {
		file string
		rec  any
	}{
		{sandbox.Audit, map[string]any{"event": "admission", "at": tick, "work_id": work, "message_id": m.ID, "rules_hash": s.rulesHash, "rule_id": "support", "posture": "normal"}},
		{sandbox.Audit, map[string]any{"event": "claim", "at": tick, "work_id": work, "agent_id": streamAgent, "outcome": "won", "reason": "sole_agent"}},
		{sandbox.Drafts, map[string]any{"draft_id": draftID, "work_id": work, "conversation_id": m.ConversationID, "body": c.Text, "content_hash": hash, "declared_at": tick, "origin": []string{c.CallID}}},
	}
	for _, r := range records {
		if err := appendJSON(env, r.file, r.rec); err != nil {
			return err
		}
	}
	s.drafts[draftID] = streamDraft{work: work, hash: hash}
	s.status = append(s.status, workStatus{WorkID: work, Status: "drafted", AssignedAgent: streamAgent})
	s.index[m.ID], s.index[work] = len(s.status), len(s.status)
	return nil
}

func (s *streamer) send(env *sandbox.Env, tick int, a sandbox.ApprovalRecord, d streamDraft) error {
	if err := appendJSON(env, sandbox.Audit, map[string]any{"event": "approval_accepted", "at": tick, "approval_id": a.ApprovalID, "draft_id": a.DraftID, "work_id": d.work}); err != nil {
		return err
	}
	if err := appendJSON(env, sandbox.Outbox, map[string]any{"effect_id": "e-" + a.DraftID, "draft_id": a.DraftID, "sent_at": tick}); err != nil {
		return err
	}
	if err := appendJSON(env, sandbox.Audit, map[string]any{"event": "resolution", "at": tick, "work_id": d.work, "outcome": "completed", "reason": "sent", "approval_id": a.ApprovalID}); err != nil {
		return err
	}
	s.status[s.index[d.work]-1].Status = "completed"
	return nil
}

func (s *streamer) writeState(env *sandbox.Env) error {
	type assignment struct {
		WorkID  string `json:"work_id"`
		AgentID string `json:"agent_id"`
	}
	var assignments []assignment
	for _, w := range s.status {
		if w.Status != "completed" {
			assignments = append(assignments, assignment{w.WorkID, streamAgent})
		}
	}
	if assignments == nil {
		assignments = []assignment{}
	}
	data, err := json.Marshal(map[string]any{"work_items": s.status, "agents": []map[string]any{{"id": streamAgent, "alive": true}}, "assignments": assignments})
	if err != nil {
		return err
	}
	return env.Files.Write(sandbox.State, data)
}

func appendJSON(env *sandbox.Env, file string, rec any) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return env.Files.Append(file, line)
}
