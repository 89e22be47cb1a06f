package examples

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/amr-bench/amr/sim/sandbox"
)

// lineOf is the line the responder appends to file for rec:
// sandbox.MarshalLine's bytes. The records it writes most are laid out by
// hand when every string in them is plain printable ASCII, which the
// encoder writes as it is; anything else goes through MarshalLine. Both
// write the same bytes (a test compares them): the encoder's reflection was
// a fortieth of a run. back is, for a line laid out by hand that the file's
// parser is certain to accept, the record it reads back (a test compares
// them too); nil means the caller parses the line.
//
// A line laid out by hand is l's own buffer, good until l lays out the
// next one: the stores copy what they append, and no record read back
// keeps its line.
func lineOf(l *jsonLine, file string, rec any) (line []byte, back any, err error) {
	if layOut(l, rec) {
		return l.buf, l.readBack(file, rec), nil
	}
	line, err = sandbox.MarshalLine(rec)
	return line, nil, err
}

// plainLine is rec laid out by hand, or nil when it cannot be.
func plainLine(rec any) []byte {
	l := lines.Get().(*jsonLine)
	defer lines.Put(l)
	if layOut(l, rec) {
		return bytes.Clone(l.buf)
	}
	return nil
}

// lines holds the scratch of the lines being laid out; a caller gets a
// copy of a line's bytes, never the scratch.
var lines = sync.Pool{New: func() any { return &jsonLine{} }}

// layOut lays rec out by hand into l, and reports whether it could.
func layOut(l *jsonLine, rec any) bool {
	l.buf, l.bad = l.buf[:0], false
	l.members = l.room[:0]
	switch r := rec.(type) {
	case admissionLine:
		l.str("event", r.Event).num("at", r.At).str("work_id", r.WorkID).str("message_id", r.MessageID).
			str("rules_hash", r.RulesHash).str("rule_id", r.RuleID).str("posture", r.Posture)
	case claimLine:
		l.str("event", r.Event).num("at", r.At).str("work_id", r.WorkID).str("agent_id", r.AgentID).
			str("outcome", r.Outcome).str("reason", r.Reason)
	case resolutionLine:
		l.str("event", r.Event).num("at", r.At).str("work_id", r.WorkID).str("outcome", r.Outcome).
			str("reason", r.Reason).opt("approval_id", r.ApprovalID).opt("signal_id", r.SignalID)
	case declinedLine:
		l.str("event", r.Event).num("at", r.At).str("message_id", r.MessageID).str("rules_hash", r.RulesHash).
			str("posture", r.Posture)
	case approvalLine:
		l.str("event", r.Event).num("at", r.At).str("approval_id", r.ApprovalID).str("draft_id", r.DraftID).
			opt("work_id", r.WorkID).opt("reason", r.Reason)
	case sandbox.Effect:
		l.str("effect_id", r.EffectID).str("draft_id", r.DraftID).num("sent_at", r.SentAt)
	case sandbox.Draft:
		l.str("draft_id", r.DraftID).str("work_id", r.WorkID).str("conversation_id", r.ConversationID).
			str("body", r.Body).str("content_hash", r.ContentHash).num("declared_at", r.DeclaredAt).origin(r.Origin)
	default:
		return false
	}
	return l.end()
}

// jsonLine is one object being laid out; bad is set once a value needs
// the encoder.
type jsonLine struct {
	buf []byte
	bad bool
	// members are where each member's value lies in buf, for readBack;
	// room holds them for a record of the responder's own.
	members []member
	room    [8]member
}

// member is one key and the span of its value in the line.
type member struct {
	key        string
	start, end int
	// text is a string member's value; num a number's.
	text string
	num  int
	str  bool
}

func (l *jsonLine) key(name string) {
	if len(l.buf) == 0 {
		if cap(l.buf) == 0 {
			l.buf = make([]byte, 0, 256)
		}
		l.buf = append(l.buf, '{')
	} else {
		l.buf = append(l.buf, ',')
	}
	l.buf = append(append(append(l.buf, '"'), name...), '"', ':')
}

func (l *jsonLine) str(name, v string) *jsonLine {
	if !plainASCII(v) {
		l.bad = true
	}
	l.key(name)
	start := len(l.buf)
	l.buf = append(append(append(l.buf, '"'), v...), '"')
	l.members = append(l.members, member{key: name, start: start, end: len(l.buf), text: v, str: true})
	return l
}

// opt is an omitempty string.
func (l *jsonLine) opt(name, v string) *jsonLine {
	if v == "" {
		return l
	}
	return l.str(name, v)
}

func (l *jsonLine) num(name string, v int) *jsonLine {
	l.key(name)
	start := len(l.buf)
	l.buf = strconv.AppendInt(l.buf, int64(v), 10)
	l.members = append(l.members, member{key: name, start: start, end: len(l.buf), num: v})
	return l
}

// origin is sandbox.Origin's own encoding, a list of call ids, which
// escapes HTML's three characters too: only ids without them are laid out
// here.
func (l *jsonLine) origin(o sandbox.Origin) *jsonLine {
	if o.ModelFree {
		l.bad = true
		return l
	}
	l.key("origin")
	l.buf = append(l.buf, '[')
	for i, id := range o.CallIDs {
		if !plainASCII(id) || !htmlFree(id) {
			l.bad = true
		}
		if i > 0 {
			l.buf = append(l.buf, ',')
		}
		l.buf = append(append(append(l.buf, '"'), id...), '"')
	}
	l.buf = append(l.buf, ']')
	return l
}

// end closes the object, and reports whether it was laid out whole.
func (l *jsonLine) end() bool {
	if l.bad || len(l.buf) == 0 {
		return false
	}
	l.buf = append(l.buf, '}')
	return true
}

// htmlFree reports whether s has none of the characters json.Marshal
// escapes for HTML.
func htmlFree(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
