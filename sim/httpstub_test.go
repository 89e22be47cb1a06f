package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

func stubServerFor(t *testing.T, m scenarios.Model) (*httptest.Server, *sandbox.Memory) {
	t.Helper()
	mem := sandbox.NewMemory()
	srv := httptest.NewServer(StubHandler(NewStub(m, mem, func() int { return 7 })))
	t.Cleanup(srv.Close)
	return srv, mem
}

var testModel = scenarios.Model{Anchors: []string{"ORD-1", "ORD-2"}, Reply: "about {{anchor}} ({{call_id}})", ReplyNoAnchor: "which order?"}

func post(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(data, &out), string(data))
	}
	return resp, out
}

func TestStubOverHTTPAnswersLikeTheInProcessStub(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	resp, out := post(t, srv.URL+"/v1/chat/completions",
		`{"model":"gpt-whatever","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"my order ORD-2 "},{"type":"image_url","image_url":{}}]}]}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "call-0001", out["id"])
	assert.Equal(t, "call-0001", resp.Header.Get(CallIDHeader))
	assert.Equal(t, "gpt-whatever", out["model"])
	choice := out["choices"].([]any)[0].(map[string]any)
	assert.Equal(t, "about ORD-2 (call-0001)", choice["message"].(map[string]any)["content"])

	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 1)
	assert.Equal(t, sandbox.ModelCall{CallID: "call-0001", At: 7, Prompt: "be brief\nmy order ORD-2 ", Anchor: "ORD-2",
		Reply: "about ORD-2 (call-0001)", Ignored: []sandbox.Ignored{{Field: "messages.content",
			Detail: `messages[1].content[1]: a "image_url" part is not read; only text parts are`}}}, calls[0].Rec)

	// Without /v1, and a second call gets the next id.
	_, out = post(t, srv.URL+"/chat/completions", `{"messages":[{"role":"user","content":"hello"}]}`)
	assert.Equal(t, "call-0002", out["id"])
	assert.Equal(t, StubModelID, out["model"])
}

func TestStubHealthAndModels(t *testing.T) {
	srv, _ := stubServerFor(t, testModel)
	for _, path := range []string{"/v1/models", "/models", "/v1/models/gpt-4o", "/v1", "/health"} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
}

func TestStubRefusesBadRequestsClearly(t *testing.T) {
	srv, mem := stubServerFor(t, testModel)
	for _, c := range []struct {
		name, method, path, body string
		code                     int
		msg, errCode             string
		param                    any
	}{
		{"not json", "POST", "/v1/chat/completions", "{nope", 400, "not valid JSON", "invalid_json", nil},
		{"not an object", "POST", "/v1/chat/completions", "[1]", 400, "must be a JSON object, not an array", "invalid_json", nil},
		{"no messages", "POST", "/v1/chat/completions", `{"model":"x"}`, 400, "messages is required", "missing_required_parameter", "messages"},
		{"bad content", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":42}]}`, 400,
			"messages[0].content must be a string or a list of content parts", "invalid_type", "messages[0].content"},
		{"model not a string", "POST", "/v1/chat/completions", `{"model":7,"messages":[{"role":"user","content":"x"}]}`, 400,
			"model must be a string, not a number", "invalid_type", "model"},
		{"unknown format", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"yaml"}}`,
			400, "response_format.type must be", "invalid_value", "response_format.type"},
		{"tool not offered", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"function","function":{"name":"f"}}}`,
			400, "do not offer", "invalid_value", "tool_choice"},
		{"wrong method", "GET", "/v1/chat/completions", "", 405, "use POST", "method_not_allowed", nil},
		{"unknown path", "GET", "/v1/embeddings", "", 404, "no such endpoint", "unknown_url", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, c.code, resp.StatusCode)
			var out struct {
				Error map[string]any `json:"error"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
			assert.Contains(t, out.Error["message"], c.msg)
			assert.Equal(t, c.errCode, out.Error["code"], "code is a string")
			assert.Equal(t, c.param, out.Error["param"], "param is the field, or null")
			assert.Equal(t, "invalid_request_error", out.Error["type"])
			assert.NotContains(t, out.Error["message"], "Go ", "no Go type names")
			assert.NotContains(t, out.Error["message"], "struct", "no Go type names")
			assert.Regexp(t, `^req_rejected-\d{4}$`, resp.Header.Get("x-request-id"))
		})
	}
	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 9, "every refused request is logged")
	for i, l := range calls {
		assert.Equal(t, fmt.Sprintf("rejected-%04d", i+1), l.Rec.CallID)
		require.NotNil(t, l.Rec.Rejected)
	}
	assert.Equal(t, sandbox.Rejected{Status: 404, Code: "unknown_url", Message: "no such endpoint GET /v1/embeddings: the stub serves POST /v1/chat/completions and GET /v1/models",
		Request: "GET /v1/embeddings"}, *calls[8].Rec.Rejected)
	stats := sandbox.SummarizeModelCalls(mem.View(sandbox.ModelCalls))
	assert.Equal(t, sandbox.ModelCallStats{Rejected: 9}, stats)
}

func TestStubStreams(t *testing.T) {
	srv, _ := stubServerFor(t, testModel)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"ORD-1"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var text strings.Builder
	var done bool
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var chunk struct {
			ID      string `json:"id"`
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &chunk))
		assert.Equal(t, "call-0001", chunk.ID)
		text.WriteString(chunk.Choices[0].Delta.Content)
	}
	assert.True(t, done)
	assert.Equal(t, "about ORD-1 (call-0001)", text.String())
}

func TestHTTPModelIsASandboxModel(t *testing.T) {
	srv, _ := stubServerFor(t, testModel)
	var m sandbox.Model = &HTTPModel{BaseURL: srv.URL + "/v1/"}
	c, err := m.Complete("where is ORD-1?")
	require.NoError(t, err)
	assert.Equal(t, sandbox.Completion{CallID: "call-0001", Text: "about ORD-1 (call-0001)"}, c)
	_, err = (&HTTPModel{BaseURL: srv.URL + "/nowhere"}).Complete("x")
	assert.ErrorContains(t, err, "404")
}

func TestJSONReplyTemplatesStayJSON(t *testing.T) {
	m := scenarios.Model{Anchors: []string{`ORD "7"\x`}, Reply: `{"reply": "order {{anchor}}", "origin": "{{call_id}}"}`,
		ReplyNoAnchor: `{"reply": "which order?", "origin": "{{call_id}}"}`}
	got := Reply(m, `ORD "7"\x`, "call-0003")
	var v struct{ Reply, Origin string }
	require.NoError(t, json.Unmarshal([]byte(got), &v), got)
	assert.Equal(t, `order ORD "7"\x`, v.Reply)
	assert.Equal(t, "call-0003", v.Origin)
	// A plain-text template is substituted as is.
	assert.Equal(t, `re ORD "7"\x`, Reply(scenarios.Model{Reply: "re {{anchor}}"}, `ORD "7"\x`, "c"))
}

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"amr serve-impl reference", []string{"amr", "serve-impl", "reference"}},
		{`python3  "my dir/impl.py"   --flag='a b'`, []string{"python3", "my dir/impl.py", "--flag=a b"}},
		{`a\ b "" c`, []string{"a b", "", "c"}},
		{`x 'it'\''s'`, []string{"x", "it's"}},
		{`"a\b" "a\"b" 'a\b'`, []string{`a\b`, `a"b`, `a\b`}},
	} {
		got, err := SplitCommand(c.line)
		require.NoError(t, err, c.line)
		assert.Equal(t, c.want, got, c.line)
	}
	for _, bad := range []string{"", "   ", `a "b`, `a 'b`, `a\`} {
		_, err := SplitCommand(bad)
		assert.Error(t, err, bad)
	}
}

func TestJoinCommandRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.SliceOfN(rapid.String(), 1, 5).Draw(t, "words")
		got, err := SplitCommand(JoinCommand(words))
		if err != nil {
			t.Fatalf("%q: %v", JoinCommand(words), err)
		}
		if strings.Join(got, "\x00") != strings.Join(words, "\x00") || len(got) != len(words) {
			t.Fatalf("%q -> %q -> %q", words, JoinCommand(words), got)
		}
	})
}

func TestHTTPModelSaysWhatCameBack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id": 7, "choices": "no"}`))
	}))
	defer srv.Close()
	_, err := (&HTTPModel{BaseURL: srv.URL}).Complete("x")
	require.Error(t, err)
	assert.Equal(t, `model: the reply is not a chat completion {id, choices: [{message: {content}}]}: "{\"id\": 7, \"choices\": \"no\"}"`, err.Error())
	assert.NotContains(t, err.Error(), "Go ")
}
