package sim

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/amr-bench/amr/sim/sandbox"
)

// StubModelID is the model id the HTTP stub lists and answers as when a
// request names none.
const StubModelID = "amr-stub"

// StubAPIKey is the key amr gives a process implementation in
// OPENAI_API_KEY: the official clients refuse to start without one, and a
// real key inherited from amr's own environment must never be used.
const StubAPIKey = "sk-amr-stub-not-a-real-key"

// CallIDHeader carries a completion's call id in the HTTP stub's response.
const CallIDHeader = "X-Amr-Call-Id"

// maxRequestBytes bounds a request body to the HTTP stub.
const maxRequestBytes = 8 << 20

// StubHandler serves a Stub over HTTP in the OpenAI chat-completions shape
// that agent frameworks and the official clients speak, under a base path
// of /v1 or none:
//
//	POST {base}/chat/completions  the completion (docs/processes.md says
//	                              what each request field does)
//	GET  {base}/models            the one model, for health checks
//	GET  {base}/models/{id}       that model, whatever the id
//
// The call id is the response's id and is also sent in the X-Amr-Call-Id
// header; x-request-id is "req_" and the call id. No key is checked. A bad
// request gets a 4xx with OpenAI's error body ({message, type, param,
// code}) and is logged to model-calls.jsonl as rejected. Calls are answered
// one at a time, so call ids follow the order in which calls arrive.
func StubHandler(s *Stub) http.Handler { return &stubHandler{stub: s} }

type stubHandler struct {
	mu   sync.Mutex
	stub *Stub
	// gets numbers the requests that are not calls, for x-request-id.
	gets int
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
			h.refuse(w, r, "", &badRequest{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
				msg: "use POST for /chat/completions"})
			return
		}
		h.complete(w, r)
	case path == "/models" || strings.HasPrefix(path, "/models/"):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			h.refuse(w, r, "", &badRequest{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
				msg: "use GET for /models"})
			return
		}
		h.requestID(w)
		model := map[string]any{"id": StubModelID, "object": "model", "created": 0, "owned_by": "amr"}
		if id, ok := strings.CutPrefix(path, "/models/"); ok {
			model["id"] = id
			writeJSON(w, http.StatusOK, model)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{model}})
	case path == "" || path == "/health" || path == "/healthz":
		h.requestID(w)
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "model": StubModelID})
	default:
		h.refuse(w, r, "", &badRequest{status: http.StatusNotFound, code: "unknown_url",
			msg: fmt.Sprintf("no such endpoint %s %s: the stub serves POST /v1/chat/completions and GET /v1/models", r.Method, r.URL.Path)})
	}
}

func (h *stubHandler) requestID(w http.ResponseWriter) {
	h.mu.Lock()
	h.gets++
	n := h.gets
	h.mu.Unlock()
	w.Header().Set("x-request-id", fmt.Sprintf("req_get-%04d", n))
}

func (h *stubHandler) complete(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	if err != nil {
		h.refuse(w, r, "", &badRequest{status: http.StatusRequestEntityTooLarge, code: "request_too_large", msg: err.Error()})
		return
	}
	req, bad := parseChatRequest(body)
	if bad != nil {
		h.refuse(w, r, promptOf(body), bad)
		return
	}
	h.mu.Lock()
	a, err := h.stub.Answer(req.Req)
	h.mu.Unlock()
	var me *sandbox.ModelError
	if errors.As(err, &me) {
		failCall(w, r, me)
		return
	}
	if err != nil {
		unavailable(w, err)
		return
	}
	model := req.Model
	if model == "" {
		model = StubModelID
	}
	res := newCompletion(req, a)
	w.Header().Set(CallIDHeader, a.CallID)
	w.Header().Set("x-request-id", "req_"+a.CallID)
	if req.Stream {
		streamCompletion(w, model, req, res)
		return
	}
	writeJSON(w, http.StatusOK, res.body(model))
}

// promptOf is what a refused request's messages say, as far as they can
// be read, for its log line.
func promptOf(body []byte) string {
	v, err := parseJSON(body)
	if err != nil {
		return ""
	}
	o, _ := v.(*object)
	list, _ := o.at("messages").([]any)
	var texts []string
	for _, m := range list {
		mo, _ := m.(*object)
		if s, ok := mo.at("content").(string); ok {
			texts = append(texts, s)
		}
	}
	return strings.Join(texts, "\n")
}

// refuse answers a request the stub will not serve with OpenAI's error
// body and logs it; a request from an instance being killed gets 503, as a
// call would.
func (h *stubHandler) refuse(w http.ResponseWriter, r *http.Request, prompt string, bad *badRequest) {
	rej := sandbox.Rejected{Status: bad.status, Code: bad.code, Param: bad.param, Message: bad.msg,
		Request: r.Method + " " + r.URL.Path}
	h.mu.Lock()
	id, err := h.stub.Reject(prompt, rej)
	h.mu.Unlock()
	if err != nil {
		unavailable(w, err)
		return
	}
	w.Header().Set("x-request-id", "req_"+id)
	apiError(w, bad.status, "invalid_request_error", bad.code, bad.param, bad.msg)
}

// unavailable answers a call the stub cannot take. The official clients
// retry a 503 unless told not to; a crashed instance's call must not come
// back as the fresh instance's.
func unavailable(w http.ResponseWriter, err error) {
	w.Header().Set("x-should-retry", "false")
	apiError(w, http.StatusServiceUnavailable, "server_error", "unavailable", "", err.Error())
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequestBytes)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fmt.Errorf("the request body is over %d bytes", maxRequestBytes)
		}
		return nil, fmt.Errorf("reading the request body: %v", err)
	}
	return buf.Bytes(), nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, err := marshalCompact(v)
	if err != nil {
		b = []byte(`{}`)
	}
	_, _ = w.Write(append(b, '\n'))
}

// apiError writes OpenAI's error body: code and param are strings, or null
// when there is none.
func apiError(w http.ResponseWriter, status int, typ, code, param, msg string) {
	var c, p any
	if code != "" {
		c = code
	}
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": p, "code": c,
	}})
}

// stubServer is a loopback HTTP server for one run's stub.
type stubServer struct {
	srv  *http.Server
	base string
}

func startStubServer(s *Stub) (*stubServer, error) {
	return listenStub(s, "127.0.0.1:0")
}

// ServeStub serves a stub on addr until the server is closed; it returns
// the server and the base URL to give clients.
func ServeStub(s *Stub, addr string) (*http.Server, string, error) {
	srv, err := listenStub(s, addr)
	if err != nil {
		return nil, "", err
	}
	return srv.srv, srv.base, nil
}

func listenStub(s *Stub, addr string) (*stubServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("stub model: listening on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: StubHandler(s), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &stubServer{srv: srv, base: "http://" + ln.Addr().String() + "/v1"}, nil
}

func (s *stubServer) close() { _ = s.srv.Close() }
