package hostile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stubArgs serves the bundle's stub with limits small enough for a test.
var stubArgs = []string{"stub", "b", "--dir", "calls", "--header-timeout", "300ms", "--body-timeout", "300ms", "--max-concurrent", "2"}

// client is one hostile client of the stub: it talks to addr and returns
// the HTTP status it got (0: the connection was closed without one).
type client func(t *testing.T, addr string) int

func raw(request string) client {
	return func(t *testing.T, addr string) int {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		// The request is written while the answer is read: a server may
		// answer (413) before it has read a body it refuses, and then
		// stop reading, so a write error is no failure of the case.
		go io.WriteString(c, request)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
}

func post(body string) string {
	return fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// overCap holds both slots with slow bodies and sends a third request.
func overCap(t *testing.T, addr string) int {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")(t, addr)
		}()
	}
	time.Sleep(100 * time.Millisecond)
	code := raw(post(`{"messages":[{"role":"user","content":"hi"}]}`))(t, addr)
	wg.Wait()
	return code
}

var stubClients = []struct {
	name, input string
	client      client
	status      int
	logged      string // the refusal code model-calls.jsonl must hold
}{
	{"slow body", "headers, then a body that stops", raw("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"mess"), 408, "request_timeout"},
	{"slow header", "a request line and half a header, then nothing", raw("POST /v1/chat/completions HTTP/1.1\r\nHost:"), 0, "header_timeout"},
	{"over the cap", "a third request while two slow ones hold both slots", overCap, 429, "too_many_requests"},
	{"body too large", "a body of 9 MB", raw(post(`{"messages":"` + strings.Repeat("x", 9<<20) + `"}`)), 413, "request_too_large"},
	{"not JSON", "a body that is not JSON", raw(post("not json")), 400, "invalid_json"},
	{"deep JSON", "10^5 nested arrays as the body", raw(post(string(deep("[", "]", 100_000)))), 400, "invalid_json"},
	{"wrong method", "GET /v1/chat/completions", raw("GET /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 405, "method_not_allowed"},
	{"unknown path", "POST /v1/embeddings", raw("POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"), 404, "unknown_url"},
}

func stubCases() []hostileCase {
	var out []hostileCase
	for _, c := range stubClients {
		c := c
		out = append(out, hostileCase{area: "stub", name: c.name, input: c.input + " (then SIGTERM)", args: stubArgs,
			exit: 143, want: `"code":"` + c.logged + `"`,
			drive: func(t *testing.T, w *world) result { return hostileClient(t, w, c.client, c.status) }})
	}
	return out
}

// hostileClient starts the stub, lets the client at it, checks the
// status it got, stops the stub and returns its result with the stub's
// log appended to its output, where the case's message is looked for.
func hostileClient(t *testing.T, w *world, cl client, status int) result {
	ctx, cancel := context.WithTimeout(context.Background(), caseDeadline)
	defer cancel()
	c, _, _ := w.command(ctx, stubArgs...)
	var out, errb syncBuffer
	c.Stdout, c.Stderr = &out, &errb
	require.NoError(t, c.Start())
	waitFor(ctx, "OPENAI_BASE_URL=", 0, out.String)
	line := out.String()
	_, rest, ok := strings.Cut(line, "OPENAI_BASE_URL=http://")
	require.True(t, ok, "the stub printed no URL: %s", line)
	addr, _, _ := strings.Cut(rest, "/v1")
	got := cl(t, addr)
	require.Equal(t, status, got, "HTTP status")
	// The refusal is logged by the time the client has its answer, or,
	// for a dropped connection, shortly after.
	logged := func() string { data, _ := os.ReadFile(w.path("calls/model-calls.jsonl")); return string(data) }
	for i := 0; i < 100 && !strings.Contains(logged(), "rejected-"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, c.Process.Signal(syscall.SIGTERM))
	err := c.Wait()
	r := result{stdout: out.String() + logged(), stderr: errb.String(), code: exitCode(err), timedOut: ctx.Err() != nil}
	w.noLeftovers(t, c.Process.Pid)
	return r
}
