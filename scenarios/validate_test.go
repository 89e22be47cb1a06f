package scenarios

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateBaseBundleIsClean(t *testing.T) {
	assert.Empty(t, Validate(baseBundle(), nil))
}

func TestValidatePublishedBundles(t *testing.T) {
	pubs, err := Published()
	require.NoError(t, err)
	require.NotEmpty(t, pubs)
	for _, p := range pubs {
		t.Run(p.Name, func(t *testing.T) {
			assert.Empty(t, Validate(p.Bundle, p.Source).Errors())
		})
	}
}

func TestValidateNeverPanicsOnNil(t *testing.T) {
	ps := Validate(nil, nil)
	require.Len(t, ps, 1)
	assert.Equal(t, "bundle", ps[0].Pos.File)
	assert.NotEmpty(t, Validate(&Bundle{}, nil).Errors())
}

// TestValidateChecks mutates the clean base bundle once per case and expects
// exactly the listed problems, so a check that fires too widely fails too.
func TestValidateChecks(t *testing.T) {
	type want struct {
		field   string
		msg     string
		warning bool
	}
	e := func(field, msg string) want { return want{field: field, msg: msg} }
	w := func(field, msg string) want { return want{field: field, msg: msg, warning: true} }
	tests := []struct {
		name   string
		mutate func(b *Bundle)
		want   []want
	}{
		// meta
		{"wrong format", func(b *Bundle) { b.Format = "amr.bundle/v0" }, []want{e("format", "is not")}},
		{"empty name", func(b *Bundle) { b.Meta.Name = "" }, []want{e("meta.name", "must not be empty")}},
		{"name not kebab", func(b *Bundle) { b.Meta.Name = "L3_Base" }, []want{e("meta.name", "kebab-case")}},
		{"name trailing hyphen", func(b *Bundle) { b.Meta.Name = "l3-base-" }, []want{e("meta.name", "kebab-case")}},
		{"name without level", func(b *Bundle) { b.Meta.Name = "base" }, []want{w("meta.name", "l3-<name>")}},
		{"name with other level", func(b *Bundle) { b.Meta.Name = "l2-base" }, []want{w("meta.name", "top_level 3")}},
		{"name is only the prefix", func(b *Bundle) { b.Meta.Name = "l3" }, []want{w("meta.name", "l3-<name>")}},
		{"version zero", func(b *Bundle) { b.Meta.Version = 0 }, []want{e("meta.version", "at least 1")}},
		{"top level too high", func(b *Bundle) { b.Meta.TopLevel, b.Meta.Name = 7, "l7-base" }, []want{e("meta.top_level", "outside 0..6")}},
		{"top level negative", func(b *Bundle) { b.Meta.TopLevel = -1 }, []want{e("meta.top_level", "outside 0..6"), w("meta.name", "")}},
		{"horizon too long", func(b *Bundle) { b.Meta.Horizon = MaxHorizon + 1 }, []want{e("meta.horizon", "outside 1..100000")}},
		{"origin without kind", func(b *Bundle) { b.Meta.Origin = &Origin{Impl: "reference"} }, []want{e("meta.origin.kind", "must not be empty")}},
		// fleet
		{"no fleet", func(b *Bundle) { b.Fleet = nil }, []want{e("fleet", "at least one agent"), e("signals[2].target.agent_id", "not in the fleet")}},
		{"duplicate agent", func(b *Bundle) { b.Fleet = append(b.Fleet, "agent-1") }, []want{e("fleet[2]", "duplicate id")}},
		{"empty agent", func(b *Bundle) { b.Fleet = append(b.Fleet, "") }, []want{e("fleet[2]", "must not be empty")}},
		// mode
		{"bad posture", func(b *Bundle) { b.Mode.Posture = "party" }, []want{e("mode.posture", "is not one of")}},
		{"negative changed_at", func(b *Bundle) { b.Mode.ChangedAt = -1 }, []want{e("mode.changed_at", "negative")}},
		// rules
		{"empty rule id", func(b *Bundle) { b.Rules[1].ID = "" }, []want{e("rules[1].id", "must not be empty")}},
		{"duplicate rule id", func(b *Bundle) { b.Rules[1].ID = "orders" }, []want{e("rules[1].id", "duplicate id")}},
		{"override of unknown rule", func(b *Bundle) { b.Rules[2].Overrides = []string{"orders", "ghost"} }, []want{e("rules[2].overrides[1]", `"ghost"`)}},
		{"override of a rule in another set", func(b *Bundle) { b.Faults[3].Rules[0].Overrides = []string{"orders"} }, []want{e("faults[3].rules[0].overrides[0]", `"orders"`)}},
		{"self override", func(b *Bundle) { b.Rules[2].Overrides = append(b.Rules[2].Overrides, "gate") }, []want{w("rules[2].overrides[1]", "overrides itself")}},
		{"bad posture condition", func(b *Bundle) { b.Rules[2].When.Posture = ptr("party") }, []want{e("rules[2].when.posture", "is not one of")}},
		{"thread min above max", func(b *Bundle) { b.Rules[0].When.ThreadLengthMin, b.Rules[0].When.ThreadLengthMax = ptr(3), ptr(2) }, []want{e("rules[0].when.thread_length_max", "below thread_length_min")}},
		{"sender history min above max", func(b *Bundle) { b.Rules[0].When.SenderHistoryMin, b.Rules[0].When.SenderHistoryMax = ptr(1), ptr(0) }, []want{e("rules[0].when.sender_history_max", "below")}},
		{"negative sender history", func(b *Bundle) { b.Rules[0].When.SenderHistoryMin = ptr(-1) }, []want{e("rules[0].when.sender_history_min", "negative")}},
		{"negative thread length max", func(b *Bundle) { b.Rules[0].When.ThreadLengthMax = ptr(-2) }, []want{e("rules[0].when.thread_length_max", "negative")}},
		{"unknown condition", func(b *Bundle) {
			b.Rules[0].When.Unknown = map[string]json.RawMessage{"x_colour": json.RawMessage(`"red"`)}
		}, []want{w("rules[0].when.x_colour", "never matches")}},
		{"empty subject_contains", func(b *Bundle) { b.Rules[0].When.SubjectContains = ptr("") }, []want{e("rules[0].when.subject_contains", "must not be empty")}},
		{"empty body_contains", func(b *Bundle) { b.Rules[0].When.BodyContains = ptr("") }, []want{e("rules[0].when.body_contains", "must not be empty")}},
		{"empty from_in list", func(b *Bundle) { b.Rules[1].When.FromIn = &[]string{} }, []want{w("rules[1].when.from_in", "never matches")}},
		{"empty from_in address", func(b *Bundle) { b.Rules[1].When.FromIn = &[]string{"vip@example.com", ""} }, []want{e("rules[1].when.from_in[1]", "must not be empty")}},
		{"rules fault rule without id", func(b *Bundle) { b.Faults[3].Rules[0].ID = "" }, []want{e("faults[3].rules[0].id", "must not be empty")}},
		{"rules fault bad condition", func(b *Bundle) { b.Faults[3].Rules[0].When.Posture = ptr("x") }, []want{e("faults[3].rules[0].when.posture", "is not one of")}},
		{"rules fault without rules", func(b *Bundle) { b.Faults[3].Rules = nil }, []want{e("faults[3].rules", "at least one rule")}},
		{"rules fault with empty set", func(b *Bundle) { b.Faults[3].Rules = []Rule{} }, []want{e("faults[3].rules", "at least one rule")}},
		// model
		{"empty anchor", func(b *Bundle) { b.Model.Anchors[0] = "" }, []want{e("model.anchors[0]", "must not be empty")}},
		{"duplicate anchor", func(b *Bundle) { b.Model.Anchors[1] = "ORD-1" }, []want{e("model.anchors[1]", "duplicate id")}},
		{"empty reply", func(b *Bundle) { b.Model.Reply = "" }, []want{e("model.reply", "must not be empty")}},
		{"empty reply_no_anchor", func(b *Bundle) { b.Model.ReplyNoAnchor = "" }, []want{e("model.reply_no_anchor", "must not be empty")}},
		{"reply without anchor", func(b *Bundle) { b.Model.Reply = "It ships today." }, []want{w("model.reply", "{{anchor}}")}},
		{"unknown placeholder", func(b *Bundle) { b.Model.Reply = "{{anchor}} for {{customer}}" }, []want{w("model.reply", "{{customer}} is not a placeholder")}},
		{"reply rule without id", func(b *Bundle) { b.Model.Replies = []ReplyRule{{Reply: "x"}} }, []want{e("model.replies[0].id", "must not be empty")}},
		{"reply rules with one id", func(b *Bundle) {
			b.Model.Replies = []ReplyRule{{ID: "r", Reply: "x"}, {ID: "r", Reply: "y"}}
		}, []want{e("model.replies[1].id", "duplicate id")}},
		{"reply rule with nothing to say", func(b *Bundle) { b.Model.Replies = []ReplyRule{{ID: "r"}} }, []want{e("model.replies[0]", "needs reply, json or tool")}},
		{"reply rule format", func(b *Bundle) {
			b.Model.Replies = []ReplyRule{{ID: "r", Reply: "x", When: ReplyWhen{Format: "yaml"}}}
		}, []want{e("model.replies[0].when.format", `unknown format "yaml"`)}},
		{"reply rule json not an object", func(b *Bundle) {
			b.Model.Replies = []ReplyRule{{ID: "r", JSON: json.RawMessage(`["x"]`)}}
		}, []want{e("model.replies[0].json", "must be a JSON object")}},
		{"reply rule no-anchor variant alone", func(b *Bundle) {
			b.Model.Replies = []ReplyRule{{ID: "r", Tool: "t", ReplyNoAnchor: "x", JSONNoAnchor: json.RawMessage(`{}`)}}
		}, []want{e("model.replies[0].json_no_anchor", "given without json"), e("model.replies[0].reply_no_anchor", "given without reply")}},
		{"reply rule placeholder", func(b *Bundle) {
			b.Model.Replies = []ReplyRule{{ID: "r", JSON: json.RawMessage(`{"to": "{{recipient}}"}`)}}
		}, []want{w("model.replies[0].json", "{{recipient}} is not a placeholder")}},
		{"reply rules that are right", func(b *Bundle) {
			b.Model.Replies = []ReplyRule{{ID: "review", When: ReplyWhen{Schema: "review", Contains: "Review"},
				JSON: json.RawMessage(`{"verdict": "approve", "by": "{{call_id}}"}`)}, {ID: "send", Tool: "send", When: ReplyWhen{Format: "tool"}}}
		}, nil},
		{"no anchors, reply without anchor", func(b *Bundle) { b.Model.Anchors, b.Model.Reply = nil, "It ships today." }, nil},
		// inbox
		{"empty message id", func(b *Bundle) { b.Inbox[2].ID = "" }, []want{e("inbox[2].id", "must not be empty")}},
		{"duplicate message id", func(b *Bundle) { b.Inbox[2].ID = "m1" }, []want{e("inbox[2].id", `duplicate id "m1" (first used at inbox[0].id)`)}},
		{"empty conversation", func(b *Bundle) { b.Inbox[2].ConversationID = "" }, []want{e("inbox[2].conversation_id", "must not be empty")}},
		{"empty sender", func(b *Bundle) { b.Inbox[2].From = "" }, []want{e("inbox[2].from", "must not be empty")}},
		{"delivery past horizon", func(b *Bundle) { b.Inbox[2].At = 61 }, []want{e("inbox[2].at", "outside 0..60")}},
		{"delivery before zero", func(b *Bundle) { b.Inbox[2].At = -1 }, []want{e("inbox[2].at", "outside 0..60")}},
		{"delivery at the horizon", func(b *Bundle) { b.Inbox[2].At = 60 }, nil},
		// approvals
		{"empty approval id", func(b *Bundle) { b.Approvals[2].ID = "" }, []want{e("approvals[2].approval_id", "must not be empty")}},
		{"duplicate approval id", func(b *Bundle) { b.Approvals[2].ID = "a1" }, []want{e("approvals[2].approval_id", "duplicate id")}},
		{"approval past horizon", func(b *Bundle) { b.Approvals[2].At = 99 }, []want{e("approvals[2].at", "outside")}},
		{"approval matches both", func(b *Bundle) { b.Approvals[0].Match.WorkID = "w-1" }, []want{e("approvals[0].match", "not both")}},
		{"approval matches nothing", func(b *Bundle) { b.Approvals[2].Match = Match{} }, []want{e("approvals[2].match", "exactly one")}},
		{"approval matches an agent", func(b *Bundle) { b.Approvals[0].Match.AgentID = "agent-1" }, []want{e("approvals[0].match.agent_id", "never an agent")}},
		{"approval for a missing message", func(b *Bundle) { b.Approvals[0].Match.MessageID = "ghost" }, []want{e("approvals[0].match.message_id", "not in the inbox")}},
		{"unadmittable approval", func(b *Bundle) {
			b.Inbox = append(b.Inbox, Delivery{ID: "m4", ConversationID: "c4", From: "bob@example.com", Subject: "Lunch?", At: 21})
			b.Approvals[2].Match = Match{MessageID: "m4"}
			b.Faults[3].Rules = []Rule{{ID: "quiet"}}
		}, []want{e("approvals[2].match.message_id", "admitted by no rule set")}},
		{"approval admitted only by a later rules fault", func(b *Bundle) {
			b.Inbox = append(b.Inbox, Delivery{ID: "m4", ConversationID: "c4", From: "bob@example.com", Subject: "Lunch?", At: 21})
			b.Approvals[2].Match = Match{MessageID: "m4"}
		}, nil},
		{"bad decision", func(b *Bundle) { b.Approvals[0].Decision = "maybe" }, []want{e("approvals[0].decision", `"maybe"`)}},
		{"empty decision", func(b *Bundle) { b.Approvals[0].Decision = "" }, []want{e("approvals[0].decision", "is not")}},
		{"bad forge", func(b *Bundle) { b.Approvals[0].Forge = "stolen" }, []want{e("approvals[0].forge", `"stolen"`)}},
		{"bad binds", func(b *Bundle) { b.Approvals[0].Binds = "first" }, []want{e("approvals[0].binds", `"first"`)}},
		{"forged binds previous", func(b *Bundle) { b.Approvals[0].Binds, b.Approvals[0].Forge = BindsPrevious, ForgeDangling },
			[]want{e("approvals[0].binds", "forged")}},
		// signals
		{"empty signal id", func(b *Bundle) { b.Signals[0].ID = "" }, []want{e("signals[0].signal_id", "must not be empty")}},
		{"duplicate signal id", func(b *Bundle) { b.Signals[2].ID = "s1" }, []want{e("signals[2].signal_id", "duplicate id")}},
		{"signal past horizon", func(b *Bundle) { b.Signals[0].At = 61 }, []want{e("signals[0].at", "outside")}},
		{"bad signal type", func(b *Bundle) { b.Signals[0].Type = "REBOOT" }, []want{e("signals[0].signal_type", `"REBOOT"`)}},
		{"signal without target", func(b *Bundle) { b.Signals[0].Target = Match{} }, []want{e("signals[0].target", "found 0")}},
		{"signal with two targets", func(b *Bundle) { b.Signals[0].Target.AgentID = "agent-1" }, []want{e("signals[0].target", "found 2")}},
		{"escalation of an agent", func(b *Bundle) { b.Signals[1].Target = Match{AgentID: "agent-1"} }, []want{e("signals[1].target.agent_id", "not an agent")}},
		{"escalation by work id", func(b *Bundle) { b.Signals[1].Target = Match{WorkID: "w-1"} }, nil},
		{"death by work id", func(b *Bundle) { b.Signals[0].Target = Match{WorkID: "w-1"} }, []want{e("signals[0].target.work_id", "not a work_id")}},
		{"signal for a missing message", func(b *Bundle) { b.Signals[1].Target.MessageID = "ghost" }, []want{e("signals[1].target.message_id", "not in the inbox")}},
		{"death of an unknown agent", func(b *Bundle) { b.Signals[2].Target.AgentID = "agent-9" }, []want{e("signals[2].target.agent_id", "not in the fleet")}},
		// faults
		{"bad fault kind", func(b *Bundle) { b.Faults[0].Kind = "flood" }, []want{e("faults[0].kind", `"flood"`)}},
		{"fault past horizon", func(b *Bundle) { b.Faults[0].At = 61 }, []want{e("faults[0].at", "outside")}},
		{"crash with by", func(b *Bundle) { b.Faults[0].By = 3 }, []want{e("faults[0].by", "a crash fault has no by")}},
		{"crash with posture and rules", func(b *Bundle) { b.Faults[0].Posture, b.Faults[0].Rules = "normal", []Rule{{ID: "x"}} }, []want{
			e("faults[0].posture", "has no posture"), e("faults[0].rules", "has no rules")}},
		{"negative after_writes", func(b *Bundle) { b.Faults[0].AfterWrites = -1 }, []want{e("faults[0].after_writes", "negative")}},
		{"crash at the boundary", func(b *Bundle) { b.Faults[0].AfterWrites = 0 }, nil},
		{"crash after a send", func(b *Bundle) { b.Faults[0].AfterWrites, b.Faults[0].WritesTo = 1, SendLog }, nil},
		{"crash after a torn draft line", func(b *Bundle) { b.Faults[0].WritesTo, b.Faults[0].Torn = "drafts.jsonl", true }, nil},
		{"crash after a torn state.json", func(b *Bundle) { b.Faults[0].WritesTo, b.Faults[0].Torn = StateFile, true }, nil},
		{"crash after a new state.json", func(b *Bundle) { b.Faults[0].AfterWrites, b.Faults[0].WritesTo = 2, StateFile }, nil},
		{"writes_to a private file", func(b *Bundle) { b.Faults[0].WritesTo = "notes/state.json" }, []want{e("faults[0].writes_to", `"notes/state.json" is not one of drafts.jsonl, outbox.jsonl, audit.jsonl, state.json`)}},
		{"writes_to state.json at the boundary", func(b *Bundle) { b.Faults[0].AfterWrites, b.Faults[0].WritesTo = 0, StateFile }, []want{e("faults[0].writes_to", "set after_writes")}},
		{"duplicate with writes_to state.json", func(b *Bundle) { b.Faults[1].WritesTo = StateFile }, []want{e("faults[1].writes_to", "a duplicate fault has no writes_to")}},
		{"writes_to a harness file", func(b *Bundle) { b.Faults[0].WritesTo = "approvals.jsonl" }, []want{e("faults[0].writes_to", "is not one of")}},
		{"writes_to at the boundary", func(b *Bundle) { b.Faults[0].AfterWrites, b.Faults[0].WritesTo = 0, SendLog }, []want{e("faults[0].writes_to", "set after_writes")}},
		{"duplicate with writes_to", func(b *Bundle) { b.Faults[1].WritesTo = SendLog }, []want{e("faults[1].writes_to", "a duplicate fault has no writes_to")}},
		{"duplicate without message", func(b *Bundle) { b.Faults[1].MessageID = "" }, []want{e("faults[1].message_id", "needs message_id")}},
		{"duplicate of a missing message", func(b *Bundle) { b.Faults[1].MessageID = "ghost" }, []want{e("faults[1].message_id", "not in the inbox")}},
		{"duplicate before the message", func(b *Bundle) { b.Faults[1].At = 0 }, []want{e("faults[1].at", "before message \"m1\"")}},
		{"duplicate at the delivery tick", func(b *Bundle) { b.Faults[1].At = 1 }, nil},
		{"duplicate with approval_id", func(b *Bundle) { b.Faults[1].ApprovalID = "a1" }, []want{e("faults[1].approval_id", "has no approval_id")}},
		{"redelivery of a missing approval", func(b *Bundle) { b.Faults[2].ApprovalID = "ghost" }, []want{e("faults[2].approval_id", "not in the approvals")}},
		{"redelivery before the approval", func(b *Bundle) { b.Faults[2].At = 4 }, []want{e("faults[2].at", "before approval \"a1\"")}},
		{"redelivery without approval", func(b *Bundle) { b.Faults[2].ApprovalID = "" }, []want{e("faults[2].approval_id", "needs approval_id")}},
		{"jump by one", func(b *Bundle) { b.Faults[5].By = 1 }, []want{e("faults[5].by", "at least 2")}},
		{"jump without by", func(b *Bundle) { b.Faults[5].By = 0 }, []want{e("faults[5].by", "at least 2")}},
		{"jump past horizon", func(b *Bundle) { b.Faults[5].By = 31 }, []want{e("faults[5].by", "past the horizon")}},
		{"jump to the horizon", func(b *Bundle) { b.Faults[5].By = 30 }, nil},
		{"jump so long it would wrap", func(b *Bundle) { b.Faults[5].By = math.MaxInt - 10 }, []want{e("faults[5].by", "past the horizon")}},
		{"overlap with a long jump", func(b *Bundle) {
			b.Faults[5].By = math.MaxInt
			b.Faults = append(b.Faults, Fault{At: 40, Kind: FaultTickJump, By: 2})
		}, []want{e("faults[5].by", "past the horizon"), e("faults[6].at", "inside the jump of faults[5]")}},
		{"overlap found past a short jump", func(b *Bundle) {
			b.Faults = append(b.Faults, Fault{At: 31, Kind: FaultTickJump, By: 2}, Fault{At: 34, Kind: FaultTickJump, By: 2})
		}, []want{e("faults[6].at", "faults[5]"), e("faults[7].at", "faults[5]")}},
		{"overlapping jumps", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 32, Kind: FaultTickJump, By: 2}) }, []want{
			e("faults[6].at", "inside the jump of faults[5] from 30 to 35")}},
		{"overlap listed first", func(b *Bundle) {
			b.Faults = append([]Fault{{At: 33, Kind: FaultTickJump, By: 2}}, b.Faults...)
		}, []want{e("faults[0].at", "inside the jump of faults[6]")}},
		{"two jumps at one tick", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 30, Kind: FaultTickJump, By: 2}) }, []want{e("faults[6].at", "inside the jump")}},
		{"adjacent jumps", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 35, Kind: FaultTickJump, By: 2}) }, nil},
		{"bad posture fault", func(b *Bundle) { b.Faults[4].Posture = "party" }, []want{e("faults[4].posture", "is not one of")}},
		{"posture fault without posture", func(b *Bundle) { b.Faults[4].Posture = "" }, []want{e("faults[4].posture", "needs posture")}},
		{"posture fault with message", func(b *Bundle) { b.Faults[4].MessageID = "m1" }, []want{e("faults[4].message_id", "has no message_id")}},
		{"tick jump with after_writes", func(b *Bundle) { b.Faults[5].AfterWrites = 1 }, []want{e("faults[5].after_writes", "has no after_writes")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := baseBundle()
			tc.mutate(b)
			ps := Validate(b, nil)
			var got []string
			for _, p := range ps {
				got = append(got, p.Field)
			}
			wantFields := []string{}
			for _, w := range tc.want {
				wantFields = append(wantFields, w.field)
			}
			require.ElementsMatch(t, wantFields, fields(ps), "problems:\n%s", ps.Error())
			for _, w := range tc.want {
				p := findProblem(t, ps, w.field)
				assert.Contains(t, p.Msg, w.msg)
				assert.Equal(t, w.warning, p.Warning, p.String())
			}
		})
	}
}

func TestValidateSortsByPosition(t *testing.T) {
	b := baseBundle()
	b.Inbox[2].At = 99
	b.Inbox[0].From = ""
	b.Meta.Version = 0
	dir := t.TempDir()
	require.NoError(t, SaveDir(b, dir))
	_, ps, err := ValidateFile(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"meta.version", "inbox[0].from", "inbox[2].at"}, fields(ps))
	assert.Equal(t, filepath.Join(dir, FileBundle), ps[0].Pos.File)
	assert.Equal(t, Pos{File: filepath.Join(dir, FileInbox), Line: 1}, ps[1].Pos)
	assert.Equal(t, Pos{File: filepath.Join(dir, FileInbox), Line: 3}, ps[2].Pos)
}

// TestAdmittableFacts pins how an approval's message is judged: thread
// length and sender history follow delivery order (tick, then file order),
// and every posture and rule set of the bundle is tried.
func TestAdmittableFacts(t *testing.T) {
	msgs := func() []Delivery {
		return []Delivery{
			{ID: "late", ConversationID: "c1", From: "ann@x", Subject: "s", At: 9},
			{ID: "early", ConversationID: "c1", From: "ann@x", Subject: "s", At: 1},
			{ID: "tie", ConversationID: "c1", From: "bob@x", Subject: "s", At: 9},
		}
	}
	tests := []struct {
		name   string
		rules  []Rule
		faults []Fault
		target string
		ok     bool
	}{
		{"first of a thread", []Rule{{ID: "r", Admit: true, When: Conditions{ThreadLengthMax: ptr(1)}}}, nil, "early", true},
		{"later by tick though earlier in file", []Rule{{ID: "r", Admit: true, When: Conditions{ThreadLengthMax: ptr(1)}}}, nil, "late", false},
		{"same tick goes by file order", []Rule{{ID: "r", Admit: true, When: Conditions{ThreadLengthMin: ptr(3)}}}, nil, "tie", true},
		{"same tick, earlier in file", []Rule{{ID: "r", Admit: true, When: Conditions{ThreadLengthMin: ptr(3)}}}, nil, "late", false},
		{"returning sender", []Rule{{ID: "r", Admit: true, When: Conditions{SenderHistoryMin: ptr(1)}}}, nil, "late", true},
		{"first-time sender", []Rule{{ID: "r", Admit: true, When: Conditions{SenderHistoryMin: ptr(1)}}}, nil, "tie", false},
		{"posture that never occurs", []Rule{{ID: "r", Admit: true, When: Conditions{Posture: ptr("vip-only")}}}, nil, "tie", false},
		{"posture from a fault", []Rule{{ID: "r", Admit: true, When: Conditions{Posture: ptr("vip-only")}}},
			[]Fault{{At: 5, Kind: FaultPosture, Posture: "vip-only"}}, "tie", true},
		{"rule set from a fault", []Rule{{ID: "r"}},
			[]Fault{{At: 5, Kind: FaultRules, Rules: []Rule{{ID: "all", Admit: true}}}}, "tie", true},
		{"overridden everywhere", []Rule{{ID: "r", Admit: true}, {ID: "o", Overrides: []string{"r"}}}, nil, "tie", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := baseBundle()
			b.Inbox = msgs()
			b.Rules = tc.rules
			b.Approvals = []Approval{{ID: "a", At: 10, Match: Match{MessageID: tc.target}, Decision: DecisionApprove}}
			b.Signals = nil
			b.Faults = tc.faults
			ps := Validate(b, nil).Errors()
			if tc.ok {
				assert.Empty(t, ps)
			} else {
				require.Equal(t, []string{"approvals[0].match.message_id"}, fields(ps), ps.Error())
			}
		})
	}
}

func TestValidateFile(t *testing.T) {
	t.Run("missing path is an error", func(t *testing.T) {
		_, ps, err := ValidateFile(filepath.Join(t.TempDir(), "nope.json"))
		require.Error(t, err)
		assert.Empty(t, ps)
	})
	t.Run("load problems come back as problems", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.json")
		require.NoError(t, os.WriteFile(path, []byte("{"), 0o644))
		b, ps, err := ValidateFile(path)
		require.NoError(t, err)
		assert.Nil(t, b)
		require.Len(t, ps, 1)
		assert.Equal(t, Pos{File: path, Line: 1}, ps[0].Pos)
	})
	t.Run("a valid file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.json")
		require.NoError(t, SaveJSON(baseBundle(), path))
		b, ps, err := ValidateFile(path)
		require.NoError(t, err)
		assert.Empty(t, ps)
		assert.Equal(t, baseBundle(), b)
	})
}
