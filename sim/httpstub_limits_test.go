package sim

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// limitedStub serves testModel with small limits on a real listener, as a
// run serves it to a process.
func limitedStub(t *testing.T, l StubLimits) (addr string, mem *sandbox.Memory) {
	t.Helper()
	mem = sandbox.NewMemory()
	srv, err := listenStub(NewStub(testModel, mem, func() int { return 2 }), "127.0.0.1:0", l)
	require.NoError(t, err)
	t.Cleanup(srv.close)
	return strings.TrimSuffix(strings.TrimPrefix(srv.base, "http://"), "/v1"), mem
}

// rejections are the refusal codes the stub logged, in order.
func rejections(t *testing.T, mem *sandbox.Memory) []string {
	t.Helper()
	data, _ := mem.Read(sandbox.ModelCalls)
	calls, errs := sandbox.ParseModelCalls(data)
	require.Empty(t, errs)
	var out []string
	for _, c := range calls {
		if c.Rec.Rejected != nil {
			out = append(out, fmt.Sprintf("%s %d %s", c.Rec.CallID, c.Rec.Rejected.Status, c.Rec.Rejected.Code))
		}
	}
	return out
}

// slowRequest sends a request's header and the first bytes of a body it
// says is longer, then sends nothing more.
func slowRequest(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"messages\":")
	require.NoError(t, err)
	return c
}

func TestStubRefusesASlowBody(t *testing.T) {
	addr, mem := limitedStub(t, StubLimits{BodyTimeout: 200 * time.Millisecond})
	c := slowRequest(t, addr)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "the stub answers a slow body instead of waiting for it")
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.Equal(t, []string{"rejected-0001 408 request_timeout"}, rejections(t, mem))
}

func TestStubRefusesASlowHeaderAndLogsIt(t *testing.T) {
	addr, mem := limitedStub(t, StubLimits{HeaderTimeout: 200 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost:")
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, _ = io.ReadAll(c) // the server closes the connection
	deadline := time.Now().Add(5 * time.Second)
	for len(rejections(t, mem)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, []string{"rejected-0001 408 header_timeout"}, rejections(t, mem))
}

func TestStubDoesNotLogAQuickProbe(t *testing.T) {
	addr, mem := limitedStub(t, StubLimits{HeaderTimeout: 2 * time.Second})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	c.Close()
	resp, err := http.Get("http://" + addr + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond)
	assert.Empty(t, rejections(t, mem), "a connection closed at once, or one that carried a request, is no refusal")
}

func TestStubCapsConcurrentRequests(t *testing.T) {
	addr, mem := limitedStub(t, StubLimits{MaxConcurrent: 1, BodyTimeout: 3 * time.Second})
	deadline := time.Now().Add(10 * time.Second)
	var resp *http.Response
	for time.Now().Before(deadline) {
		// A slow request holds the one slot until its body times out, once
		// the stub has read its header; a request that came first takes
		// the slot instead and is answered, and then another slow one is
		// sent, so the test does not depend on which the stub read first.
		slowRequest(t, addr)
		time.Sleep(20 * time.Millisecond)
		r, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"ORD-1"}]}`))
		require.NoError(t, err)
		r.Body.Close()
		if r.StatusCode == http.StatusTooManyRequests {
			resp = r
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NotNil(t, resp, "a request over the cap is refused")
	// Logged among the refusals: a slow request's body timeout (408) may
	// come after it.
	got := rejections(t, mem)
	assert.True(t, slices.ContainsFunc(got, func(r string) bool { return strings.Contains(r, "429 too_many_requests") }),
		"the refusal is logged: %v", got)
}

func TestStubRefusesABodyTooLarge(t *testing.T) {
	addr, mem := limitedStub(t, StubLimits{})
	body := strings.NewReader(`{"messages":"` + strings.Repeat("x", maxRequestBytes) + `"}`)
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.Equal(t, []string{"rejected-0001 413 request_too_large"}, rejections(t, mem))
}
