package report

import (
	"fmt"
	"sort"

	"github.com/amr-bench/amr/sim/sandbox"
)

// Flow is the path of one message through the system: delivery, admission,
// claims, drafts, approvals, sends and resolution, each step with its tick
// and the file:line it is written at.
type Flow struct {
	MessageID string `json:"message_id"`
	WorkID    string `json:"work_id,omitempty"`
	Steps     []Step `json:"steps"`
}

// Step is one stage of a flow.
type Step struct {
	// Stage is deliver, admit, claim, draft, approve, reject, send or
	// resolve.
	Stage string `json:"stage"`
	Tick  int    `json:"tick"`
	Text  string `json:"text"`
	Ref   string `json:"ref"`
}

// buildFlows follows every delivered message through the sandbox files, by
// the ids the records carry: message → work item (admission) → claims and
// drafts of that work item → approvals and sends of those drafts →
// resolution. A work item whose admission names no delivered message still
// gets a flow of its own. Unparsable lines are left out: the timeline shows
// them as bad lines.
func buildFlows(files map[string][]byte) []Flow {
	inbox, _ := sandbox.ParseInbox(files[sandbox.Inbox])
	audit, _ := sandbox.ParseAudit(files[sandbox.Audit])
	drafts, _ := sandbox.ParseDrafts(files[sandbox.Drafts])
	approvals, _ := sandbox.ParseApprovals(files[sandbox.Approvals])
	outbox, _ := sandbox.ParseOutbox(files[sandbox.Outbox])

	ref := func(file string, n int) string { return fmt.Sprintf("%s:%d", file, n) }
	byWork := map[string][]Step{}
	workOf := map[string][]string{}
	for _, l := range audit {
		a := l.Rec
		switch a.Event {
		case sandbox.EventAdmission:
			workOf[a.MessageID] = appendOnce(workOf[a.MessageID], a.WorkID)
			byWork[a.WorkID] = append(byWork[a.WorkID], Step{Stage: "admit", Tick: a.At, Ref: ref(sandbox.Audit, l.N),
				Text: fmt.Sprintf("%s admitted as %s", a.MessageID, a.WorkID)})
		case sandbox.EventClaim:
			byWork[a.WorkID] = append(byWork[a.WorkID], Step{Stage: "claim", Tick: a.At, Ref: ref(sandbox.Audit, l.N),
				Text: fmt.Sprintf("%s: %s", a.AgentID, a.Outcome)})
		case sandbox.EventResolution:
			byWork[a.WorkID] = append(byWork[a.WorkID], Step{Stage: "resolve", Tick: a.At, Ref: ref(sandbox.Audit, l.N),
				Text: withReason(a.Outcome, a.Reason)})
		}
	}
	draftWork := map[string]string{}
	for _, l := range drafts {
		d := l.Rec
		draftWork[d.DraftID] = d.WorkID
		byWork[d.WorkID] = append(byWork[d.WorkID], Step{Stage: "draft", Tick: d.DeclaredAt, Ref: ref(sandbox.Drafts, l.N), Text: d.DraftID})
	}
	for _, l := range approvals {
		a := l.Rec
		w, ok := draftWork[a.DraftID]
		if !ok {
			continue
		}
		stage := "approve"
		if a.Decision != "approve" {
			stage = "reject"
		}
		byWork[w] = append(byWork[w], Step{Stage: stage, Tick: a.DecidedAt, Ref: ref(sandbox.Approvals, l.N),
			Text: fmt.Sprintf("%s of %s", a.ApprovalID, a.DraftID)})
	}
	for _, l := range outbox {
		e := l.Rec
		w, ok := draftWork[e.DraftID]
		if !ok {
			w = ""
		}
		byWork[w] = append(byWork[w], Step{Stage: "send", Tick: e.SentAt, Ref: ref(sandbox.Outbox, l.N),
			Text: fmt.Sprintf("%s of %s", e.EffectID, e.DraftID)})
	}

	var flows []Flow
	placed := map[string]bool{}
	seen := map[string]bool{}
	for _, l := range inbox {
		m := l.Rec
		deliver := Step{Stage: "deliver", Tick: m.At, Ref: ref(sandbox.Inbox, l.N), Text: m.Subject}
		if seen[m.ID] {
			// A duplicate delivery joins the message's first flow.
			for i := range flows {
				if flows[i].MessageID == m.ID {
					flows[i].Steps = insertStep(flows[i].Steps, deliver)
				}
			}
			continue
		}
		seen[m.ID] = true
		works := workOf[m.ID]
		if len(works) == 0 {
			flows = append(flows, Flow{MessageID: m.ID, Steps: []Step{deliver}})
			continue
		}
		for _, w := range works {
			flows = append(flows, Flow{MessageID: m.ID, WorkID: w, Steps: insertStep(sortedSteps(byWork[w]), deliver)})
			placed[w] = true
		}
	}
	var rest []string
	for w := range byWork {
		if !placed[w] {
			rest = append(rest, w)
		}
	}
	sort.Strings(rest)
	for _, w := range rest {
		flows = append(flows, Flow{WorkID: w, Steps: sortedSteps(byWork[w])})
	}
	if flows == nil {
		flows = []Flow{}
	}
	return flows
}

// stageOrder ranks the stages within a tick, in the order the spec's flow
// runs.
var stageOrder = map[string]int{"deliver": 0, "admit": 1, "claim": 2, "draft": 3, "approve": 4, "reject": 4, "send": 5, "resolve": 6}

func sortedSteps(steps []Step) []Step {
	out := append([]Step(nil), steps...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Tick != out[j].Tick {
			return out[i].Tick < out[j].Tick
		}
		return stageOrder[out[i].Stage] < stageOrder[out[j].Stage]
	})
	return out
}

func insertStep(steps []Step, s Step) []Step {
	return sortedSteps(append(append([]Step(nil), steps...), s))
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func withReason(s, reason string) string {
	if reason == "" {
		return s
	}
	return s + " (" + reason + ")"
}
