package sim

import "github.com/amr-bench/amr/sim/sandbox"

// lookup indexes the implementation's audit and drafts by work item and
// message as the engine's log indexes grow, so binding an approval or a
// signal looks at the lines that name its work item rather than at every
// line of the logs. It follows the log indexes' complete lines and starts
// over when they do; a last line without its newline is looked at each time.
type lookup struct {
	auditResets, draftResets int
	auditN, draftN           int
	admitted                 map[string]string // message id -> work id of its first admission
	claims                   map[string][]int  // work id -> its claim lines
	drafts                   map[string][]int  // work id -> its draft lines
}

func (k *lookup) syncAudit(x *sandbox.LogIndex[sandbox.AuditRecord], lines []sandbox.Line[sandbox.AuditRecord]) {
	if k.admitted == nil || k.auditResets != x.Resets() {
		k.auditResets, k.auditN = x.Resets(), 0
		k.admitted, k.claims = map[string]string{}, map[string][]int{}
	}
	for ; k.auditN < x.Kept(); k.auditN++ {
		r := lines[k.auditN].Rec
		switch r.Event {
		case sandbox.EventAdmission:
			if _, ok := k.admitted[r.MessageID]; !ok {
				k.admitted[r.MessageID] = r.WorkID
			}
		case sandbox.EventClaim:
			k.claims[r.WorkID] = append(k.claims[r.WorkID], k.auditN)
		}
	}
}

func (k *lookup) syncDrafts(x *sandbox.LogIndex[sandbox.Draft], lines []sandbox.Line[sandbox.Draft]) {
	if k.drafts == nil || k.draftResets != x.Resets() {
		k.draftResets, k.draftN = x.Resets(), 0
		k.drafts = map[string][]int{}
	}
	for ; k.draftN < x.Kept(); k.draftN++ {
		w := lines[k.draftN].Rec.WorkID
		k.drafts[w] = append(k.drafts[w], k.draftN)
	}
}

// draftLines are the indexes of a work item's draft lines in file order,
// a last line without its newline included.
func (k *lookup) draftLines(workID string, lines []sandbox.Line[sandbox.Draft]) []int {
	out := k.drafts[workID]
	for i := k.draftN; i < len(lines); i++ {
		if lines[i].Rec.WorkID == workID {
			out = append(out[:len(out):len(out)], i)
		}
	}
	return out
}

// claimLines are the indexes of a work item's claim lines in file order.
func (k *lookup) claimLines(workID string, lines []sandbox.Line[sandbox.AuditRecord]) []int {
	out := k.claims[workID]
	for i := k.auditN; i < len(lines); i++ {
		if r := lines[i].Rec; r.Event == sandbox.EventClaim && r.WorkID == workID {
			out = append(out[:len(out):len(out)], i)
		}
	}
	return out
}

// workFor is the work id of a message's first admission.
func (k *lookup) workFor(messageID string, lines []sandbox.Line[sandbox.AuditRecord]) string {
	if w, ok := k.admitted[messageID]; ok {
		return w
	}
	for i := k.auditN; i < len(lines); i++ {
		if r := lines[i].Rec; r.Event == sandbox.EventAdmission && r.MessageID == messageID {
			return r.WorkID
		}
	}
	return ""
}
