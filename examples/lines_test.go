package examples

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

// text draws strings that are mostly plain, HTML's three characters among
// them (one in ten is not, so a whole record is often plain), and
// otherwise hold what the encoder escapes: quotes, backslashes, control
// bytes, non-ASCII and invalid UTF-8.
func text(t *rapid.T, label string) string {
	if rapid.IntRange(0, 9).Draw(t, label+"-odd") > 0 {
		return rapid.StringMatching(`[a-z0-9 <>&._:-]{0,12}`).Draw(t, label)
	}
	return rapid.OneOf(
		rapid.StringOf(rapid.SampledFrom([]rune{'a', ' ', '"', '\\', '<', '>', '&', '\n', '\t', 0x01, 0x7f, 'é', '\u2028'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	).Draw(t, label)
}

// Every record the responder lays out by hand reads exactly as
// MarshalLine writes it, plain strings or not.
func TestLineOfIsMarshalLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		at := rapid.IntRange(-5, 1<<40).Draw(t, "at")
		s := func(label string) string { return text(t, label) }
		maybe := func(label string) string {
			if rapid.Bool().Draw(t, label+"?") {
				return ""
			}
			return s(label)
		}
		var ids []string
		for n := rapid.IntRange(0, 3).Draw(t, "calls"); n > 0; n-- {
			ids = append(ids, s("call"))
		}
		origin := sandbox.Origin{CallIDs: ids, ModelFree: rapid.IntRange(0, 5).Draw(t, "free") == 0}
		recs := []any{
			admissionLine{Event: s("event"), At: at, WorkID: s("work"), MessageID: s("msg"), RulesHash: s("hash"),
				RuleID: s("rule"), Posture: s("posture")},
			claimLine{Event: s("event"), At: at, WorkID: s("work"), AgentID: s("agent"), Outcome: s("outcome"), Reason: s("reason")},
			resolutionLine{Event: s("event"), At: at, WorkID: s("work"), Outcome: s("outcome"), Reason: s("reason"),
				ApprovalID: maybe("approval"), SignalID: maybe("signal")},
			declinedLine{Event: s("event"), At: at, MessageID: s("msg"), RulesHash: s("hash"), Posture: s("posture")},
			approvalLine{Event: s("event"), At: at, ApprovalID: s("approval"), DraftID: s("draft"),
				WorkID: maybe("work"), Reason: maybe("reason")},
			sandbox.Effect{EffectID: s("effect"), DraftID: s("draft"), SentAt: at},
			sandbox.Draft{DraftID: s("draft"), WorkID: s("work"), ConversationID: s("conv"), Body: s("body"),
				ContentHash: s("hash"), DeclaredAt: at, Origin: origin},
		}
		for _, rec := range recs {
			want, err := sandbox.MarshalLine(rec)
			require.NoError(t, err)
			got, err := lineOf(rec)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "%#v", rec)
		}
	})
}

// The hand layout is taken for plain records, and refused for what it
// does not write as the encoder does.
func TestPlainLineOnlyForPlainRecords(t *testing.T) {
	plain := claimLine{Event: "claim", At: 3, WorkID: "w-m1", AgentID: "agent-1", Outcome: "won", Reason: "sole_agent"}
	require.Equal(t, `{"event":"claim","at":3,"work_id":"w-m1","agent_id":"agent-1","outcome":"won","reason":"sole_agent"}`,
		string(plainLine(plain)))
	quoted := plain
	quoted.Reason = `say "hi"`
	require.Nil(t, plainLine(quoted))
	require.Nil(t, plainLine(sandbox.Draft{Origin: sandbox.Origin{CallIDs: []string{"a<b"}}}))
	require.Nil(t, plainLine(sandbox.Draft{Origin: sandbox.Origin{ModelFree: true}}))
	require.Nil(t, plainLine(struct{ A int }{1}))
}
