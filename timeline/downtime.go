package timeline

import (
	"fmt"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Downtime is one stretch in which the implementation was down (a crash
// with a downtime, D70): what the harness fired meanwhile, which nothing
// read, and when the fresh instance first acted on each (D131).
type Downtime struct {
	// Crash is the tick of the crash, Down the downtime drawn for it.
	Crash int `json:"crash"`
	Down  int `json:"down"`
	// Restart is the tick the fresh instance started; nil when the horizon
	// came first.
	Restart *int      `json:"restart"`
	PiledUp []PiledUp `json:"piled_up"`
}

// PiledUp is one thing the harness fired while the implementation was down.
type PiledUp struct {
	Fired int `json:"fired"`
	// What is the harness verb: deliver, duplicate, approve, reject,
	// redeliver, signal, posture, rules.
	What string `json:"what"`
	ID   string `json:"id,omitempty"`
	// ActedAt is the tick at which the harness saw the implementation's
	// first record acting on it; nil when none did.
	ActedAt *int `json:"acted_at"`
	// ActedBy is that record as the timeline shows it, Ref where it is.
	ActedBy string `json:"acted_by,omitempty"`
	Ref     string `json:"ref,omitempty"`

	// how says which records act on it.
	how actsOn
}

// actsOn is what a record must hold to act on a piled-up item.
type actsOn struct {
	field, value string // a record naming the item: message_id, approval_id, signal_id
	sends        string // an outbox line of this draft (an approval's)
	resolves     string // an abandoning resolution of this work item (an escalation's)
	draft        string // a rejected draft, whose work item's abandoning resolution acts on it
	deadAgent    string // a claim on work this agent won, or naming it (an AGENT_DEATH)
	rulesHash    string // an admission decision under these rules
	admission    bool   // any admission decision (a posture change)
}

// record is what an implementation line says, for matching piled-up items.
type record struct {
	file    string
	event   string
	outcome string
	fields  map[string]string
}

// auditFields are the ids an audit record may name an item by.
var auditFields = []string{"message_id", "approval_id", "signal_id", "work_id", "agent_id", "draft_id", "rules_hash"}

func auditRecord(r sandbox.AuditRecord) record {
	rec := record{file: sandbox.Audit, event: r.Event, outcome: r.Outcome, fields: map[string]string{}}
	for _, k := range auditFields {
		if v, ok := field(r, k); ok {
			rec.fields[k] = v
		}
	}
	return rec
}

// outages follows the downtimes of one run as its log is read in order.
type outages struct {
	all     []*Downtime
	open    *Downtime
	pending []*PiledUp
	// drafts maps each declared draft to its work item, winners each work
	// item to the agent that last won it.
	drafts  map[string]string
	winners map[string]string
}

func newOutages(drafts map[string]string) *outages {
	return &outages{drafts: drafts, winners: map[string]string{}}
}

func (o *outages) crash(r sandbox.LogRecord) {
	if r.Down > 0 && o.open == nil {
		o.open = &Downtime{Crash: r.Tick, Down: r.Down, PiledUp: []PiledUp{}}
		o.all = append(o.all, o.open)
	}
}

func (o *outages) restart(tick int) {
	if o.open != nil {
		o.open.Restart = &tick
		o.open = nil
	}
}

// fired notes a harness record written while the implementation is down.
func (o *outages) fired(r sandbox.LogRecord, e Entry) {
	how, ok := o.actsOn(r)
	if o.open == nil || !ok {
		return
	}
	o.open.PiledUp = append(o.open.PiledUp, PiledUp{Fired: r.Tick, What: e.What, ID: r.ID, how: how})
}

// actsOn says which records act on a harness record; false for what no
// implementation reads (a jump, a crash).
func (o *outages) actsOn(r sandbox.LogRecord) (actsOn, bool) {
	switch r.Kind {
	case sandbox.LogDeliver, sandbox.LogDuplicate:
		return actsOn{field: "message_id", value: r.ID}, true
	case sandbox.LogApprove, sandbox.LogRedeliver:
		a := actsOn{field: "approval_id", value: r.ID}
		if r.Forge == "" && r.Kind == sandbox.LogApprove {
			if r.Decision == scenarios.DecisionReject {
				a.draft = r.DraftID
			} else {
				a.sends = r.DraftID
			}
		}
		return a, true
	case sandbox.LogSignal:
		a := actsOn{field: "signal_id", value: r.ID}
		switch r.SignalType {
		case sandbox.SignalOperatorEscalation:
			a.resolves = r.Target
		case sandbox.SignalAgentDeath:
			a.deadAgent = r.Target
		}
		return a, true
	case sandbox.LogPosture:
		return actsOn{admission: true}, true
	case sandbox.LogRules:
		return actsOn{rulesHash: r.RulesHash}, true
	}
	return actsOn{}, false
}

// wrote notes an implementation line the harness saw written at tick, in
// the order it saw them: the first that acts on a piled-up item is when the
// implementation read it.
func (o *outages) wrote(tick int, rec record, e Entry) {
	for _, d := range o.all {
		for i := range d.PiledUp {
			p := &d.PiledUp[i]
			if p.ActedAt == nil && o.acts(p.how, rec) {
				t := tick
				p.ActedAt, p.ActedBy, p.Ref = &t, e.What+" "+e.Text, e.Ref
			}
		}
	}
	if rec.event == sandbox.EventClaim && rec.outcome == sandbox.ClaimWon {
		o.winners[rec.fields["work_id"]] = rec.fields["agent_id"]
	}
}

func (o *outages) acts(a actsOn, rec record) bool {
	f := rec.fields
	switch {
	case a.field != "" && f[a.field] == a.value:
		return true
	case a.sends != "" && rec.file == sandbox.Outbox && f["draft_id"] == a.sends:
		return true
	case a.draft != "" && abandons(rec, o.drafts[a.draft]):
		return true
	case a.resolves != "" && abandons(rec, a.resolves):
		return true
	case a.deadAgent != "" && rec.event == sandbox.EventClaim &&
		(f["agent_id"] == a.deadAgent || o.winners[f["work_id"]] == a.deadAgent):
		return true
	case a.rulesHash != "" && f["message_id"] != "" && sameHash(f["rules_hash"], a.rulesHash):
		return true
	case a.admission && rec.file == sandbox.Audit && f["message_id"] != "" && f["rules_hash"] != "":
		return true
	}
	return false
}

// abandons reports whether a record abandons a work item: what a rejection
// and an escalation ask for. Completing the item instead is not acting on
// either.
func abandons(rec record, work string) bool {
	return work != "" && rec.event == sandbox.EventResolution && rec.outcome == sandbox.OutcomeAbandoned &&
		rec.fields["work_id"] == work
}

// sameHash compares a rules hash with or without its "sha256:" prefix.
func sameHash(a, b string) bool {
	return a != "" && strings.TrimPrefix(a, "sha256:") == strings.TrimPrefix(b, "sha256:")
}

// writeDowntimes renders each downtime: the crash, the restart, and for
// each item that piled up when it fired and when it was first acted on.
func (t *Timeline) writeDowntimes(b *strings.Builder, refs bool) {
	for i, d := range t.Downtimes {
		restart := "never restarted: the horizon came first"
		if d.Restart != nil {
			restart = fmt.Sprintf("restart at tick %d", *d.Restart)
		}
		n := ""
		if len(t.Downtimes) > 1 {
			n = fmt.Sprintf(" %d of %d", i+1, len(t.Downtimes))
		}
		fmt.Fprintf(b, "downtime%s: crash at tick %d, down %d tick(s), %s; %d item(s) piled up\n",
			n, d.Crash, d.Down, restart, len(d.PiledUp))
		if len(d.PiledUp) == 0 {
			continue
		}
		fmt.Fprintf(b, "%7s  %-9s  %-8s  %s\n", "fired", "what", "id", "first acted on")
		for _, p := range d.PiledUp {
			acted := "never: no record of the implementation acts on it"
			if p.ActedAt != nil {
				acted = fmt.Sprintf("tick %d, %d tick(s) after it fired: %s", *p.ActedAt, *p.ActedAt-p.Fired, p.ActedBy)
				if refs && p.Ref != "" {
					acted += "  [" + p.Ref + "]"
				}
			}
			id := p.ID
			if id == "" {
				id = "-"
			}
			fmt.Fprintf(b, "%7d  %-9s  %-8s  %s\n", p.Fired, p.What, id, acted)
		}
	}
}
