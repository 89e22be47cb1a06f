package sim

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// everyFailure fails calls 1 to 6 with each kind, then answers.
func everyFailure() []scenarios.ModelFailure {
	var out []scenarios.ModelFailure
	for i, k := range scenarios.ModelFailureKinds {
		f := scenarios.ModelFailure{Call: i + 1, Kind: k}
		if k == scenarios.ModelRateLimit {
			f.RetryAfter = 0
		}
		out = append(out, f)
	}
	return out
}

// The in-process stub fails the calls the bundle names, logs each under
// its call id with how it failed, and answers the next call as usual.
func TestStubFailsTheCallsTheBundleNames(t *testing.T) {
	m := scenarios.Model{Anchors: []string{"ORD-1"}, Reply: "re {{anchor}}", ReplyNoAnchor: "re", Failures: everyFailure()}
	mem := sandbox.NewMemory()
	s := NewStub(m, mem, func() int { return 3 })
	for i, k := range scenarios.ModelFailureKinds {
		_, err := s.Complete("about ORD-1")
		var me *sandbox.ModelError
		require.True(t, errors.As(err, &me), "call %d: %v", i+1, err)
		assert.Equal(t, k, me.Kind)
		assert.False(t, me.Wall)
	}
	c, err := s.Complete("about ORD-1")
	require.NoError(t, err)
	assert.Equal(t, "call-0007", c.CallID)
	calls, errs := sandbox.ParseModelCalls(mem.View(sandbox.ModelCalls))
	require.Empty(t, errs)
	require.Len(t, calls, 7)
	for i, k := range scenarios.ModelFailureKinds {
		require.NotNil(t, calls[i].Rec.Failed)
		assert.Equal(t, k, calls[i].Rec.Failed.Kind)
	}
	assert.Nil(t, calls[6].Rec.Failed)
	assert.Equal(t, 6, sandbox.SummarizeModelCalls(mem.View(sandbox.ModelCalls)).Failed)
}

// Over HTTP each failure looks as a real endpoint's does, and the stub's
// log is byte for byte the in-process stub's.
func TestHTTPStubFailsAsARealEndpoint(t *testing.T) {
	m := scenarios.Model{Anchors: []string{"ORD-1"}, Reply: "re {{anchor}}", ReplyNoAnchor: "re", Failures: everyFailure()}
	m.Failures[0].RetryAfter = 3
	httpMem, inMem := sandbox.NewMemory(), sandbox.NewMemory()
	srv := httptest.NewServer(StubHandler(NewStub(m, httpMem, func() int { return 3 })))
	defer srv.Close()
	client := &HTTPModel{BaseURL: srv.URL + "/v1", Client: &http.Client{Timeout: 300 * time.Millisecond}}
	in := NewStub(m, inMem, func() int { return 3 })
	for i, k := range scenarios.ModelFailureKinds {
		_, err := client.Complete("about ORD-1")
		var me *sandbox.ModelError
		require.True(t, errors.As(err, &me), "call %d: %v", i+1, err)
		assert.Equal(t, k, me.Kind, "call %d: %v", i+1, err)
		assert.True(t, me.Wall)
		if k == scenarios.ModelRateLimit {
			assert.Equal(t, 3, me.RetryAfter)
			assert.Equal(t, 429, me.Status)
		}
		if k != scenarios.ModelReset && k != scenarios.ModelTimeout {
			assert.Equal(t, "call-000"+string(rune('1'+i)), me.CallID, "the response names the failed call")
		}
		_, _ = in.Complete("about ORD-1")
	}
	c, err := client.Complete("about ORD-1")
	require.NoError(t, err)
	assert.Equal(t, "call-0007", c.CallID)
	_, _ = in.Complete("about ORD-1")
	assert.Equal(t, string(inMem.View(sandbox.ModelCalls)), string(httpMem.View(sandbox.ModelCalls)))
}

// The reference retries a failed call and drafts from the one that
// answers: it passes with a failing endpoint, in process and as a process,
// with the same sandbox.
func TestReferenceRetriesAFailingEndpoint(t *testing.T) {
	b := published(t, "l2-govern").Clone()
	b.Model.Failures = []scenarios.ModelFailure{
		{Call: 1, Kind: scenarios.ModelRateLimit}, {Call: 2, Kind: scenarios.ModelMalformed}, {Call: 3, Kind: scenarios.ModelReset},
		{Call: 5, Kind: scenarios.ModelServerError}, {Call: 7, Kind: scenarios.ModelUnavailable}, {Call: 8, Kind: scenarios.ModelTimeout},
	}
	b.Normalize()
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	in := run(t, b, examples.Reference(), 2)
	requirePass(t, b, in)
	drafts, _ := sandbox.ParseDrafts(in.Files.View(sandbox.Drafts))
	failed := map[string]bool{"call-0001": true, "call-0002": true, "call-0003": true, "call-0005": true, "call-0007": true, "call-0008": true}
	require.NotEmpty(t, drafts)
	for _, d := range drafts {
		for _, id := range d.Rec.Origin.CallIDs {
			assert.False(t, failed[id], "draft %s cites failed call %s", d.Rec.DraftID, id)
		}
	}
	requireLinux(t)
	res := runProcess(t, b, helperSpec("reference", RegimeStep), 2)
	requirePass(t, b, res)
	assert.Equal(t, in.Files.Files(), res.Files.Files(), "the same sandbox in-process and as a process")
}

// What a failed call tells its client is the same in process and over
// HTTP (D130): its id with every response, the gateway's 504 that ends a
// held call included, and no id with a reset, which answers nothing. The
// HTTP client here waits longer than the stub holds a timeout, as
// `amr serve-impl` does.
func TestAFailedCallTellsBothClientsTheSame(t *testing.T) {
	m := scenarios.Model{Anchors: []string{"ORD-1"}, Reply: "re {{anchor}}", ReplyNoAnchor: "re", Failures: everyFailure()}
	m.Failures[0].RetryAfter = 3
	srv := httptest.NewServer(StubHandler(NewStub(m, sandbox.NewMemory(), func() int { return 3 })))
	defer srv.Close()
	client := &HTTPModel{BaseURL: srv.URL + "/v1", Client: &http.Client{Timeout: TimeoutHold + 5*time.Second}}
	in := NewStub(m, sandbox.NewMemory(), func() int { return 3 })
	seen := func(err error) sandbox.ModelError {
		var me *sandbox.ModelError
		require.True(t, errors.As(err, &me), "%v", err)
		return sandbox.ModelError{CallID: me.CallID, Kind: me.Kind, Status: me.Status, RetryAfter: me.RetryAfter}
	}
	for i, k := range scenarios.ModelFailureKinds {
		_, herr := client.Complete("about ORD-1")
		_, ierr := in.Complete("about ORD-1")
		over, inproc := seen(herr), seen(ierr)
		assert.Equal(t, over, inproc, "call %d (%s): what the client learns", i+1, k)
		if k == scenarios.ModelReset {
			assert.Empty(t, inproc.CallID, "a reset answers nothing, not even its id")
			continue
		}
		assert.Equal(t, fmt.Sprintf("call-%04d", i+1), inproc.CallID, "call %d (%s) names itself", i+1, k)
	}
}

// weak-cite-failed-call cites the id a failed call names. As a process it
// learns the id of a timed-out call from the gateway's 504 as it does in
// process, so a bundle whose only failure is a timeout catches it both ways
// (L0.draft-origin), and the reference, which asks again, passes both ways.
func TestATimedOutCallCatchesItsCiterAsAProcess(t *testing.T) {
	requireLinux(t)
	b := published(t, "l0-respond").Clone()
	b.Model.Failures = []scenarios.ModelFailure{{Call: 1, Kind: scenarios.ModelTimeout}}
	b.Normalize()
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	weak, ok := examples.Lookup("weak-cite-failed-call")
	require.True(t, ok)
	origin := func(res *Result) []string {
		var ids []string
		for _, v := range judge(b, res).Violations {
			ids = append(ids, v.Invariant)
		}
		return ids
	}
	assert.Contains(t, origin(run(t, b, weak.New, 1)), "L0.draft-origin", "in process")
	assert.Contains(t, origin(runProcess(t, b, helperSpec("weak-cite-failed-call", RegimeStep), 1)), "L0.draft-origin", "as a process")
	requirePass(t, b, run(t, b, examples.Reference(), 1))
	requirePass(t, b, runProcess(t, b, helperSpec("reference", RegimeStep), 1))
}

// A timeout is held as long as the bundle says (D183): a hold shorter than
// the client's own timeout ends in the gateway's 504, which names the call;
// a longer one in the client's own timeout, which names none. The log is
// the in-process stub's either way.
func TestATimeoutIsHeldAsTheBundleSays(t *testing.T) {
	m := scenarios.Model{Anchors: []string{"ORD-1"}, Reply: "re {{anchor}}", ReplyNoAnchor: "re", Failures: []scenarios.ModelFailure{
		{Call: 1, Kind: scenarios.ModelTimeout, HoldMS: 5}, {Call: 2, Kind: scenarios.ModelTimeout, HoldMS: 2000},
	}}
	httpMem, inMem := sandbox.NewMemory(), sandbox.NewMemory()
	srv := httptest.NewServer(StubHandler(NewStub(m, httpMem, func() int { return 3 })))
	defer srv.Close()
	client := &HTTPModel{BaseURL: srv.URL + "/v1", Client: &http.Client{Timeout: 300 * time.Millisecond}}
	in := NewStub(m, inMem, func() int { return 3 })
	seen := func() *sandbox.ModelError {
		_, err := client.Complete("about ORD-1")
		var me *sandbox.ModelError
		require.True(t, errors.As(err, &me), "%v", err)
		_, _ = in.Complete("about ORD-1")
		return me
	}
	short := seen()
	assert.Equal(t, sandbox.ModelError{CallID: "call-0001", Kind: scenarios.ModelTimeout, Status: 504},
		sandbox.ModelError{CallID: short.CallID, Kind: short.Kind, Status: short.Status}, "%v", short)
	long := seen()
	assert.Equal(t, sandbox.ModelError{Kind: scenarios.ModelTimeout},
		sandbox.ModelError{CallID: long.CallID, Kind: long.Kind, Status: long.Status}, "%v", long)
	assert.Contains(t, long.Msg, "Client.Timeout", "the client's own timeout")
	assert.Equal(t, string(inMem.View(sandbox.ModelCalls)), string(httpMem.View(sandbox.ModelCalls)))
}
