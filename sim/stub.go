package sim

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Stub is the deterministic, context-free stub model of spec §2. A reply
// embeds an anchor only when the prompt already carries one; with several,
// the first in the bundle's anchors order wins. Every call is logged to
// model-calls.jsonl under a call id that drafts cite as their origin, and
// so is every request refused, under an id of its own.
type Stub struct {
	model scenarios.Model
	// senders are the inbox's senders, once each (case aside: an address
	// is one participant however it is spelled), in delivery order.
	senders  []string
	store    sandbox.Store
	tick     func() int
	calls    int
	rejected int
	// refuse, when set, makes Complete fail: a crashed instance may not call.
	refuse func() error
}

// NewStub returns a stub that logs into store and stamps calls with tick().
func NewStub(m scenarios.Model, store sandbox.Store, tick func() int) *Stub {
	return &Stub{model: m, store: store, tick: tick}
}

// NewBundleStub is NewStub for a bundle: its model, and its inbox's senders
// for the {{sender}} and {{participants}} placeholders.
func NewBundleStub(b *scenarios.Bundle, store sandbox.Store, tick func() int) *Stub {
	s := NewStub(b.Model, store, tick)
	s.senders = inboxSenders(b.Inbox)
	return s
}

func inboxSenders(inbox []scenarios.Delivery) []string {
	order := append([]scenarios.Delivery(nil), inbox...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].At < order[j].At })
	var out []string
	seen := map[string]bool{}
	for _, d := range order {
		key := strings.ToLower(d.From)
		if d.From != "" && !seen[key] {
			seen[key] = true
			out = append(out, d.From)
		}
	}
	return out
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

// participants are the senders a prompt carries (case aside), in the
// stub's sender order.
func (s *Stub) participants(prompt string) []string {
	low := strings.ToLower(prompt)
	var out []string
	for _, from := range s.senders {
		if strings.Contains(low, strings.ToLower(from)) {
			out = append(out, from)
		}
	}
	return out
}

// Reply renders the bundle's default reply for an anchor and call id (see
// renderTemplate for JSON-text templates).
func Reply(m scenarios.Model, anchor, callID string) string {
	tmpl := m.ReplyNoAnchor
	if anchor != "" {
		tmpl = m.Reply
	}
	return renderTemplate(tmpl, fill{anchor: anchor, callID: callID})
}

// Request is one call as the stub reads it: the prompt, and what the
// caller asks the answer to be.
type Request struct {
	Prompt string
	// Format is "" for text, FormatJSONObject or FormatJSONSchema.
	Format string
	// SchemaName and Schema are the json_schema's; Schema is nil when the
	// request gave none.
	SchemaName string
	Schema     any
	// Tools are the function tools offered; Choice is how one must be used.
	Tools  []Tool
	Choice ToolChoice
	// Limit is the request's max_tokens, 0 for none, and Stop its stop
	// sequences: the stub's reply is the bundle's whole reply, so where it
	// breaks one of them the log says so.
	Limit int
	Stop  []string
	// Ignored lists what the request asked that the stub does not honour.
	Ignored []sandbox.Ignored
}

// Response formats a Request may ask for.
const (
	FormatJSONObject = "json_object"
	FormatJSONSchema = "json_schema"
	formatToolCall   = "tool_call"
)

// Tool is a function tool a request offers; Parameters is its schema, nil
// when it has none.
type Tool struct {
	Name       string
	Parameters any
}

// ToolChoice says whether a tool must be called: Mode is "auto" (or ""),
// "none", "required", or "function" with the tool's Name.
type ToolChoice struct {
	Mode string
	Name string
}

// Answer is the stub's answer to a Request: a text (a JSON text when JSON
// was asked for), or a tool call.
type Answer struct {
	CallID string
	Text   string
	Tool   *sandbox.ToolCall
}

// Complete answers one plain call and logs it.
func (s *Stub) Complete(prompt string) (sandbox.Completion, error) {
	a, err := s.Answer(Request{Prompt: prompt})
	if err != nil {
		return sandbox.Completion{}, err
	}
	return sandbox.Completion{CallID: a.CallID, Text: a.Text}, nil
}

// Answer answers one call and logs it.
func (s *Stub) Answer(req Request) (Answer, error) {
	if s.refuse != nil {
		if err := s.refuse(); err != nil {
			return Answer{}, err
		}
	}
	s.calls++
	id := fmt.Sprintf("call-%04d", s.calls)
	f := s.fillFor(req.Prompt, id)
	if fail, ok := s.model.FailureAt(s.calls); ok {
		return Answer{CallID: id}, s.fail(id, req.Prompt, f.anchor, fail)
	}
	c := call{stub: s, req: req, fill: f, rule: s.rule(req)}
	a, rec := c.answer()
	c.limits(a)
	rec.CallID, rec.At, rec.Prompt, rec.Anchor = id, s.tick(), req.Prompt, f.anchor
	if c.rule != nil {
		rec.Kind = c.rule.ID
	}
	rec.Ignored = append(append([]sandbox.Ignored{}, req.Ignored...), c.ignored...)
	if len(rec.Ignored) == 0 {
		rec.Ignored = nil
	}
	if err := sandbox.AppendJSON(s.store, sandbox.ModelCalls, rec); err != nil {
		return Answer{}, fmt.Errorf("stub: logging call %s: %w", id, err)
	}
	a.CallID = id
	return a, nil
}

// failureStatus is the HTTP status each kind of failure is answered with;
// a reset and a timeout get none. Built at its first use, not at every
// start of amr.
var failureStatus = sync.OnceValue(func() map[string]int {
	return map[string]int{
		scenarios.ModelRateLimit:   429,
		scenarios.ModelServerError: 500,
		scenarios.ModelUnavailable: 503,
		scenarios.ModelMalformed:   200,
	}
})

// fail logs a call the bundle makes fail and returns its error (D74).
func (s *Stub) fail(id, prompt, anchor string, f scenarios.ModelFailure) error {
	failed := sandbox.Failed{Kind: f.Kind, Status: failureStatus()[f.Kind], RetryAfter: f.RetryAfter}
	rec := sandbox.ModelCall{CallID: id, At: s.tick(), Prompt: prompt, Anchor: anchor, Failed: &failed}
	if err := sandbox.AppendJSON(s.store, sandbox.ModelCalls, rec); err != nil {
		return fmt.Errorf("stub: logging call %s: %w", id, err)
	}
	return clientSees(id, f)
}

// clientSees is the failure as a client of the HTTP stub gets it, so that
// an implementation learns the same in process as over HTTP (D130): a call
// id comes only with a response, and a timeout ends in the gateway's 504
// for a client that waits; a reset answers nothing, not even its id.
func clientSees(id string, f scenarios.ModelFailure) *sandbox.ModelError {
	switch f.Kind {
	case scenarios.ModelReset:
		return &sandbox.ModelError{Kind: f.Kind}
	case scenarios.ModelTimeout:
		return &sandbox.ModelError{CallID: id, Kind: f.Kind, Status: 504}
	}
	return &sandbox.ModelError{CallID: id, Kind: f.Kind, Status: failureStatus()[f.Kind], RetryAfter: f.RetryAfter}
}

// Reject logs a request the stub refused and returns the id it is logged
// under. A crashed instance's requests are neither answered nor logged.
func (s *Stub) Reject(prompt string, r sandbox.Rejected) (string, error) {
	if s.refuse != nil {
		if err := s.refuse(); err != nil {
			return "", err
		}
	}
	s.rejected++
	id := fmt.Sprintf("rejected-%04d", s.rejected)
	rec := sandbox.ModelCall{CallID: id, At: s.tick(), Prompt: prompt, Rejected: &r}
	if err := sandbox.AppendJSON(s.store, sandbox.ModelCalls, rec); err != nil {
		return "", fmt.Errorf("stub: logging refused request %s: %w", id, err)
	}
	return id, nil
}

func (s *Stub) fillFor(prompt, id string) fill {
	f := fill{anchor: Anchor(s.model, prompt), callID: id}
	if ps := s.participants(prompt); len(ps) > 0 {
		f.sender, f.participants = ps[0], strings.Join(ps, ", ")
	}
	return f
}

// rule is the first of the bundle's reply rules that matches, or nil.
func (s *Stub) rule(req Request) *scenarios.ReplyRule {
	for i := range s.model.Replies {
		if r := &s.model.Replies[i]; ruleMatches(r.When, req) {
			return r
		}
	}
	return nil
}

func ruleMatches(w scenarios.ReplyWhen, req Request) bool {
	if w.Contains != "" && !strings.Contains(req.Prompt, w.Contains) {
		return false
	}
	if w.Format != "" && w.Format != requestFormat(req) {
		return false
	}
	if w.Schema != "" && (req.Format != FormatJSONSchema || w.Schema != req.SchemaName) {
		return false
	}
	if w.Tool != "" && (req.Choice.Mode == "none" || !offers(req, w.Tool)) {
		return false
	}
	return true
}

// requestFormat is the kind of answer a request asks for, as a reply
// rule's when.format names it.
func requestFormat(req Request) string {
	switch {
	case len(req.Tools) > 0 && req.Choice.Mode != "none":
		return scenarios.ReplyFormatTool
	case req.Format != "":
		return req.Format
	}
	return scenarios.ReplyFormatText
}

func offers(req Request, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// call is one call being answered.
type call struct {
	stub    *Stub
	req     Request
	fill    fill
	rule    *scenarios.ReplyRule
	ignored []sandbox.Ignored
}

func (c *call) ignore(field, format string, args ...any) {
	c.ignored = append(c.ignored, sandbox.Ignored{Field: field, Detail: fmt.Sprintf(format, args...)})
}

func (c *call) answer() (Answer, sandbox.ModelCall) {
	if name := c.toolName(); name != "" {
		args := c.arguments(name)
		tc := sandbox.ToolCall{Name: name, Arguments: args}
		return Answer{Tool: &tc}, sandbox.ModelCall{Format: formatToolCall, ToolCalls: []sandbox.ToolCall{tc}}
	}
	switch c.req.Format {
	case FormatJSONObject:
		text := c.jsonObject()
		return Answer{Text: text}, sandbox.ModelCall{Reply: text, Format: FormatJSONObject}
	case FormatJSONSchema:
		text := c.jsonSchema()
		return Answer{Text: text}, sandbox.ModelCall{Reply: text, Format: FormatJSONSchema}
	}
	text := c.text()
	return Answer{Text: text}, sandbox.ModelCall{Reply: text}
}

// text is the reply as text: the rule's reply, else its JSON's text, else
// the bundle's default reply.
func (c *call) text() string {
	r := c.rule
	switch {
	case r != nil && r.Reply != "":
		tmpl := r.Reply
		if c.fill.anchor == "" && r.ReplyNoAnchor != "" {
			tmpl = r.ReplyNoAnchor
		}
		return renderTemplate(tmpl, c.fill)
	case r != nil && len(r.JSON) > 0:
		if t, ok := c.ruleJSONText(); ok {
			return t
		}
	}
	tmpl := c.stub.model.ReplyNoAnchor
	if c.fill.anchor != "" {
		tmpl = c.stub.model.Reply
	}
	return renderTemplate(tmpl, c.fill)
}

// ruleJSONText is the rule's json, filled, as its author wrote it.
func (c *call) ruleJSONText() (string, bool) {
	r := c.rule
	if r == nil || len(r.JSON) == 0 {
		return "", false
	}
	raw := r.JSON
	if c.fill.anchor == "" && len(r.JSONNoAnchor) > 0 {
		raw = r.JSONNoAnchor
	}
	return renderJSONText(string(bytes.TrimSpace(raw)), c.fill.replacer(), 0), true
}

// given is the JSON value the bundle gives for this call: the rule's json,
// or a reply that is itself a JSON object; with its text.
func (c *call) given() (any, string, bool) {
	text, ok := c.ruleJSONText()
	if !ok {
		text = strings.TrimSpace(c.text())
	}
	v, err := parseJSON([]byte(text))
	if err != nil {
		return nil, "", false
	}
	if _, isObj := v.(*object); !isObj {
		return nil, "", false
	}
	return v, text, true
}

// jsonObject answers json_object: the bundle's object when it gives one,
// else the reply mapped into {"reply", "anchor" (when there is one),
// "call_id"}.
func (c *call) jsonObject() string {
	if _, text, ok := c.given(); ok {
		return text
	}
	o := newObject()
	o.set("reply", c.text())
	if c.fill.anchor != "" {
		o.set("anchor", c.fill.anchor)
	}
	o.set("call_id", c.fill.callID)
	return jsonText(o)
}

// jsonSchema answers json_schema with a value the schema accepts.
func (c *call) jsonSchema() string {
	if c.req.Schema == nil {
		c.ignore("response_format.json_schema.schema", "no schema was given: answered as json_object")
		return c.jsonObject()
	}
	cand, text, has := c.given()
	doc := &schemaDoc{root: c.req.Schema}
	if has && doc.validate(c.req.Schema, cand, "") == nil {
		c.noteKeywords("response_format.json_schema", c.req.Schema)
		return text
	}
	return c.build("response_format.json_schema", doc, cand, has)
}

// build generates from a schema and records what could not be honoured.
func (c *call) build(field string, doc *schemaDoc, cand any, has bool) string {
	v := generate(doc, doc.root, c.text(), c.fill, cand, has)
	c.noteKeywords(field, doc.root)
	if err := doc.validate(doc.root, v, "$"); err != nil {
		c.ignore(field, "the stub could not build a value the schema accepts: %v", err)
	}
	return jsonText(v)
}

func (c *call) noteKeywords(field string, schema any) {
	if kw := unknownKeywords(schema); len(kw) > 0 {
		c.ignore(field, "keywords the stub does not check: %s; the answer may not meet them", strings.Join(kw, ", "))
	}
}

// toolName is the tool the stub calls, or "" to answer with content: the
// one tool_choice names; with "required", the rule's tool when offered, else
// the first offered; with "auto", the rule's tool when it names one that is
// offered.
func (c *call) toolName() string {
	req := c.req
	if len(req.Tools) == 0 {
		return ""
	}
	ruleTool := ""
	if c.rule != nil && c.rule.Tool != "" && offers(req, c.rule.Tool) {
		ruleTool = c.rule.Tool
	}
	switch req.Choice.Mode {
	case "none":
		return ""
	case "function":
		return req.Choice.Name
	case "required":
		if ruleTool != "" {
			return ruleTool
		}
		return req.Tools[0].Name
	}
	return ruleTool
}

// arguments are a tool call's arguments: the rule's json where the tool's
// parameters accept it, else built from the parameters' schema.
func (c *call) arguments(name string) string {
	var params any
	for _, t := range c.req.Tools {
		if t.Name == name {
			params = t.Parameters
		}
	}
	var cand any
	var text string
	has := false
	if c.rule == nil || c.rule.Tool == "" || c.rule.Tool == name {
		cand, text, has = c.given()
	}
	if params == nil {
		if has {
			return text
		}
		return "{}"
	}
	doc := &schemaDoc{root: params}
	field := "tools." + name + ".parameters"
	if has && doc.validate(params, cand, "") == nil {
		c.noteKeywords(field, params)
		return text
	}
	return c.build(field, doc, cand, has)
}

// limits notes where the answer breaks a limit the request set: the stub
// never cuts the bundle's reply, since a cut reply could lose its anchor.
func (c *call) limits(a Answer) {
	n := tokens(a.Text)
	if a.Tool != nil {
		n = tokens(a.Tool.Name) + tokens(a.Tool.Arguments)
	}
	if c.req.Limit > 0 && n > c.req.Limit {
		c.ignore("max_tokens", "the answer is %d tokens, over the limit of %d; it was not cut", n, c.req.Limit)
	}
	for _, stop := range c.req.Stop {
		if stop != "" && strings.Contains(a.Text, stop) {
			c.ignore("stop", "the reply contains the stop sequence %q and was not cut there", stop)
			break
		}
	}
}
