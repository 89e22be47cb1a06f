package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// StubModelID is the model id the HTTP stub lists and answers as when a
// request names none.
const StubModelID = "amr-stub"

// CallIDHeader carries a completion's call id in the HTTP stub's response.
const CallIDHeader = "X-Amr-Call-Id"

// maxRequestBytes bounds a request body to the HTTP stub.
const maxRequestBytes = 8 << 20

// StubHandler serves a Stub over HTTP in the OpenAI chat-completions shape
// that agent frameworks already speak, under a base path of /v1 or none:
//
//	POST {base}/chat/completions  the completion; the prompt is the message
//	                              contents joined by newlines
//	GET  {base}/models            the one model, for health checks
//	GET  {base}/models/{id}       that model, whatever the id
//
// The call id is the response's id and is also sent in the X-Amr-Call-Id
// header. No key is checked. A bad request gets a 4xx with a JSON error
// body saying what is wrong. Calls are answered one at a time, so call ids
// follow the order in which calls arrive.
func StubHandler(s *Stub) http.Handler { return &stubHandler{stub: s} }

type stubHandler struct {
	mu   sync.Mutex
	stub *Stub
}

func (h *stubHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if rest, ok := strings.CutPrefix(path, "/v1"); ok && (rest == "" || rest[0] == '/') {
		path = rest
	}
	switch {
	case path == "/chat/completions":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			apiError(w, http.StatusMethodNotAllowed, "use POST for /chat/completions")
			return
		}
		h.complete(w, r)
	case path == "/models" || strings.HasPrefix(path, "/models/"):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			apiError(w, http.StatusMethodNotAllowed, "use GET for /models")
			return
		}
		model := map[string]any{"id": StubModelID, "object": "model", "created": 0, "owned_by": "amr"}
		if id, ok := strings.CutPrefix(path, "/models/"); ok {
			model["id"] = id
			writeJSON(w, http.StatusOK, model)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{model}})
	case path == "" || path == "/health" || path == "/healthz":
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "model": StubModelID})
	default:
		apiError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %s %s: the stub serves POST /v1/chat/completions and GET /v1/models", r.Method, r.URL.Path))
	}
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text reads a message's content: a string, null, or a list of parts of
// which the text parts count.
func (m chatMessage) text() (string, error) {
	raw := bytes.TrimSpace(m.Content)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content must be a string or a list of {type, text} parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

func (h *stubHandler) complete(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	if err != nil {
		apiError(w, http.StatusRequestEntityTooLarge, err.Error())
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "the request body is not a chat-completions JSON object: "+err.Error())
		return
	}
	if len(req.Messages) == 0 {
		apiError(w, http.StatusBadRequest, "messages is required: a non-empty list of {role, content}")
		return
	}
	texts := make([]string, 0, len(req.Messages))
	for i, m := range req.Messages {
		t, err := m.text()
		if err != nil {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("messages[%d]: %v", i, err))
			return
		}
		texts = append(texts, t)
	}
	h.mu.Lock()
	c, err := h.stub.Complete(strings.Join(texts, "\n"))
	h.mu.Unlock()
	if err != nil {
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	model := req.Model
	if model == "" {
		model = StubModelID
	}
	w.Header().Set(CallIDHeader, c.CallID)
	if req.Stream {
		streamReply(w, c.CallID, model, c.Text)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": c.CallID, "object": "chat.completion", "created": 0, "model": model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": c.Text},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequestBytes)); err != nil {
		return nil, fmt.Errorf("reading the request body: %v (at most %d bytes)", err, maxRequestBytes)
	}
	return buf.Bytes(), nil
}

// streamReply answers a streaming request with the whole reply in one
// chunk, then the finish chunk and [DONE].
func streamReply(w http.ResponseWriter, id, model, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunk := func(delta map[string]any, finish any) {
		line, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		fmt.Fprintf(w, "data: %s\n\n", line)
	}
	chunk(map[string]any{"role": "assistant", "content": text}, nil)
	chunk(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "code": code,
	}})
}

// stubServer is a loopback HTTP server for one run's stub.
type stubServer struct {
	srv  *http.Server
	base string
}

func startStubServer(s *Stub) (*stubServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stub model: listening on loopback: %w", err)
	}
	srv := &http.Server{Handler: StubHandler(s), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &stubServer{srv: srv, base: "http://" + ln.Addr().String() + "/v1"}, nil
}

func (s *stubServer) close() { _ = s.srv.Close() }
