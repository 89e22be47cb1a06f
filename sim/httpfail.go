package sim

import (
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// TimeoutHold is how long the HTTP stub holds a call that is to time out
// before it answers 504 Gateway Timeout, unless the client hangs up first,
// when the failure names no hold_ms (D183): a client whose timeout is
// shorter sees its own timeout, any other the gateway's. Either way no
// completion comes of the call.
const TimeoutHold = scenarios.DefaultHoldMS * time.Millisecond

// holdOf is how long a timeout failure is held.
func holdOf(f scenarios.ModelFailure) time.Duration {
	return time.Duration(f.Hold()) * time.Millisecond
}

// currentHold is the hold of the call the stub answered last, if it is to
// time out; the caller holds the handler's lock across the call and this.
func (s *Stub) currentHold() time.Duration {
	f, _ := s.model.FailureAt(s.calls)
	return holdOf(f)
}

// failCall answers a call the bundle makes fail, as a real endpoint fails
// (D74). Every response names its call id in the X-Amr-Call-Id header, as
// an answered call does, the gateway's 504 that ends a held call too; only a
// reset answers nothing (D130). The log line was written when the call
// arrived, so every kind is logged alike.
func failCall(w http.ResponseWriter, r *http.Request, e *sandbox.ModelError, hold time.Duration) {
	if e.Kind == scenarios.ModelReset {
		resetConn(w)
		return
	}
	w.Header().Set(CallIDHeader, e.CallID)
	w.Header().Set("x-request-id", "req_"+e.CallID)
	if e.Kind == scenarios.ModelTimeout {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(hold):
		}
		apiError(w, http.StatusGatewayTimeout, "server_error", "timeout", "", "the model did not answer in time")
		return
	}
	switch e.Kind {
	case scenarios.ModelRateLimit:
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		apiError(w, http.StatusTooManyRequests, "rate_limit_error", "rate_limit_exceeded", "", "rate limit reached; retry after "+strconv.Itoa(e.RetryAfter)+"s")
	case scenarios.ModelServerError:
		apiError(w, http.StatusInternalServerError, "server_error", "server_error", "", "the server had an error while processing the request")
	case scenarios.ModelUnavailable:
		apiError(w, http.StatusServiceUnavailable, "server_error", "overloaded", "", "the engine is currently overloaded")
	default: // malformed: a completion cut short
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id":"` + e.CallID + `","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hel`))
	}
}

// resetConn drops the connection with a TCP reset, before any answer.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		apiError(w, http.StatusBadGateway, "server_error", "reset", "", "connection reset")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
