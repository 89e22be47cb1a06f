package sim

import (
	"bytes"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// auditLook answers what the engine asks of audit.jsonl, a message's first
// admission and a work item's claims, without keeping the file's records: a
// run whose log goes to a file has its final files parsed afresh by the
// judge, so a parse kept for the oracles would only be held. At 10^5 burst
// messages the records and their copy of the file were 155 MB at the end of
// the play; what is kept here is the two maps the lookup keeps anyway, with
// an agent and a won flag per claim instead of a line's index.
//
// It reads the file as sandbox.LogIndex does: the complete lines since the
// last look, parsed by sandbox.ParseAudit a line at a time, and a start over
// from the whole content when the content no longer extends what was read.
// A last line without its newline is parsed at every look and never kept.
type auditLook struct {
	raw      []byte // the complete lines read so far, the caller's bytes
	admitted map[string]string
	claims   map[string]*[]claimAt
	agents   map[string]string
	tail     []sandbox.Line[sandbox.AuditRecord]
}

// claimAt is one claim record of a work item, in file order.
type claimAt struct {
	agent string
	won   bool
}

func (a *auditLook) update(data []byte) {
	if a.admitted == nil || len(data) < len(a.raw) || !sameStart(data, a.raw) {
		a.raw = nil
		a.admitted, a.claims, a.agents = map[string]string{}, map[string]*[]claimAt{}, map[string]string{}
	}
	rest := data[len(a.raw):]
	cut := bytes.LastIndexByte(rest, '\n') + 1
	if cut > 0 {
		lines, _ := sandbox.ParseAudit(rest[:cut])
		for _, l := range lines {
			a.add(l.Rec)
		}
		a.raw = data[:len(a.raw)+cut]
	}
	a.tail = nil
	if cut < len(rest) {
		a.tail, _ = sandbox.ParseAudit(rest[cut:])
	}
}

// add files one record. The parse's strings point into its copy of the
// lines, so what is kept is copied out, an agent's id once.
func (a *auditLook) add(r sandbox.AuditRecord) {
	switch r.Event {
	case sandbox.EventAdmission:
		if _, ok := a.admitted[r.MessageID]; !ok {
			a.admitted[strings.Clone(r.MessageID)] = strings.Clone(r.WorkID)
		}
	case sandbox.EventClaim:
		agent, ok := a.agents[r.AgentID]
		if !ok {
			agent = strings.Clone(r.AgentID)
			a.agents[agent] = agent
		}
		c := claimAt{agent: agent, won: r.Outcome == sandbox.ClaimWon}
		// A list behind a pointer is grown without storing to the map
		// again: a store replaces a string key with the one given, which
		// would point back into the parse.
		if cs, ok := a.claims[r.WorkID]; ok {
			*cs = append(*cs, c)
		} else {
			a.claims[strings.Clone(r.WorkID)] = &[]claimAt{c}
		}
	}
}

// workFor is the work id of a message's first admission.
func (a *auditLook) workFor(messageID string) string {
	if w, ok := a.admitted[messageID]; ok {
		return w
	}
	for _, l := range a.tail {
		if r := l.Rec; r.Event == sandbox.EventAdmission && r.MessageID == messageID {
			return r.WorkID
		}
	}
	return ""
}

// claimsOf are a work item's claims in file order, a last line without its
// newline included.
func (a *auditLook) claimsOf(workID string) []claimAt {
	var out []claimAt
	if cs, ok := a.claims[workID]; ok {
		out = *cs
	}
	for _, l := range a.tail {
		if r := l.Rec; r.Event == sandbox.EventClaim && r.WorkID == workID {
			out = append(out[:len(out):len(out)], claimAt{agent: r.AgentID, won: r.Outcome == sandbox.ClaimWon})
		}
	}
	return out
}

// sameStart reports whether data starts with raw, without a look when both
// start at the same address: the bytes read never change in place.
func sameStart(data, raw []byte) bool {
	if len(raw) == 0 || &data[0] == &raw[0] {
		return true
	}
	return bytes.Equal(data[:len(raw)], raw)
}
