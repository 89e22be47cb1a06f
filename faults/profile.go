package faults

import (
	"fmt"
	"sort"
	"strings"
)

// The fault vocabulary: every kind of event a generated bundle may carry
// beyond plain messages and their approvals (spec §2 and §4).
const (
	FollowUp        = "follow_up"
	AnchorCollision = "anchor_collision"
	SameSubject     = "same_subject"
	RuleEdges       = "rule_edges"
	Duplicate       = "duplicate"
	TickJump        = "tick_jump"
	Posture         = "posture"
	RulesChange     = "rules_change"
	LateApproval    = "late_approval"
	Redeliver       = "redeliver"
	Reject          = "reject"
	ForgeDangling   = "forge_dangling"
	ForgeHash       = "forge_hash"
	AgentDeath      = "agent_death"
	EscalateBefore  = "escalate_before"
	EscalateAfter   = "escalate_after"
	CrashBoundary   = "crash_boundary"
	CrashWrite      = "crash_write"
	Fleet           = "fleet"
	StaleApproval   = "stale_approval"
	Redecide        = "redecide"
	Boundaries      = "boundaries"
	SameBody        = "same_body"
)

// Kind describes one fault kind.
type Kind struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

var vocabulary = []Kind{
	{FollowUp, "follow-ups in a conversation, at short gaps and at long ones up to 50 ticks"},
	{AnchorCollision, "one customer writing in several conversations about different orders (anchors)"},
	{SameSubject, "messages with the same subject and vocabulary in different conversations"},
	{RuleEdges, "rules over sender history, thread length, sender and body; messages that do and do not match"},
	{Duplicate, "a message delivered again"},
	{TickJump, "the clock jumping ahead, often over a message, approval or crash"},
	{Posture, "posture changes mid-thread"},
	{RulesChange, "rules changes mid-thread"},
	{LateApproval, "approvals 60 to 130 ticks after the message"},
	{Redeliver, "an approval line delivered again"},
	{Reject, "drafts rejected instead of approved"},
	{ForgeDangling, "forged approvals naming a draft id that was never declared"},
	{ForgeHash, "forged approvals naming a real draft with a content hash that does not match"},
	{AgentDeath, "AGENT_DEATH of the agent holding a pending draft, or of any agent"},
	{EscalateBefore, "OPERATOR_ESCALATION before the approval"},
	{EscalateAfter, "OPERATOR_ESCALATION at the approval's tick: after the approval, before the send"},
	{CrashBoundary, "crashes at tick boundaries"},
	{CrashWrite, "crashes between two writes of the implementation"},
	{Fleet, "a fleet of two to four agents instead of one"},
	{StaleApproval, "a genuine approval of a work item's previous draft, arriving after the owner's death made it re-draft"},
	{Redecide, "a second, opposite decision on one work item (reject then approve, approve then reject), often with a crash between"},
	{Boundaries, "changes, crashes and messages placed one tick before, at and one tick past each allowance and budget"},
	{SameBody, "another message from the same sender with the same subject and body, in its conversation or another"},
	{Downtime, "a crash whose restart comes 3 to 40 ticks later, while the schedule keeps firing unread"},
	{StaleStamp, "approvals and signals that fire late stamped with the tick they were due"},
	{ModelFaults, "model calls failing: 429 with Retry-After, 500, 503, a reset connection, a timeout, a body cut short"},
	{TornWrite, "a crash in the middle of a write: half a line in a log, or half of state.json"},
	{ThresholdEdges, "rules over thread length and sender history whose thresholds messages hit exactly, one below and one above, with duplicates mixed in"},
	{CrashSend, "crashes right after a send, at an approval's tick: after the send, before its resolution record"},
}

// Vocabulary lists the fault kinds in a stable order.
func Vocabulary() []Kind { return append([]Kind(nil), vocabulary...) }

func kindNames() []string {
	out := make([]string, len(vocabulary))
	for i, k := range vocabulary {
		out[i] = k.Name
	}
	return out
}

// Rate is how often an enabled kind strikes, in thousandths: the chance
// that each place where it could happen gets it.
type Rate struct {
	Kind     string `json:"kind"`
	PerMille int    `json:"per_mille"`
}

// Profile is what one run draws before generating its bundle: which kinds
// are on and at which rates (swarm testing), how many conversations, and the
// size of the fleet. It is printed with a counterexample and kept beside it.
type Profile struct {
	Preset        string `json:"preset"`
	Conversations int    `json:"conversations"`
	Fleet         int    `json:"fleet"`
	// Rates lists the enabled kinds in vocabulary order.
	Rates []Rate `json:"rates"`
}

// Rate returns a kind's rate, 0 when it is off.
func (p Profile) Rate(kind string) int {
	for _, r := range p.Rates {
		if r.Kind == kind {
			return r.PerMille
		}
	}
	return 0
}

// On reports whether a kind is enabled.
func (p Profile) On(kind string) bool { return p.Rate(kind) > 0 }

// String renders the profile on one line, as a counterexample prints it.
func (p Profile) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "preset=%s conversations=%d fleet=%d", p.Preset, p.Conversations, p.Fleet)
	if len(p.Rates) == 0 {
		b.WriteString(" (no faults)")
	}
	for _, r := range p.Rates {
		fmt.Fprintf(&b, " %s=%d‰", r.Kind, r.PerMille)
	}
	return b.String()
}

// Preset is a named family of profiles. Each kind of Kinds is switched on
// with probability 1/2 (or always, when Swarm is false or the kind is in
// Always), at a rate drawn per run.
type Preset struct {
	Name    string   `json:"name"`
	Summary string   `json:"summary"`
	Kinds   []string `json:"kinds"`
	Always  []string `json:"always,omitempty"`
	Swarm   bool     `json:"swarm"`
}

var presets = []Preset{
	{Name: "default", Swarm: true, Kinds: kindNames(),
		Summary: "swarm over the whole vocabulary: each kind on or off per run, at a drawn rate"},
	{Name: "all", Swarm: false, Kinds: kindNames(),
		Summary: "every kind on in every run, at drawn rates"},
	{Name: "quiet", Swarm: false,
		Summary: "no faults: plain conversations and on-time approvals"},
	{Name: "crash", Swarm: true, Always: []string{CrashWrite},
		Kinds:   []string{FollowUp, Duplicate, LateApproval, Redeliver, CrashBoundary, CrashWrite, Fleet, Redecide, Boundaries, Downtime, TornWrite, CrashSend},
		Summary: "crashes at boundaries and between writes, with follow-ups, duplicates and late approvals"},
	{Name: "authority", Swarm: true,
		Kinds:   []string{LateApproval, Redeliver, Reject, ForgeDangling, ForgeHash, EscalateBefore, EscalateAfter, CrashWrite, Redecide, Boundaries},
		Summary: "approvals late, redelivered, rejected and forged; escalations before and after approval"},
	{Name: "fleet", Swarm: true, Always: []string{Fleet},
		Kinds:   []string{Fleet, AgentDeath, Duplicate, EscalateBefore, EscalateAfter, CrashBoundary, CrashWrite, StaleApproval, Boundaries},
		Summary: "fleets of two to four agents, agent deaths, escalations and crashes"},
	{Name: "identity", Swarm: true,
		Kinds:   []string{FollowUp, AnchorCollision, SameSubject, Duplicate, EscalateBefore, SameBody},
		Summary: "anchor collisions, same-subject conversations, follow-ups and duplicates"},
	{Name: "deployment", Swarm: true, Always: []string{Downtime},
		Kinds: []string{FollowUp, Duplicate, LateApproval, EscalateBefore, AgentDeath, CrashBoundary, CrashWrite, Fleet,
			Downtime, StaleStamp, ModelFaults, TornWrite, ThresholdEdges},
		Summary: "what real deployments have: downtime while the schedule fires, stale stamps, a failing model endpoint, rule thresholds at their edges"},
	{Name: "admission", Swarm: true,
		Kinds:   []string{FollowUp, RuleEdges, Posture, RulesChange, TickJump, Duplicate, CrashBoundary, Boundaries, SameBody, ThresholdEdges},
		Summary: "rules over history and posture, posture and rules changes, tick jumps"},
}

// DefaultPreset is the preset amr fuzz uses unless told otherwise.
const DefaultPreset = "default"

// Presets lists the presets in a stable order.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	for i, p := range presets {
		p.Kinds = append([]string(nil), p.Kinds...)
		p.Always = append([]string(nil), p.Always...)
		out[i] = p
	}
	return out
}

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	var out []string
	for _, p := range presets {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// CheckPreset returns an error naming the known presets unless name is
// one of them.
func CheckPreset(name string) error {
	if _, ok := lookupPreset(name); !ok {
		return unknownPreset(name)
	}
	return nil
}

func unknownPreset(name string) error {
	return fmt.Errorf("unknown profile preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
}

func lookupPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// Rates are drawn from this range: never so low that a kind is on in name
// only, never certain unless a preset says so.
const (
	minRate = 100
	maxRate = 900
)

// DrawProfile draws a run's profile under a preset.
func DrawProfile(src Source, preset string) (Profile, error) {
	ps, ok := lookupPreset(preset)
	if !ok {
		return Profile{}, unknownPreset(preset)
	}
	d := draw{src}
	p := Profile{Preset: ps.Name, Rates: []Rate{}}
	for _, k := range vocabulary {
		if !contains(ps.Kinds, k.Name) {
			continue
		}
		on := !ps.Swarm || contains(ps.Always, k.Name) || d.intn(2) == 1
		if on {
			p.Rates = append(p.Rates, Rate{Kind: k.Name, PerMille: d.between(minRate, maxRate)})
		}
	}
	p.Conversations = d.between(1, 4)
	p.Fleet = 1
	if p.On(Fleet) {
		p.Fleet = d.between(2, 4)
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
