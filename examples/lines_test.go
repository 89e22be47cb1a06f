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
		at := rapid.OneOf(rapid.IntRange(-5, 5), rapid.IntRange(1<<40-2, 1<<40+2), rapid.IntRange(0, 1<<41)).Draw(t, "at")
		s := func(label string) string { return text(t, label) }
		maybe := func(label string) string {
			if rapid.Bool().Draw(t, label+"?") {
				return ""
			}
			return s(label)
		}
		outcome := rapid.SampledFrom([]string{sandbox.ClaimWon, sandbox.ClaimStoodDown, sandbox.OutcomeCompleted,
			sandbox.OutcomeAbandoned, "", "lost"}).Draw(t, "outcome")
		event := rapid.SampledFrom([]string{sandbox.EventAdmission, sandbox.EventClaim, sandbox.EventResolution,
			eventDeclined, "note", ""}).Draw(t, "event")
		var ids []string
		for n := rapid.IntRange(0, 3).Draw(t, "calls"); n > 0; n-- {
			ids = append(ids, s("call"))
		}
		origin := sandbox.Origin{CallIDs: ids, ModelFree: rapid.IntRange(0, 5).Draw(t, "free") == 0}
		recs := []any{
			admissionLine{Event: event, At: at, WorkID: s("work"), MessageID: s("msg"), RulesHash: s("hash"),
				RuleID: s("rule"), Posture: s("posture")},
			claimLine{Event: event, At: at, WorkID: s("work"), AgentID: s("agent"), Outcome: outcome, Reason: s("reason")},
			resolutionLine{Event: event, At: at, WorkID: s("work"), Outcome: outcome, Reason: s("reason"),
				ApprovalID: maybe("approval"), SignalID: maybe("signal")},
			declinedLine{Event: event, At: at, MessageID: s("msg"), RulesHash: s("hash"), Posture: s("posture")},
			approvalLine{Event: event, At: at, ApprovalID: s("approval"), DraftID: s("draft"),
				WorkID: maybe("work"), Reason: maybe("reason")},
			sandbox.Effect{EffectID: s("effect"), DraftID: s("draft"), SentAt: at},
			sandbox.Draft{DraftID: s("draft"), WorkID: s("work"), ConversationID: s("conv"), Body: s("body"),
				ContentHash: s("hash"), DeclaredAt: at, Origin: origin},
		}
		for _, rec := range recs {
			want, err := sandbox.MarshalLine(rec)
			require.NoError(t, err)
			for _, file := range []string{sandbox.Audit, sandbox.Drafts, sandbox.Outbox} {
				got, back, err := lineOf(&jsonLine{}, file, rec)
				require.NoError(t, err)
				require.Equal(t, string(want), string(got), "%#v", rec)
				requireReadsBack(t, file, got, back)
			}
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

// requireReadsBack holds the record lineOf offers in place of a parse to
// what the file's parser reads from the line: present only when the parser
// reads exactly that record, absent whenever it refuses the line.
func requireReadsBack(t *rapid.T, file string, line []byte, back any) {
	var parsed any
	switch file {
	case sandbox.Audit:
		if lines, _ := sandbox.ParseAudit(line); len(lines) == 1 {
			parsed = auditRecOf(lines[0].Rec)
		}
	case sandbox.Drafts:
		if lines, _ := sandbox.ParseDrafts(line); len(lines) == 1 {
			parsed = lines[0].Rec
		}
	case sandbox.Outbox:
		if lines, _ := sandbox.ParseOutbox(line); len(lines) == 1 {
			parsed = lines[0].Rec
		}
	}
	if back == nil {
		return // the caller parses the line itself
	}
	require.NotNil(t, parsed, "offered a record for a line %s refuses: %s", file, line)
	require.Equal(t, parsed, back, "%s: %s", file, line)
}

// The lines the reference writes most are read back without a parse, and
// one the parser refuses never is.
func TestReadBackOfPlainLines(t *testing.T) {
	claim := claimLine{Event: sandbox.EventClaim, At: 3, WorkID: "w-m1", AgentID: "agent-1", Outcome: sandbox.ClaimWon, Reason: "sole_agent"}
	line, back, err := lineOf(&jsonLine{}, sandbox.Audit, claim)
	require.NoError(t, err)
	lines, _ := sandbox.ParseAudit(line)
	require.Len(t, lines, 1)
	require.Equal(t, auditRecOf(lines[0].Rec), back)

	draft := sandbox.Draft{DraftID: "d-1", WorkID: "w-1", ConversationID: "c-1", Body: "hi", ContentHash: "sha256:x",
		DeclaredAt: 2, Origin: sandbox.Origin{CallIDs: []string{"call-1"}}}
	_, back, err = lineOf(&jsonLine{}, sandbox.Drafts, draft)
	require.NoError(t, err)
	require.Equal(t, draft, back)

	claim.Outcome = "lost"
	_, back, _ = lineOf(&jsonLine{}, sandbox.Audit, claim)
	require.Nil(t, back, "an outcome the parser refuses")
	claim.Outcome, claim.WorkID = sandbox.ClaimWon, ""
	_, back, _ = lineOf(&jsonLine{}, sandbox.Audit, claim)
	require.Nil(t, back, "an empty work id")
	_, back, _ = lineOf(&jsonLine{}, sandbox.Outbox, claim)
	require.Nil(t, back, "another file's record")
	draft.Origin.CallIDs = nil
	_, back, _ = lineOf(&jsonLine{}, sandbox.Drafts, draft)
	require.Nil(t, back, "no call id")
}
