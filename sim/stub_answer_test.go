package sim

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

var rulesBundle = &scenarios.Bundle{
	Model: scenarios.Model{
		Anchors: []string{"ORD-1", "ORD-2"}, Reply: "Order {{anchor}} ships.", ReplyNoAnchor: "Which order?",
		Replies: []scenarios.ReplyRule{
			{ID: "review", When: scenarios.ReplyWhen{Schema: "review"},
				JSON: json.RawMessage(`{"verdict": "approve", "about": "{{anchor}}", "call": "{{call_id}}"}`)},
			{ID: "send", When: scenarios.ReplyWhen{Tool: "send_reply"}, Tool: "send_reply",
				JSON: json.RawMessage(`{"to": "{{sender}}", "body": "Re {{anchor}}: ships."}`)},
			{ID: "greeting", When: scenarios.ReplyWhen{Contains: "Say hello"},
				Reply: "Hello {{sender}} ({{participants}})", ReplyNoAnchor: "Hello {{sender}}, no order"},
			{ID: "nested", When: scenarios.ReplyWhen{Contains: "nested please"},
				Reply: `{"content": "{\"inner\": \"{{anchor}} {{sender}}\"}"}`},
		},
	},
	Inbox: []scenarios.Delivery{
		{ID: "m2", From: "dave@example.com", At: 5},
		{ID: "m1", From: "Carol@Example.com", At: 1},
		{ID: "m3", From: "carol@example.com", At: 9},
	},
}

func answerOf(t *testing.T, srv *httptest.Server, body string) (int, map[string]any) {
	t.Helper()
	resp, out := post(t, srv.URL+"/v1/chat/completions", body)
	return resp.StatusCode, out
}

func rulesServer(t *testing.T) (*httptest.Server, *sandbox.Memory) {
	t.Helper()
	mem := sandbox.NewMemory()
	srv := httptest.NewServer(StubHandler(NewBundleStub(rulesBundle, mem, func() int { return 4 })))
	t.Cleanup(srv.Close)
	return srv, mem
}

func message(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	choices, ok := out["choices"].([]any)
	require.True(t, ok, "%v", out)
	return choices[0].(map[string]any)["message"].(map[string]any)
}

func lastCall(t *testing.T, mem *sandbox.Memory) sandbox.ModelCall {
	t.Helper()
	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.NotEmpty(t, calls)
	return calls[len(calls)-1].Rec
}

func TestReplyRulesAnswerEachKindOfCall(t *testing.T) {
	srv, mem := rulesServer(t)

	// A review call asks for its own schema and gets the rule's object.
	code, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"review the draft for ORD-2"}],
		"response_format":{"type":"json_schema","json_schema":{"name":"review","schema":{"type":"object",
		"properties":{"verdict":{"enum":["approve","reject"]},"about":{"type":"string"},"call":{"type":"string"}},
		"required":["verdict","about","call"],"additionalProperties":false}}}}`)
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"verdict":"approve","about":"ORD-2","call":"call-0001"}`, message(t, out)["content"].(string))
	rec := lastCall(t, mem)
	assert.Equal(t, "review", rec.Kind)
	assert.Equal(t, "json_schema", rec.Format)

	// The tool rule fills the sender the prompt carries (the bundle's
	// spelling, the first sender in delivery order).
	_, out = answerOf(t, srv, `{"messages":[{"role":"user","content":"From: carol@example.com\nwhere is ORD-1?"}],
		"tools":[{"type":"function","function":{"name":"send_reply","parameters":{"type":"object",
		"properties":{"to":{"type":"string"},"body":{"type":"string"}},"required":["to","body"]}}}]}`)
	calls := message(t, out)["tool_calls"].([]any)
	require.Len(t, calls, 1)
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	assert.Equal(t, "send_reply", fn["name"])
	assert.JSONEq(t, `{"to":"Carol@Example.com","body":"Re ORD-1: ships."}`, fn["arguments"].(string))
	assert.Equal(t, "tool_calls", out["choices"].([]any)[0].(map[string]any)["finish_reason"])
	rec = lastCall(t, mem)
	assert.Equal(t, "send", rec.Kind)
	assert.Equal(t, []sandbox.ToolCall{{Name: "send_reply", Arguments: fn["arguments"].(string)}}, rec.ToolCalls)

	// A phrase selects the greeting; participants are every sender carried.
	_, out = answerOf(t, srv, `{"messages":[{"role":"user","content":"Say hello to dave@example.com and carol@example.com about ORD-1"}]}`)
	assert.Equal(t, "Hello Carol@Example.com (Carol@Example.com, dave@example.com)", message(t, out)["content"])
	_, out = answerOf(t, srv, `{"messages":[{"role":"user","content":"Say hello, dave@example.com"}]}`)
	assert.Equal(t, "Hello dave@example.com, no order", message(t, out)["content"])

	// A sender the prompt does not carry is not echoed.
	_, out = answerOf(t, srv, `{"messages":[{"role":"user","content":"Say hello about ORD-2"}]}`)
	assert.Equal(t, "Hello  ()", message(t, out)["content"])

	// No rule matches: the bundle's reply, as always.
	_, out = answerOf(t, srv, `{"messages":[{"role":"user","content":"ORD-2?"}]}`)
	assert.Equal(t, "Order ORD-2 ships.", message(t, out)["content"])
	assert.Empty(t, lastCall(t, mem).Kind)
}

func TestTemplatesStayJSONAtEveryDepth(t *testing.T) {
	srv, _ := rulesServer(t)
	// The sender and the anchor hold characters that break JSON unescaped.
	b := *rulesBundle
	b.Model.Anchors = []string{`ORD "1"\`}
	b.Inbox = []scenarios.Delivery{{ID: "m1", From: `"Eve" <eve@x>`, At: 0}}
	mem := sandbox.NewMemory()
	srv = httptest.NewServer(StubHandler(NewBundleStub(&b, mem, func() int { return 0 })))
	defer srv.Close()
	_, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"nested please: ORD \"1\"\\ from \"Eve\" <eve@x>"}]}`)
	text := message(t, out)["content"].(string)
	var outer struct{ Content string }
	require.NoError(t, json.Unmarshal([]byte(text), &outer), text)
	var inner struct{ Inner string }
	require.NoError(t, json.Unmarshal([]byte(outer.Content), &inner), outer.Content)
	assert.Equal(t, `ORD "1"\ "Eve" <eve@x>`, inner.Inner)

	for _, c := range []struct{ tmpl, want string }{
		{`plain {{anchor}}`, `plain a"b`},
		{`{"a": "{{anchor}}", "n": 1}`, `{"a": "a\"b", "n": 1}`},
		{`["{{anchor}}", "x\u00e9"]`, `["a\"b", "x\u00e9"]`},
		{`{"a": "{\"b\": \"{\\\"c\\\": \\\"{{anchor}}\\\"}\"}"}`, `{"a": "{\"b\": \"{\\\"c\\\": \\\"a\\\\\\\"b\\\"}\"}"}`},
	} {
		got := renderTemplate(c.tmpl, fill{anchor: `a"b`})
		assert.Equal(t, c.want, got, c.tmpl)
	}
}

func TestJSONObjectMapsAProseReply(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	_, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"hello"}],"response_format":{"type":"json_object"}}`)
	assert.JSONEq(t, `{"reply":"which order?","call_id":"call-0001"}`, message(t, out)["content"].(string))
	assert.Equal(t, "json_object", lastCall(t, mem).Format)
	// A JSON-text reply is the object itself.
	m := scenarios.Model{Anchors: []string{"A"}, Reply: `{"text": "about {{anchor}}"}`, ReplyNoAnchor: "?"}
	srv2, _ := stubServerFor(t, m)
	_, out = answerOf(t, srv2, `{"messages":[{"role":"user","content":"A"}],"response_format":{"type":"json_object"}}`)
	assert.Equal(t, `{"text": "about A"}`, message(t, out)["content"])
}

func TestIgnoredFeaturesAreLogged(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	code, _ := answerOf(t, srv, `{"messages":[{"role":"user","content":"ORD-1"}],"temperature":0.2,"seed":7,"n":2,
		"max_tokens":1,"stop":["ships"],"logprobs":true,"user":"u1","metadata":{"a":"b"},"frobnicate":true,
		"tools":[{"type":"custom","custom":{"name":"c"}}]}`)
	require.Equal(t, http.StatusOK, code)
	fields := map[string]string{}
	for _, ig := range lastCall(t, mem).Ignored {
		fields[ig.Field] = ig.Detail
	}
	assert.Equal(t, map[string]string{
		"temperature": "temperature=0.2: the stub's answer does not depend on sampling",
		"seed":        "seed=7: the stub's answer does not depend on sampling",
		"n":           "n=2: one choice is returned",
		"max_tokens":  "the answer is 6 tokens, over the limit of 1; it was not cut",
		"logprobs":    "no log probabilities are returned",
		"frobnicate":  "not a chat-completions field the stub knows",
		"tools":       `tools[0]: a "custom" tool is not offered to the stub; only function tools are`,
	}, fields, "user and metadata change no answer and are not noted")

	stats := sandbox.SummarizeModelCalls(mem.View(sandbox.ModelCalls))
	assert.Equal(t, 1, stats.Calls)
	assert.Equal(t, []string{"frobnicate", "logprobs", "max_tokens", "n", "seed", "temperature", "tools"}, stats.IgnoredFields())

	// A plain request notes nothing, so its line is what it always was.
	_, _ = answerOf(t, srv, `{"model":"m","messages":[{"role":"user","content":"ORD-1"}],"stream":false}`)
	line := lastCall(t, mem)
	assert.Nil(t, line.Ignored)
	data := mem.View(sandbox.ModelCalls)
	assert.Contains(t, string(data), `{"call_id":"call-0002","at":7,"prompt":"ORD-1","anchor":"ORD-1","reply":"about ORD-1 (call-0002)"}`)
}

func TestStopSequenceInTheReplyIsNoted(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	_, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"ORD-1"}],"stop":"ORD"}`)
	assert.Equal(t, "about ORD-1 (call-0001)", message(t, out)["content"], "the reply is never cut")
	assert.Equal(t, []sandbox.Ignored{{Field: "stop", Detail: `the reply contains the stop sequence "ORD" and was not cut there`}},
		lastCall(t, mem).Ignored)
}

func TestToolChoiceDecidesWhetherAToolIsCalled(t *testing.T) {
	tools := `"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{"reply":{"type":"string"}}}}},
		{"type":"function","function":{"name":"b"}}]`
	for _, c := range []struct {
		choice, wantTool string
	}{
		{``, ""},
		{`,"tool_choice":"auto"`, ""},
		{`,"tool_choice":"none"`, ""},
		{`,"tool_choice":"required"`, "a"},
		{`,"tool_choice":{"type":"function","function":{"name":"b"}}`, "b"},
		{`,"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[]}}`, "a"},
	} {
		srv, _ := stubServerFor(t, testModel)
		code, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"ORD-1"}],`+tools+c.choice+`}`)
		require.Equal(t, http.StatusOK, code, c.choice)
		msg := message(t, out)
		if c.wantTool == "" {
			assert.Equal(t, "about ORD-1 (call-0001)", msg["content"], c.choice)
			assert.Nil(t, msg["tool_calls"], c.choice)
			continue
		}
		calls := msg["tool_calls"].([]any)
		call := calls[0].(map[string]any)
		assert.Equal(t, "call-0001", call["id"])
		fn := call["function"].(map[string]any)
		assert.Equal(t, c.wantTool, fn["name"], c.choice)
		if c.wantTool == "a" {
			assert.JSONEq(t, `{"reply":"about ORD-1 (call-0001)"}`, fn["arguments"].(string))
		} else {
			assert.Equal(t, "{}", fn["arguments"], "a tool without parameters takes none")
		}
	}
}

func TestLegacyFunctionCall(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	_, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"ORD-2"}],
		"functions":[{"name":"f","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}],
		"function_call":{"name":"f"}}`)
	choice := out["choices"].([]any)[0].(map[string]any)
	assert.Equal(t, "function_call", choice["finish_reason"])
	fc := message(t, out)["function_call"].(map[string]any)
	assert.Equal(t, "f", fc["name"])
	assert.JSONEq(t, `{"text":"about ORD-2 (call-0001)"}`, fc["arguments"].(string))
	assert.Equal(t, "tool_call", lastCall(t, mem).Format)
}

func TestUsageIsDeterministicAndCountsTheText(t *testing.T) {
	srv, _ := stubServerFor(t, testModel)
	body := `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"ORD-1"}]}`
	_, a := answerOf(t, srv, body)
	_, b := answerOf(t, srv, body)
	// "be brief" is 2 tokens, "ORD-1" 2; 4 per message and 3 for the reply.
	want := map[string]any{"prompt_tokens": 15.0, "completion_tokens": 6.0, "total_tokens": 21.0,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 0.0, "audio_tokens": 0.0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0.0, "audio_tokens": 0.0}}
	assert.Equal(t, want, a["usage"])
	assert.Equal(t, a["usage"], b["usage"])
}

func TestSchemaTheStubCannotMeetIsNoted(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	code, out := answerOf(t, srv, `{"messages":[{"role":"user","content":"ORD-1"}],"response_format":{"type":"json_schema",
		"json_schema":{"name":"x","schema":{"type":"object","properties":{"id":{"type":"string","pattern":"^[0-9]{3}$"}},
		"required":["id"],"if":{"required":["id"]}}}}}`)
	require.Equal(t, http.StatusOK, code)
	assert.True(t, json.Valid([]byte(message(t, out)["content"].(string))))
	ig := lastCall(t, mem).Ignored
	require.Len(t, ig, 2)
	assert.Equal(t, "response_format.json_schema", ig[0].Field)
	assert.Contains(t, ig[0].Detail, "keywords the stub does not check: if")
	assert.Contains(t, ig[1].Detail, `could not build a value the schema accepts: $.id: does not match "^[0-9]{3}$"`)
}

func TestStreamedToolCallAndUsage(t *testing.T) {
	srv, _ := stubServerFor(t, testModel)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", stringsReader(
		`{"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"ORD-1"}],
		"tools":[{"type":"function","function":{"name":"t"}}],"tool_choice":"required"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	chunks := readChunks(t, resp)
	require.Len(t, chunks, 4)
	first := chunks[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
	tc := first["tool_calls"].([]any)[0].(map[string]any)
	assert.Equal(t, 0.0, tc["index"])
	assert.Equal(t, "call-0001", tc["id"])
	assert.Equal(t, "tool_calls", chunks[2]["choices"].([]any)[0].(map[string]any)["finish_reason"])
	assert.Empty(t, chunks[3]["choices"])
	assert.NotNil(t, chunks[3]["usage"])
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// readChunks reads a server-sent event stream up to [DONE].
func readChunks(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &chunk), data)
		out = append(out, chunk)
	}
	return out
}
