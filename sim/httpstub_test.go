package sim

import (
	"bufio"
	"encoding/json"
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
		Reply: "about ORD-2 (call-0001)"}, calls[0].Rec)

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
		msg                      string
	}{
		{"not json", "POST", "/v1/chat/completions", "{nope", 400, "not a chat-completions JSON object"},
		{"no messages", "POST", "/v1/chat/completions", `{"model":"x"}`, 400, "messages is required"},
		{"bad content", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":42}]}`, 400, "messages[0]"},
		{"wrong method", "GET", "/v1/chat/completions", "", 405, "use POST"},
		{"unknown path", "GET", "/v1/embeddings", "", 404, "no such endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, c.code, resp.StatusCode)
			var out struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
			assert.Contains(t, out.Error.Message, c.msg)
		})
	}
	assert.Empty(t, mem.View(sandbox.ModelCalls), "a refused request is not a call")
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
