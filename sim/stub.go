package sim

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Stub is the deterministic, context-free stub model of spec §2. A reply
// embeds an anchor only when the prompt already carries one; with several,
// the first in the bundle's anchors order wins. Every call is logged to
// model-calls.jsonl under a call id that drafts cite as their origin.
type Stub struct {
	model scenarios.Model
	store sandbox.Store
	tick  func() int
	calls int
	// refuse, when set, makes Complete fail: a crashed instance may not call.
	refuse func() error
}

// NewStub returns a stub that logs into store and stamps calls with tick().
func NewStub(m scenarios.Model, store sandbox.Store, tick func() int) *Stub {
	return &Stub{model: m, store: store, tick: tick}
}

// Calls is the number of calls answered so far.
func (s *Stub) Calls() int { return s.calls }

// Anchor returns the anchor a prompt elicits: the first of the model's
// anchors that the prompt contains, or "".
func Anchor(m scenarios.Model, prompt string) string {
	for _, a := range m.Anchors {
		if a != "" && strings.Contains(prompt, a) {
			return a
		}
	}
	return ""
}

// Reply renders the canned reply for an anchor and call id. A template
// that is JSON text (an object or an array) is a JSON-text template: the
// values are escaped for a JSON string, so the placeholders belong inside
// string literals and the reply stays valid JSON whatever the anchor holds.
// Implementations that parse the model's output as JSON, and record the
// call id only from what they parse, get it that way.
func Reply(m scenarios.Model, anchor, callID string) string {
	tmpl := m.ReplyNoAnchor
	if anchor != "" {
		tmpl = m.Reply
	}
	if isJSONTemplate(tmpl) {
		anchor, callID = jsonEscape(anchor), jsonEscape(callID)
	}
	r := strings.NewReplacer("{{anchor}}", anchor, "{{call_id}}", callID)
	return r.Replace(tmpl)
}

// isJSONTemplate reports whether a template is a JSON object or array.
func isJSONTemplate(tmpl string) bool {
	t := strings.TrimSpace(tmpl)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return json.Valid([]byte(t))
}

// jsonEscape renders s as the inside of a JSON string literal.
func jsonEscape(s string) string {
	line, err := sandbox.MarshalLine(s)
	if err != nil || len(line) < 2 {
		return s
	}
	return string(line[1 : len(line)-1])
}

// Complete answers one call and logs it.
func (s *Stub) Complete(prompt string) (sandbox.Completion, error) {
	if s.refuse != nil {
		if err := s.refuse(); err != nil {
			return sandbox.Completion{}, err
		}
	}
	s.calls++
	id := fmt.Sprintf("call-%04d", s.calls)
	anchor := Anchor(s.model, prompt)
	text := Reply(s.model, anchor, id)
	rec := sandbox.ModelCall{CallID: id, At: s.tick(), Prompt: prompt, Anchor: anchor, Reply: text}
	if err := sandbox.AppendJSON(s.store, sandbox.ModelCalls, rec); err != nil {
		return sandbox.Completion{}, fmt.Errorf("stub: logging call %s: %w", id, err)
	}
	return sandbox.Completion{CallID: id, Text: text}, nil
}
