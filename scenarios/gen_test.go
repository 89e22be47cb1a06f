package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"pgregory.net/rapid"
)

// genBundle draws valid bundles: every id unique, every reference resolved,
// every tick on the timeline, tick jumps apart, and a catch-all rule in every
// rule set so any message can carry an approval. Rules also carry unknown
// condition keys, which must survive every round trip.
func genBundle() *rapid.Generator[*Bundle] {
	return rapid.Custom(func(t *rapid.T) *Bundle {
		horizon := rapid.IntRange(1, 200).Draw(t, "horizon")
		level := rapid.IntRange(0, MaxLevel).Draw(t, "top_level")
		b := &Bundle{
			Format: Format,
			Meta: Meta{
				Name:        "l" + strconv.Itoa(level) + "-" + rapid.StringMatching(`[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}`).Draw(t, "name"),
				Version:     rapid.IntRange(1, 5).Draw(t, "version"),
				Description: rapid.String().Draw(t, "description"),
				TopLevel:    level,
				Horizon:     horizon,
				Origin:      genOrigin().Draw(t, "origin"),
			},
			Fleet: genIDs("agent-", 1, 4).Draw(t, "fleet"),
			Mode:  Mode{Posture: rapid.SampledFrom(Postures).Draw(t, "posture"), ChangedAt: rapid.IntRange(0, horizon).Draw(t, "changed_at")},
			Rules: genRules("r").Draw(t, "rules"),
		}
		anchors := genIDs("ORD-", 0, 3).Draw(t, "anchors")
		b.Model = Model{Anchors: anchors, Reply: "About {{anchor}}: " + rapid.String().Draw(t, "reply"), ReplyNoAnchor: "x" + rapid.String().Draw(t, "reply_no_anchor")}

		tick := rapid.IntRange(0, horizon)
		for i := range rapid.IntRange(0, 6).Draw(t, "messages") {
			b.Inbox = append(b.Inbox, Delivery{
				ID:             "m" + strconv.Itoa(i+1),
				ConversationID: rapid.SampledFrom([]string{"c1", "c2", "c3"}).Draw(t, "conversation"),
				From:           rapid.SampledFrom([]string{"ann@example.com", "bob@example.com", "vip@example.com"}).Draw(t, "from"),
				Subject:        rapid.String().Draw(t, "subject"),
				Body:           rapid.String().Draw(t, "body"),
				At:             tick.Draw(t, "at"),
			})
		}
		if len(b.Inbox) > 0 {
			for i := range rapid.IntRange(0, 4).Draw(t, "approvals") {
				b.Approvals = append(b.Approvals, Approval{
					ID:       "a" + strconv.Itoa(i+1),
					At:       tick.Draw(t, "at"),
					Match:    genMatch(b, false).Draw(t, "match"),
					Decision: rapid.SampledFrom([]string{DecisionApprove, DecisionReject}).Draw(t, "decision"),
					Forge:    rapid.SampledFrom([]string{"", "", ForgeDangling, ForgeHashMismatch}).Draw(t, "forge"),
				})
			}
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "signals") {
			typ := rapid.SampledFrom([]string{AgentDeath, OperatorEscalation}).Draw(t, "signal_type")
			target := genMatch(b, true).Draw(t, "target")
			if typ == AgentDeath && target.WorkID != "" {
				target = Match{AgentID: b.Fleet[0]}
			}
			if typ == OperatorEscalation && target.AgentID != "" {
				target = Match{WorkID: "w-" + target.AgentID}
			}
			b.Signals = append(b.Signals, Signal{ID: "s" + strconv.Itoa(i+1), At: tick.Draw(t, "at"), Type: typ, Target: target})
		}
		b.RulesJSON = genRulesText(b.Rules).Draw(t, "rules_json")
		b.Faults = genFaults(b).Draw(t, "faults")
		b.Normalize()
		return b
	})
}

func genOrigin() *rapid.Generator[*Origin] {
	return rapid.Custom(func(t *rapid.T) *Origin {
		if !rapid.Bool().Draw(t, "has_origin") {
			return nil
		}
		o := &Origin{Kind: rapid.SampledFrom([]string{"hand-written", "generated", "shrunk", "reserve"}).Draw(t, "kind")}
		if rapid.Bool().Draw(t, "seeded") {
			o.CampaignSeed = strconv.FormatUint(rapid.Uint64().Draw(t, "campaign_seed"), 10)
			o.Run = strconv.Itoa(rapid.IntRange(1, 1000).Draw(t, "run"))
			o.Impl = "reference"
			o.Invariant = "L2.approval-binding"
		}
		return o
	})
}

// genIDs draws between lo and hi distinct ids with the prefix.
func genIDs(prefix string, lo, hi int) *rapid.Generator[[]string] {
	return rapid.Custom(func(t *rapid.T) []string {
		n := rapid.IntRange(lo, hi).Draw(t, "n")
		ids := make([]string, n)
		for i := range ids {
			ids[i] = prefix + strconv.Itoa(i+1)
		}
		return ids
	})
}

// unknownValues are JSON values for unknown condition keys, compact as the
// loader keeps them; the nested ones prove reformatting cannot change them.
var unknownValues = []string{`"red"`, `7`, `true`, `null`, `[1,"two",{"three":3}]`, `{"a":{"b":[]}}`, `"<&>"`}

// genRules draws a valid rule set: ids prefixed and unique, overrides
// naming earlier rules, sane bounds, and a final catch-all nobody overrides.
func genRules(prefix string) *rapid.Generator[[]Rule] {
	return rapid.Custom(func(t *rapid.T) []Rule {
		var rules []Rule
		for i := range rapid.IntRange(0, 4).Draw(t, "rules") {
			r := Rule{ID: prefix + strconv.Itoa(i+1), Admit: rapid.Bool().Draw(t, "admit"), When: genConditions().Draw(t, "when")}
			for _, prev := range rules {
				if rapid.IntRange(0, 3).Draw(t, "override") == 0 {
					r.Overrides = append(r.Overrides, prev.ID)
				}
			}
			rules = append(rules, r)
		}
		return append(rules, Rule{ID: prefix + "-all", Admit: true})
	})
}

func genConditions() *rapid.Generator[Conditions] {
	words := []string{"order", "Refund", "late", "ORD-1"}
	return rapid.Custom(func(t *rapid.T) Conditions {
		var c Conditions
		if rapid.Bool().Draw(t, "subject") {
			c.SubjectContains = ptr(rapid.SampledFrom(words).Draw(t, "subject_contains"))
		}
		if rapid.Bool().Draw(t, "body") {
			c.BodyContains = ptr(rapid.SampledFrom(words).Draw(t, "body_contains"))
		}
		if rapid.Bool().Draw(t, "from") {
			from := rapid.SliceOfDistinct(rapid.SampledFrom([]string{"ann@example.com", "vip@example.com"}), rapid.ID[string]).Draw(t, "from_in")
			c.FromIn = &from
		}
		if rapid.Bool().Draw(t, "posture") {
			c.Posture = ptr(rapid.SampledFrom(Postures).Draw(t, "posture_is"))
		}
		c.ThreadLengthMin, c.ThreadLengthMax = genBounds(t, "thread_length")
		c.SenderHistoryMin, c.SenderHistoryMax = genBounds(t, "sender_history")
		for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{"x_colour", "weekday", "Subject_Contains"}), rapid.ID[string]).Draw(t, "unknown") {
			if c.Unknown == nil {
				c.Unknown = map[string]json.RawMessage{}
			}
			c.Unknown[k] = json.RawMessage(rapid.SampledFrom(unknownValues).Draw(t, "value"))
		}
		return c
	})
}

func genBounds(t *rapid.T, name string) (*int, *int) {
	var lo, hi *int
	if rapid.Bool().Draw(t, name+"_has_min") {
		lo = ptr(rapid.IntRange(0, 4).Draw(t, name+"_min"))
	}
	if rapid.Bool().Draw(t, name+"_has_max") {
		from := 0
		if lo != nil {
			from = *lo
		}
		hi = ptr(rapid.IntRange(from, from+4).Draw(t, name+"_max"))
	}
	return lo, hi
}

// genRulesText draws a rules.json text for the rules, as people and other
// tools write them: none (the default bytes), compact on one line with or
// without a newline, indented with tabs, or with every object's keys sorted
// (another key order than amr's).
func genRulesText(rules []Rule) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		compact, err := json.Marshal(rules)
		if err != nil {
			panic(err)
		}
		var generic any
		dec := json.NewDecoder(bytes.NewReader(compact))
		dec.UseNumber()
		if err := dec.Decode(&generic); err != nil {
			panic(err)
		}
		sorted, err := json.Marshal(generic)
		if err != nil {
			panic(err)
		}
		var tabs bytes.Buffer
		if err := json.Indent(&tabs, compact, "", "\t"); err != nil {
			panic(err)
		}
		texts := []string{"", string(compact), string(compact) + "\n", tabs.String() + "\n", string(sorted) + "\r\n"}
		return rapid.SampledFrom(texts).Draw(t, "text")
	})
}

// genMatch draws a reference to a message of the bundle or a work id; with
// agents, it may also name an agent of the fleet.
func genMatch(b *Bundle, agents bool) *rapid.Generator[Match] {
	return rapid.Custom(func(t *rapid.T) Match {
		kinds := []string{"work"}
		if len(b.Inbox) > 0 {
			kinds = append(kinds, "message", "message")
		}
		if agents {
			kinds = append(kinds, "agent")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "match_kind") {
		case "message":
			return Match{MessageID: rapid.SampledFrom(b.Inbox).Draw(t, "message").ID}
		case "agent":
			return Match{AgentID: rapid.SampledFrom(b.Fleet).Draw(t, "agent")}
		}
		return Match{WorkID: "w-" + strconv.Itoa(rapid.IntRange(1, 9).Draw(t, "work"))}
	})
}

// genFaults draws faults of every kind, each valid for b. Tick jumps are
// laid out left to right so none lands inside another.
func genFaults(b *Bundle) *rapid.Generator[[]Fault] {
	return rapid.Custom(func(t *rapid.T) []Fault {
		h := b.Meta.Horizon
		var faults []Fault
		jumpFrom := 0
		for i := range rapid.IntRange(0, 6).Draw(t, "faults") {
			f := Fault{Kind: rapid.SampledFrom(FaultKinds).Draw(t, "kind")}
			switch f.Kind {
			case FaultCrash:
				f.At = rapid.IntRange(0, h).Draw(t, "at")
				f.AfterWrites = rapid.IntRange(0, 3).Draw(t, "after_writes")
				if f.AfterWrites > 0 && rapid.Bool().Draw(t, "to_one_log") {
					f.WritesTo = rapid.SampledFrom(CrashTargets).Draw(t, "writes_to")
				}
			case FaultDuplicate:
				if len(b.Inbox) == 0 {
					continue
				}
				m := rapid.SampledFrom(b.Inbox).Draw(t, "message")
				f.MessageID, f.At = m.ID, rapid.IntRange(m.At, h).Draw(t, "at")
			case FaultRedeliver:
				if len(b.Approvals) == 0 {
					continue
				}
				a := rapid.SampledFrom(b.Approvals).Draw(t, "approval")
				f.ApprovalID, f.At = a.ID, rapid.IntRange(a.At, h).Draw(t, "at")
			case FaultTickJump:
				if jumpFrom+2 > h {
					continue
				}
				f.At = rapid.IntRange(jumpFrom, h-2).Draw(t, "at")
				f.By = rapid.IntRange(2, h-f.At).Draw(t, "by")
				jumpFrom = f.At + f.By
			case FaultPosture:
				f.At = rapid.IntRange(0, h).Draw(t, "at")
				f.Posture = rapid.SampledFrom(Postures).Draw(t, "posture")
			case FaultRules:
				f.At = rapid.IntRange(0, h).Draw(t, "at")
				f.Rules = genRules(fmt.Sprintf("f%d-", i)).Draw(t, "rules")
				f.RulesJSON = genRulesText(f.Rules).Draw(t, "rules_json")
			}
			faults = append(faults, f)
		}
		return faults
	})
}
