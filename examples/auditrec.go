package examples

import "github.com/amr-bench/amr/sim/sandbox"

// auditRec is what the responder reads of one audit line, the fields of
// sandbox.AuditRecord it looks at and the one free-form id it follows,
// decoded once. An AuditRecord keeps its whole line for its free-form
// fields; the responder keeps every record of the log for as long as an
// instance lasts, and at 10^5 messages those lines and the fields it never
// reads were the larger part of what it held.
type auditRec struct {
	event, workID, agentID, outcome string
	// id is the message id of an admission (its required field) and of a
	// declined record, the draft id of an approval_accepted one, and the
	// approval id of any other event the required ones do not cover (the
	// events that record an approval line as ignored or received).
	id string
	at int
}

// idField is the member a free-form audit event's id is read from.
func idField(event string) string {
	switch event {
	case eventDeclined:
		return "message_id"
	case eventApprovalAccepted:
		return "draft_id"
	}
	return "approval_id"
}

// requiredEvent reports whether the parser reads the event's fields as
// required ones.
func requiredEvent(event string) bool {
	return event == sandbox.EventAdmission || event == sandbox.EventClaim || event == sandbox.EventResolution
}

// auditRecOf is the responder's reading of a parsed audit record.
func auditRecOf(r sandbox.AuditRecord) auditRec {
	a := auditRec{event: r.Event, workID: r.WorkID, agentID: r.AgentID, outcome: r.Outcome, at: r.At}
	switch {
	case r.Event == sandbox.EventAdmission:
		a.id = r.MessageID
	case !requiredEvent(r.Event):
		a.id = auditField(r, idField(r.Event))
	}
	return a
}

// parseAuditRecs appends the records of audit.jsonl's complete lines in
// data to recs; lines the parser refuses are skipped.
func parseAuditRecs(recs []auditRec, data []byte) []auditRec {
	lines, _ := sandbox.ParseAudit(data)
	for _, l := range lines {
		recs = append(recs, auditRecOf(l.Rec))
	}
	return recs
}
