package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
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

// StubLimits bound what one client can take of the HTTP stub (D68): a
// request's header and body must arrive within their timeouts, and at
// most MaxConcurrent requests are served at once. Every refusal is a
// rejected-NNNN line of model-calls.jsonl, as a malformed request's is.
type StubLimits struct {
	HeaderTimeout time.Duration // the request line and headers
	BodyTimeout   time.Duration // the whole body, from the end of the headers
	MaxConcurrent int
}

// DefaultStubLimits are generous for any real client and still end a
// client that sends a byte a minute.
var DefaultStubLimits = StubLimits{HeaderTimeout: 10 * time.Second, BodyTimeout: 30 * time.Second, MaxConcurrent: 32}

func (l StubLimits) normal() StubLimits {
	d := DefaultStubLimits
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = d.HeaderTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = d.BodyTimeout
	}
	if l.MaxConcurrent <= 0 {
		l.MaxConcurrent = d.MaxConcurrent
	}
	return l
}

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
func StubHandler(s *Stub) http.Handler { return newStubHandler(s, DefaultStubLimits) }

func newStubHandler(s *Stub, l StubLimits) *stubHandler {
	l = l.normal()
	return &stubHandler{stub: s, limits: l, slots: make(chan struct{}, l.MaxConcurrent)}
}

type stubHandler struct {
	mu   sync.Mutex
	stub *Stub
	// gets numbers the requests that are not calls, for x-request-id.
	gets   int
	limits StubLimits
	// slots holds one token per request being served.
	slots chan struct{}
	// conns records the open connections, for connState.
	connsMu sync.Mutex
	conns   map[net.Conn]*connRecord
	// closing is set once the server is being closed.
	closing atomic.Bool
}

func (h *stubHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rec, ok := r.Context().Value(connKey{}).(*connRecord); ok {
		rec.served.Store(true)
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		w.Header().Set("Retry-After", "1")
		h.refuse(w, r, "", &badRequest{status: http.StatusTooManyRequests, code: "too_many_requests",
			msg: fmt.Sprintf("the stub serves at most %d requests at once", h.limits.MaxConcurrent)})
		return
	}
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
	// The body has its own deadline: a client that sends its headers and
	// then a byte a minute is refused, not waited for.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.limits.BodyTimeout))
	body, err := readBody(w, r)
	if err != nil {
		h.refuse(w, r, "", h.bodyRefusal(err))
		return
	}
	req, bad := parseChatRequest(body)
	if bad != nil {
		h.refuse(w, r, promptOf(body), bad)
		return
	}
	h.mu.Lock()
	a, err := h.stub.Answer(req.Req)
	hold := h.stub.currentHold()
	h.mu.Unlock()
	var me *sandbox.ModelError
	if errors.As(err, &me) {
		failCall(w, r, me, hold)
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

// errBodyTooLarge is a request body over maxRequestBytes.
var errBodyTooLarge = fmt.Errorf("the request body is over %d bytes", maxRequestBytes)

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	// A body that says it is too large is refused before any of it is
	// read: its answer must not depend on how fast it arrives.
	if r.ContentLength > maxRequestBytes {
		return nil, errBodyTooLarge
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequestBytes)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errBodyTooLarge
		}
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	return buf.Bytes(), nil
}

// bodyRefusal is the answer to a body that could not be read: too large,
// too slow, or cut off.
func (h *stubHandler) bodyRefusal(err error) *badRequest {
	var ne net.Error
	switch {
	case errors.Is(err, errBodyTooLarge):
		return &badRequest{status: http.StatusRequestEntityTooLarge, code: "request_too_large", msg: err.Error()}
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		return &badRequest{status: http.StatusRequestTimeout, code: "request_timeout",
			msg: fmt.Sprintf("the request body did not arrive within %s", h.limits.BodyTimeout)}
	}
	return &badRequest{status: http.StatusBadRequest, code: "bad_body", msg: err.Error()}
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
	h    *stubHandler
	base string
}

func startStubServer(s *Stub) (*stubServer, error) {
	return listenStub(s, "127.0.0.1:0", DefaultStubLimits)
}

// ServeStub serves a stub on addr until close is called; it returns the
// base URL to give clients. Zero limits are the defaults.
func ServeStub(s *Stub, addr string, limits StubLimits) (close func(), base string, err error) {
	srv, err := listenStub(s, addr, limits)
	if err != nil {
		return nil, "", err
	}
	return srv.close, srv.base, nil
}

func listenStub(s *Stub, addr string, limits StubLimits) (*stubServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("stub model: listening on %s: %w", addr, err)
	}
	h := newStubHandler(s, limits)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: h.limits.HeaderTimeout, ConnState: h.connState(),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, h.conn(c))
		}}
	go func() { _ = srv.Serve(ln) }()
	return &stubServer{srv: srv, h: h, base: "http://" + ln.Addr().String() + "/v1"}, nil
}

// connKey carries a connection's record in its requests' contexts.
type connKey struct{}

// connRecord is what the stub knows of one connection: when it opened and
// whether a request of it ever reached the handler.
type connRecord struct {
	opened time.Time
	served atomic.Bool
}

// conn is the record of c, made when the server first sees it.
func (h *stubHandler) conn(c net.Conn) *connRecord {
	h.connsMu.Lock()
	defer h.connsMu.Unlock()
	if h.conns == nil {
		h.conns = map[net.Conn]*connRecord{}
	}
	rec := &connRecord{opened: time.Now()}
	h.conns[c] = rec
	return rec
}

// connState logs the connections the server dropped while waiting for
// their first request's header: net/http refuses a header that takes
// longer than the header timeout itself, before the handler sees anything,
// and it would otherwise leave no trace in model-calls.jsonl. A connection
// that carried a request, or closed sooner (a port probe), or was closed
// because the server stopped, is not a refusal.
func (h *stubHandler) connState() func(net.Conn, http.ConnState) {
	return func(c net.Conn, st http.ConnState) {
		if st != http.StateClosed && st != http.StateHijacked {
			return
		}
		h.connsMu.Lock()
		rec := h.conns[c]
		delete(h.conns, c)
		h.connsMu.Unlock()
		if st == http.StateClosed && rec != nil && !rec.served.Load() && !h.closing.Load() {
			if time.Since(rec.opened) >= h.limits.HeaderTimeout {
				h.mu.Lock()
				_, _ = h.stub.Reject("", sandbox.Rejected{Status: http.StatusRequestTimeout, Code: "header_timeout",
					Message: fmt.Sprintf("no complete request header within %s: the connection was closed", h.limits.HeaderTimeout)})
				h.mu.Unlock()
			}
		}
	}
}

func (s *stubServer) close() {
	s.h.closing.Store(true)
	_ = s.srv.Close()
}
