package examples

import "github.com/amr-bench/amr/sim/sandbox"

// readBack is the record the parser of file reads from the line l laid
// out for rec, made without parsing it: the parser's answer for a line
// whose every member is a plain string or a whole number. It is nil
// whenever the parser could refuse the line (a required string empty, a
// tick out of range, an outcome it does not know, no call id) or reads
// another type than rec's: the caller then parses the line, so a line that
// does not read back is still found.
func (l *jsonLine) readBack(file string, rec any) any {
	switch r := rec.(type) {
	case sandbox.Draft:
		if file == sandbox.Drafts && draftReadsBack(r) {
			return r
		}
	case sandbox.Effect:
		if file == sandbox.Outbox && r.EffectID != "" && r.DraftID != "" && isTick(r.SentAt) {
			return r
		}
	case admissionLine, claimLine, resolutionLine, declinedLine, approvalLine:
		if file == sandbox.Audit {
			if a, ok := l.auditRec(); ok {
				return a
			}
		}
	}
	return nil
}

func draftReadsBack(d sandbox.Draft) bool {
	if d.DraftID == "" || d.WorkID == "" || d.ConversationID == "" || d.ContentHash == "" ||
		!isTick(d.DeclaredAt) || d.Origin.ModelFree || len(d.Origin.CallIDs) == 0 {
		return false
	}
	for _, id := range d.Origin.CallIDs {
		if id == "" {
			return false
		}
	}
	return true
}

// isTick reports whether n is a tick the parsers accept.
func isTick(n int) bool { return n >= 0 && n <= 1<<40 }

// auditRec is the responder's reading (auditRecOf) of sandbox.ParseAudit's
// record of the line: the envelope, the fields its event type requires,
// and for another event the id it names.
func (l *jsonLine) auditRec() (auditRec, bool) {
	event, ok := l.text("event", true)
	at, okAt := l.tick("at")
	if !ok || !okAt {
		return auditRec{}, false
	}
	r := auditRec{event: event, at: at}
	switch event {
	case sandbox.EventAdmission:
		r.workID, ok = l.text("work_id", true)
		r.id, okAt = l.text("message_id", true)
		ok = ok && okAt
		if _, okAt = l.text("rules_hash", true); !okAt {
			ok = false
		}
	case sandbox.EventClaim:
		ok = l.claimFields(&r)
	case sandbox.EventResolution:
		ok = l.resolutionFields(&r)
	default:
		// A member of another type reads as no id, as auditField has it.
		r.id, _ = l.text(idField(event), false)
	}
	return r, ok
}

func (l *jsonLine) claimFields(r *auditRec) bool {
	var okWork, okAgent, okReason bool
	r.workID, okWork = l.text("work_id", true)
	r.agentID, okAgent = l.text("agent_id", true)
	_, okReason = l.text("reason", false)
	r.outcome = l.oneOf("outcome", sandbox.ClaimClaimed, sandbox.ClaimWon, sandbox.ClaimStoodDown)
	return okWork && okAgent && okReason && r.outcome != ""
}

func (l *jsonLine) resolutionFields(r *auditRec) bool {
	var okWork, okReason bool
	r.workID, okWork = l.text("work_id", true)
	_, okReason = l.text("reason", false)
	r.outcome = l.oneOf("outcome", sandbox.OutcomeCompleted, sandbox.OutcomeAbandoned)
	return okWork && okReason && r.outcome != ""
}

// text is a string member, required non-empty when nonEmpty.
func (l *jsonLine) text(key string, nonEmpty bool) (string, bool) {
	for _, m := range l.members {
		if m.key == key {
			return m.text, m.str && (!nonEmpty || m.text != "")
		}
	}
	return "", false
}

func (l *jsonLine) tick(key string) (int, bool) {
	for _, m := range l.members {
		if m.key == key {
			return m.num, !m.str && isTick(m.num)
		}
	}
	return 0, false
}

// oneOf is a string member that must be one of allowed ("" when not).
func (l *jsonLine) oneOf(key string, allowed ...string) string {
	s, ok := l.text(key, true)
	if !ok {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	return ""
}
