package sim

import (
	"strconv"

	"github.com/amr-bench/amr/sim/sandbox"
)

// The harness's own lines (an inbox message, an approval, a signal) are
// laid out by hand when every string in them is plain: printable ASCII
// without a quote or a backslash, which encoding/json writes as it is.
// They are then the bytes sandbox.MarshalLine writes; any other string
// takes MarshalLine itself. Its reflection was most of firing a schedule.

// plainLine reports whether encoding/json, HTML escaping off, writes s
// between its quotes byte for byte.
func plainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// lineField appends `"key":"value"` after a comma unless it opens the line.
func lineField(out []byte, key, value string) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, `":"`...)
	out = append(out, value...)
	return append(out, '"')
}

// lineInt appends `,"key":n`.
func lineInt(out []byte, key string, n int) []byte {
	out = append(out, ',', '"')
	out = append(out, key...)
	out = append(out, '"', ':')
	return strconv.AppendInt(out, int64(n), 10)
}

func messageLine(m sandbox.Message) ([]byte, error) {
	if !plainLine(m.ID) || !plainLine(m.ConversationID) || !plainLine(m.From) || !plainLine(m.Subject) || !plainLine(m.Body) {
		return sandbox.MarshalLine(m)
	}
	out := make([]byte, 0, 80+len(m.ID)+len(m.ConversationID)+len(m.From)+len(m.Subject)+len(m.Body))
	out = append(out, '{')
	out = lineField(out, "id", m.ID)
	out = lineField(out, "conversation_id", m.ConversationID)
	out = lineField(out, "from", m.From)
	out = lineField(out, "subject", m.Subject)
	out = lineField(out, "body", m.Body)
	out = lineInt(out, "at", m.At)
	return append(out, '}'), nil
}

func approvalLine(a sandbox.ApprovalRecord) ([]byte, error) {
	if !plainLine(a.ApprovalID) || !plainLine(a.DraftID) || !plainLine(a.ContentHash) || !plainLine(a.Decision) {
		return sandbox.MarshalLine(a)
	}
	out := make([]byte, 0, 80+len(a.ApprovalID)+len(a.DraftID)+len(a.ContentHash)+len(a.Decision))
	out = append(out, '{')
	out = lineField(out, "approval_id", a.ApprovalID)
	out = lineField(out, "draft_id", a.DraftID)
	out = lineField(out, "content_hash", a.ContentHash)
	out = lineField(out, "decision", a.Decision)
	out = lineInt(out, "decided_at", a.DecidedAt)
	return append(out, '}'), nil
}

func signalLine(s sandbox.SignalRecord) ([]byte, error) {
	if !plainLine(s.SignalID) || !plainLine(s.SignalType) || !plainLine(s.Target) {
		return sandbox.MarshalLine(s)
	}
	out := make([]byte, 0, 64+len(s.SignalID)+len(s.SignalType)+len(s.Target))
	out = append(out, '{')
	out = lineField(out, "signal_id", s.SignalID)
	out = lineField(out, "signal_type", s.SignalType)
	out = lineField(out, "target", s.Target)
	out = lineInt(out, "at", s.At)
	return append(out, '}'), nil
}
