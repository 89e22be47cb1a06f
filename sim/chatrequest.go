package sim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/amr-bench/amr/sim/sandbox"
)

// chatRequest is a chat-completions request as the HTTP stub reads it.
type chatRequest struct {
	Model  string
	Stream bool
	// IncludeUsage is stream_options.include_usage.
	IncludeUsage bool
	// Legacy is set when the request used functions/function_call: the
	// answer then uses function_call too.
	Legacy bool
	// Texts are the messages' texts, in order.
	Texts []string
	Req   Request
}

// badRequest is a request the stub refuses, in OpenAI's error terms.
type badRequest struct {
	status int
	code   string
	param  string
	msg    string
}

func (e *badRequest) Error() string { return e.msg }

func invalid(param, code, format string, args ...any) *badRequest {
	return &badRequest{status: 400, code: code, param: param, msg: fmt.Sprintf(format, args...)}
}

// What the stub does with each field of a request it does not honour; the
// fields it honours are read below, and these are only noted in the log.
// Bookkeeping fields that change no answer, anywhere, are not noted.
// The two field tables are built at their first use, not at every start
// of amr.
var (
	samplingFields = []string{"temperature", "top_p", "seed", "presence_penalty", "frequency_penalty",
		"logit_bias"}
	quietFields = sync.OnceValue(func() map[string]bool {
		return map[string]bool{"user": true, "metadata": true, "store": true, "service_tier": true,
			"safety_identifier": true, "prompt_cache_key": true, "prompt_cache_retention": true}
	})
	noEffectFields = sync.OnceValue(func() map[string]string {
		return map[string]string{
			"logprobs":           "no log probabilities are returned",
			"top_logprobs":       "no log probabilities are returned",
			"modalities":         "only text is answered",
			"audio":              "only text is answered",
			"prediction":         "a predicted output changes nothing in the stub's answer",
			"web_search_options": "the stub does not search",
			"reasoning_effort":   "the stub does not reason",
			"verbosity":          "the stub's reply is the bundle's, whatever the verbosity",
		}
	})
)

// parseChatRequest reads a request body; every problem is said in the
// request's own terms (field paths, JSON types), never the stub's.
func parseChatRequest(body []byte) (*chatRequest, *badRequest) {
	v, err := parseJSON(body)
	if err != nil {
		return nil, invalid("", "invalid_json", "the request body is not valid JSON: %v", err)
	}
	o, ok := v.(*object)
	if !ok {
		return nil, invalid("", "invalid_json", "the request body must be a JSON object, not %s", article(jsonType(v)))
	}
	r := &chatRequest{}
	steps := []func(*object) *badRequest{r.readModel, r.readMessages, r.readStream, r.readFormat,
		r.readTools, r.readLegacyFunctions, r.readLimits}
	for _, step := range steps {
		if bad := step(o); bad != nil {
			return nil, bad
		}
	}
	r.Req.Prompt = strings.Join(r.Texts, "\n")
	r.noteFields(o)
	return r, nil
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func (r *chatRequest) ignore(field, format string, args ...any) {
	r.Req.Ignored = append(r.Req.Ignored, sandbox.Ignored{Field: field, Detail: fmt.Sprintf(format, args...)})
}

func wrongType(param, want string, got any) *badRequest {
	return invalid(param, "invalid_type", "%s must be %s, not %s", param, want, article(jsonType(got)))
}

func optString(o *object, key string) (string, *badRequest) {
	v, ok := o.get(key)
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", wrongType(key, "a string", v)
	}
	return s, nil
}

func optBool(o *object, key, param string) (bool, *badRequest) {
	v, ok := o.get(key)
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, wrongType(param, "true or false", v)
	}
	return b, nil
}

func (r *chatRequest) readModel(o *object) *badRequest {
	m, bad := optString(o, "model")
	r.Model = m
	return bad
}

func (r *chatRequest) readMessages(o *object) *badRequest {
	v, ok := o.get("messages")
	if !ok || v == nil {
		return invalid("messages", "missing_required_parameter", "messages is required: a non-empty list of {role, content}")
	}
	list, ok := v.([]any)
	if !ok {
		return wrongType("messages", "a list of {role, content}", v)
	}
	if len(list) == 0 {
		return invalid("messages", "empty_array", "messages is required: a non-empty list of {role, content}")
	}
	for i, m := range list {
		text, bad := r.messageText(i, m)
		if bad != nil {
			return bad
		}
		r.Texts = append(r.Texts, text)
	}
	return nil
}

// messageText reads a message: its content (a string, null, or a list of
// parts of which the text parts count), and the arguments of the tool calls
// an assistant message carries, since those are text the request carries.
func (r *chatRequest) messageText(i int, m any) (string, *badRequest) {
	param := fmt.Sprintf("messages[%d]", i)
	mo, ok := m.(*object)
	if !ok {
		return "", wrongType(param, "an object {role, content}", m)
	}
	if _, bad := optString(mo, "role"); bad != nil {
		return "", wrongType(param+".role", "a string", mo.at("role"))
	}
	var b strings.Builder
	switch c := mo.at("content").(type) {
	case nil:
	case string:
		b.WriteString(c)
	case []any:
		for j, p := range c {
			if bad := r.part(&b, fmt.Sprintf("%s.content[%d]", param, j), p); bad != nil {
				return "", bad
			}
		}
	default:
		return "", invalid(param+".content", "invalid_type",
			"%s.content must be a string or a list of content parts ({type: \"text\", text}), not %s", param, article(jsonType(c)))
	}
	calls, _ := mo.at("tool_calls").([]any)
	for _, tc := range calls {
		tco, _ := tc.(*object)
		fn, _ := tco.at("function").(*object)
		if args, ok := fn.at("arguments").(string); ok && args != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(args)
		}
	}
	return b.String(), nil
}

func (r *chatRequest) part(b *strings.Builder, param string, p any) *badRequest {
	po, ok := p.(*object)
	if !ok {
		return wrongType(param, "an object {type, text}", p)
	}
	typ, _ := po.at("type").(string)
	text, isText := po.at("text").(string)
	if typ == "text" || (typ == "" && isText) {
		if !isText {
			return invalid(param+".text", "invalid_type", "%s.text must be a string", param)
		}
		b.WriteString(text)
		return nil
	}
	r.ignore("messages.content", "%s: a %q part is not read; only text parts are", param, typ)
	return nil
}

func (r *chatRequest) readStream(o *object) *badRequest {
	var bad *badRequest
	if r.Stream, bad = optBool(o, "stream", "stream"); bad != nil {
		return bad
	}
	so, ok := o.at("stream_options").(*object)
	if ok {
		if r.IncludeUsage, bad = optBool(so, "include_usage", "stream_options.include_usage"); bad != nil {
			return bad
		}
	}
	return nil
}

func (r *chatRequest) readFormat(o *object) *badRequest {
	v, ok := o.get("response_format")
	if !ok || v == nil {
		return nil
	}
	rf, ok := v.(*object)
	if !ok {
		return wrongType("response_format", "an object {type}", v)
	}
	typ, _ := rf.at("type").(string)
	switch typ {
	case "text":
	case FormatJSONObject:
		r.Req.Format = FormatJSONObject
	case FormatJSONSchema:
		r.Req.Format = FormatJSONSchema
		js, ok := rf.at("json_schema").(*object)
		if !ok {
			return invalid("response_format.json_schema", "missing_required_parameter",
				"response_format.json_schema is required with type json_schema: {name, schema}")
		}
		r.Req.SchemaName, _ = js.at("name").(string)
		if s, ok := js.get("schema"); ok {
			if bad := checkSchemaValue("response_format.json_schema.schema", s); bad != nil {
				return bad
			}
			r.Req.Schema = s
		}
	default:
		return invalid("response_format.type", "invalid_value",
			"response_format.type must be text, json_object or json_schema, not %s", jsonText(rf.at("type")))
	}
	return nil
}

func checkSchemaValue(param string, s any) *badRequest {
	switch s.(type) {
	case *object, bool:
		return nil
	}
	return wrongType(param, "a JSON schema (an object)", s)
}

func (r *chatRequest) readTools(o *object) *badRequest {
	v, ok := o.get("tools")
	if ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			return wrongType("tools", "a list of tools", v)
		}
		for i, t := range list {
			if bad := r.tool(fmt.Sprintf("tools[%d]", i), t); bad != nil {
				return bad
			}
		}
	}
	return r.readToolChoice(o)
}

func (r *chatRequest) tool(param string, t any) *badRequest {
	to, ok := t.(*object)
	if !ok {
		return wrongType(param, "an object {type, function}", t)
	}
	typ, _ := to.at("type").(string)
	if typ != "function" {
		r.ignore("tools", "%s: a %q tool is not offered to the stub; only function tools are", param, typ)
		return nil
	}
	fn, ok := to.at("function").(*object)
	if !ok {
		return invalid(param+".function", "missing_required_parameter", "%s.function is required: {name, parameters}", param)
	}
	name, _ := fn.at("name").(string)
	if name == "" {
		return invalid(param+".function.name", "missing_required_parameter", "%s.function.name is required", param)
	}
	tool := Tool{Name: name}
	if p, ok := fn.get("parameters"); ok && p != nil {
		if bad := checkSchemaValue(param+".function.parameters", p); bad != nil {
			return bad
		}
		tool.Parameters = p
	}
	r.Req.Tools = append(r.Req.Tools, tool)
	return nil
}

func (r *chatRequest) readToolChoice(o *object) *badRequest {
	v, ok := o.get("tool_choice")
	if !ok || v == nil {
		return nil
	}
	choice, bad := toolChoice("tool_choice", v)
	if bad != nil {
		return bad
	}
	return r.setChoice("tool_choice", choice)
}

func toolChoice(param string, v any) (ToolChoice, *badRequest) {
	switch x := v.(type) {
	case string:
		switch x {
		case "auto", "none", "required":
			return ToolChoice{Mode: x}, nil
		}
		return ToolChoice{}, invalid(param, "invalid_value", "%s must be auto, none, required or a named function, not %q", param, x)
	case *object:
		typ, _ := x.at("type").(string)
		switch typ {
		case "function":
			fn, _ := x.at("function").(*object)
			name, _ := fn.at("name").(string)
			if name == "" {
				return ToolChoice{}, invalid(param+".function.name", "missing_required_parameter", "%s.function.name is required", param)
			}
			return ToolChoice{Mode: "function", Name: name}, nil
		case "allowed_tools":
			at, _ := x.at("allowed_tools").(*object)
			mode, _ := at.at("mode").(string)
			if mode != "auto" && mode != "required" {
				return ToolChoice{}, invalid(param+".allowed_tools.mode", "invalid_value", "%s.allowed_tools.mode must be auto or required", param)
			}
			return ToolChoice{Mode: mode}, nil
		}
		return ToolChoice{}, invalid(param+".type", "invalid_value", "%s.type must be function or allowed_tools, not %s", param, jsonText(x.at("type")))
	}
	return ToolChoice{}, wrongType(param, "a string or an object", v)
}

func (r *chatRequest) setChoice(param string, c ToolChoice) *badRequest {
	if c.Mode == "function" && !offers(r.Req, c.Name) {
		return invalid(param, "invalid_value", "%s names the function %q, which the request's tools do not offer", param, c.Name)
	}
	if (c.Mode == "function" || c.Mode == "required") && len(r.Req.Tools) == 0 {
		return invalid(param, "invalid_value", "%s asks for a tool call, but the request offers no tools", param)
	}
	r.Req.Choice = c
	return nil
}

// readLegacyFunctions reads functions/function_call as tools and a choice.
func (r *chatRequest) readLegacyFunctions(o *object) *badRequest {
	v, ok := o.get("functions")
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return wrongType("functions", "a list of functions", v)
	}
	r.Legacy = true
	for i, f := range list {
		wrapped := newObject()
		wrapped.set("type", "function")
		wrapped.set("function", f)
		if bad := r.tool(fmt.Sprintf("functions[%d]", i), wrapped); bad != nil {
			return bad
		}
	}
	fc, ok := o.get("function_call")
	if !ok || fc == nil {
		return nil
	}
	var choice ToolChoice
	switch x := fc.(type) {
	case string:
		if x != "auto" && x != "none" {
			return invalid("function_call", "invalid_value", "function_call must be auto, none or {name}, not %q", x)
		}
		choice.Mode = x
	case *object:
		name, _ := x.at("name").(string)
		if name == "" {
			return invalid("function_call.name", "missing_required_parameter", "function_call.name is required")
		}
		choice = ToolChoice{Mode: "function", Name: name}
	default:
		return wrongType("function_call", "a string or an object {name}", fc)
	}
	return r.setChoice("function_call", choice)
}

func (r *chatRequest) readLimits(o *object) *badRequest {
	for _, key := range []string{"max_tokens", "max_completion_tokens"} {
		v, ok := o.get(key)
		if !ok || v == nil {
			continue
		}
		n, isNum := v.(json.Number)
		i, err := n.Int64()
		if !isNum || err != nil || i < 1 {
			return invalid(key, "invalid_value", "%s must be a positive integer", key)
		}
		r.Req.Limit = int(i)
	}
	switch s := o.at("stop").(type) {
	case string:
		r.Req.Stop = []string{s}
	case []any:
		for _, e := range s {
			if str, ok := e.(string); ok {
				r.Req.Stop = append(r.Req.Stop, str)
			}
		}
	}
	if n, ok := o.at("n").(json.Number); ok && n.String() != "1" {
		r.ignore("n", "n=%s: one choice is returned", n)
	}
	return nil
}

// noteFields notes the fields the stub does not honour, in a fixed order.
func (r *chatRequest) noteFields(o *object) {
	read := map[string]bool{"model": true, "messages": true, "stream": true, "stream_options": true,
		"response_format": true, "tools": true, "tool_choice": true, "parallel_tool_calls": true,
		"functions": true, "function_call": true, "max_tokens": true, "max_completion_tokens": true,
		"stop": true, "n": true}
	for _, f := range samplingFields {
		if v, ok := o.get(f); ok && v != nil {
			r.ignore(f, "%s=%s: the stub's answer does not depend on sampling", f, jsonText(v))
		}
		read[f] = true
	}
	var unknown []string
	for _, k := range o.keys {
		if why, ok := noEffectFields()[k]; ok {
			if v := o.vals[k]; v != nil && v != false {
				r.ignore(k, "%s", why)
			}
			continue
		}
		if !read[k] && !quietFields()[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		r.ignore(k, "not a chat-completions field the stub knows")
	}
}
