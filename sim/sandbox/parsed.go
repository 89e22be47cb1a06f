package sandbox

import (
	"bytes"
	"crypto/sha256"
)

// Parsed is the parse of one run's JSONL files, shared by every reader of
// the run: the level checker, the history oracle and a campaign's coverage
// each asked for audit.jsonl, inbox.jsonl and the rest, and each parsed
// them again. A parse is a pure function of the bytes, so it is looked up by
// the bytes themselves: a reader that asks with other bytes (a log as it was
// appended rather than as it ended) gets those bytes parsed, never another
// reader's result, and a reader's answer is what the Parse function gives.
//
// What it returns is shared: a reader must not modify the lines or their
// records. A nil *Parsed parses every time. It is not safe for concurrent
// use; one run is judged by one goroutine.
type Parsed struct {
	inbox     memo[Message]
	drafts    memo[Draft]
	outbox    memo[Effect]
	signals   memo[SignalRecord]
	approvals memo[ApprovalRecord]
	audit     memo[AuditRecord]
	calls     memo[ModelCall]
}

// memo is the last parse of one file: what identifies the bytes it was made
// from, and its lines and errors. Up to memoCopyBytes that is a copy of
// them (a copy, so a caller reusing its buffer cannot make a stale parse
// look current); past it, their length and SHA-256, so a large run's logs
// are not held twice over (D194).
type memo[T any] struct {
	done  bool
	data  []byte
	size  int
	sum   [sha256.Size]byte
	lines []Line[T]
	errs  []LineError
}

// memoCopyBytes is the largest content a memo copies: a published or
// generated run's file is a few kilobytes, where a copy and a compare cost
// less than a digest.
const memoCopyBytes = 1 << 20

func (m *memo[T]) get(data []byte, parse func([]byte) ([]Line[T], []LineError)) ([]Line[T], []LineError) {
	if m.done && m.same(data) {
		return m.lines, m.errs
	}
	m.lines, m.errs = parse(data)
	m.remember(data)
	return m.lines, m.errs
}

// seed records lines and errs as the parse of data, which they must be
// exactly (what a LogIndex returns for data is).
func (m *memo[T]) seed(data []byte, lines []Line[T], errs []LineError) {
	m.lines, m.errs = lines, errs
	m.remember(data)
}

func (m *memo[T]) remember(data []byte) {
	m.done, m.size = true, len(data)
	if len(data) <= memoCopyBytes {
		m.data = append(m.data[:0], data...)
		return
	}
	m.data, m.sum = nil, sha256.Sum256(data)
}

func (m *memo[T]) same(data []byte) bool {
	if len(data) != m.size {
		return false
	}
	if len(data) <= memoCopyBytes {
		return bytes.Equal(m.data, data)
	}
	return sha256.Sum256(data) == m.sum
}

// SeedAudit gives p the parse of audit.jsonl's content data that a reader
// of the run already made: lines and errs must be ParseAudit(data), as a
// LogIndex's Update of data returns them. The engine indexes the log as it
// grows, so the oracles need not parse it again.
func (p *Parsed) SeedAudit(data []byte, lines []Line[AuditRecord], errs []LineError) {
	p.audit.seed(data, lines, errs)
}

// SeedDrafts is SeedAudit for drafts.jsonl.
func (p *Parsed) SeedDrafts(data []byte, lines []Line[Draft], errs []LineError) {
	p.drafts.seed(data, lines, errs)
}

// Inbox is ParseInbox of data.
func (p *Parsed) Inbox(data []byte) ([]Line[Message], []LineError) {
	if p == nil {
		return ParseInbox(data)
	}
	return p.inbox.get(data, ParseInbox)
}

// Drafts is ParseDrafts of data.
func (p *Parsed) Drafts(data []byte) ([]Line[Draft], []LineError) {
	if p == nil {
		return ParseDrafts(data)
	}
	return p.drafts.get(data, ParseDrafts)
}

// Outbox is ParseOutbox of data.
func (p *Parsed) Outbox(data []byte) ([]Line[Effect], []LineError) {
	if p == nil {
		return ParseOutbox(data)
	}
	return p.outbox.get(data, ParseOutbox)
}

// Signals is ParseSignals of data.
func (p *Parsed) Signals(data []byte) ([]Line[SignalRecord], []LineError) {
	if p == nil {
		return ParseSignals(data)
	}
	return p.signals.get(data, ParseSignals)
}

// Approvals is ParseApprovals of data.
func (p *Parsed) Approvals(data []byte) ([]Line[ApprovalRecord], []LineError) {
	if p == nil {
		return ParseApprovals(data)
	}
	return p.approvals.get(data, ParseApprovals)
}

// Audit is ParseAudit of data.
func (p *Parsed) Audit(data []byte) ([]Line[AuditRecord], []LineError) {
	if p == nil {
		return ParseAudit(data)
	}
	return p.audit.get(data, ParseAudit)
}

// ModelCalls is ParseModelCalls of data.
func (p *Parsed) ModelCalls(data []byte) ([]Line[ModelCall], []LineError) {
	if p == nil {
		return ParseModelCalls(data)
	}
	return p.calls.get(data, ParseModelCalls)
}
