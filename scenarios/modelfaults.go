package scenarios

// ModelFailure makes one call to the stub model fail: the Call-th call of
// the run (counted from 1, refused requests aside) gets Kind instead of a
// completion, in the in-process stub and over HTTP alike (D74).
type ModelFailure struct {
	Call int    `json:"call"`
	Kind string `json:"kind"`
	// RetryAfter is, for a rate limit, the Retry-After the stub sends, in
	// seconds.
	RetryAfter int `json:"retry_after,omitempty"`
	// HoldMS is, for a timeout, how long the HTTP stub holds the call
	// before its 504, in milliseconds of wall time; 0 (absent) holds
	// DefaultHoldMS (D183).
	HoldMS int `json:"hold_ms,omitempty"`
}

// Kinds of model failure.
const (
	ModelRateLimit   = "rate_limit"   // 429 with Retry-After
	ModelServerError = "server_error" // 500
	ModelUnavailable = "unavailable"  // 503
	ModelReset       = "reset"        // the connection is reset before any answer
	ModelTimeout     = "timeout"      // no answer before the client's timeout
	ModelMalformed   = "malformed"    // a 200 whose body is cut short
)

// ModelFailureKinds lists them in a stable order.
var ModelFailureKinds = []string{ModelRateLimit, ModelServerError, ModelUnavailable, ModelReset, ModelTimeout, ModelMalformed}

// MaxRetryAfter bounds a rate limit's Retry-After, in seconds.
const MaxRetryAfter = 60

// DefaultHoldMS is a timeout's hold when the bundle names none: what every
// bundle written before hold_ms existed was run with.
const DefaultHoldMS = 2000

// MaxHoldMS bounds a timeout's hold, as MaxRetryAfter bounds a wait.
const MaxHoldMS = MaxRetryAfter * 1000

// Hold is how long a timeout failure is held, in milliseconds.
func (f ModelFailure) Hold() int {
	if f.HoldMS == 0 {
		return DefaultHoldMS
	}
	return f.HoldMS
}

// FailureAt returns the failure of the n-th call, if the model has one.
func (m Model) FailureAt(n int) (ModelFailure, bool) {
	for _, f := range m.Failures {
		if f.Call == n {
			return f, true
		}
	}
	return ModelFailure{}, false
}

// NeedsRunLog reports whether the bundle is judged as meant only with the
// run log of its run: its stamped approvals and signals (D72) and its torn
// writes (D75) are placed by the log alone, and read without it they are
// read as the implementation's own.
func (b *Bundle) NeedsRunLog() bool {
	if b.Meta.StampScheduled {
		return true
	}
	for _, f := range b.Faults {
		if f.Kind == FaultCrash && f.Torn {
			return true
		}
	}
	return false
}
