package checker

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// stubLogWorld is the opened story with the stub's log replaced by calls,
// and one more draft, d2, whose origin names the calls cited.
func stubLogWorld(t *testing.T, calls string, cited ...string) *world {
	w := opened(t, 0, 30)
	w.files[sandbox.ModelCalls] = []byte(calls)
	w.impl(sandbox.Drafts, 2, mustLine(t, sandbox.Draft{DraftID: "d2", WorkID: "w1", ConversationID: "c1",
		Body: "b", ContentHash: hashOf("b"), DeclaredAt: 2, Origin: sandbox.Origin{CallIDs: cited}}))
	return w
}

func TestDraftOriginStubLog(t *testing.T) {
	for _, tc := range []struct {
		name, calls string
		cited       []string
		missing     string // the call id L0.draft-origin names, "" for none
		defects     []FixtureDefect
	}{
		{"a line with only the call id", `{"call_id":"call-1"}` + "\n" + `{"call_id":"c1"}` + "\n", []string{"c1"}, "", nil},
		{"a line naming the call by id", `{"call_id":"call-1"}` + "\n" + `{"id":"c1"}` + "\n", []string{"c1"}, "", nil},
		{"a call absent from a well-formed log", `{"call_id":"call-1"}` + "\n" + `{"call_id":"c1"}` + "\n",
			[]string{"c1", "c404"}, "c404", nil},
		{"a call absent from an empty log", "", []string{"c1"}, "c1", nil},
		{"a line that is not JSON", `{"call_id":"call-1"}` + "\n" + `{"call_id":"c1",` + "\n", []string{"c1"}, "",
			[]FixtureDefect{{File: sandbox.ModelCalls, Line: 2}}},
		{"a line without a call id", `{"call_id":"call-1"}` + "\n\n" + `{"at":2,"prompt":"p"}` + "\n", []string{"c1"}, "",
			[]FixtureDefect{{File: sandbox.ModelCalls, Line: 3}}},
		{"a call the stub refused", `{"call_id":"call-1"}` + "\n" + `{"call_id":"rejected-0001","rejected":{"status":400,"code":"invalid_request_error","message":"bad"}}` + "\n",
			[]string{"rejected-0001"}, "rejected-0001", nil},
		{"a call the stub answered beside a refused one", `{"call_id":"call-1"}` + "\n" + `{"call_id":"rejected-0001","rejected":{"status":400}}` + "\n" + `{"call_id":"c1"}` + "\n",
			[]string{"c1"}, "", nil},
		{"a call that failed (D74)", `{"call_id":"call-1"}` + "\n" + `{"call_id":"c1","failed":{"kind":"rate_limit","status":429}}` + "\n",
			[]string{"c1"}, "c1", nil},
		{"the call that answered after a failed one", `{"call_id":"call-1"}` + "\n" + `{"call_id":"c1","failed":{"kind":"malformed","status":200}}` + "\n" + `{"call_id":"c2"}` + "\n",
			[]string{"c2"}, "", nil},
		{"a numeric call id", `{"call_id":7}` + "\n", []string{"call-1", "7"}, "",
			[]FixtureDefect{{File: sandbox.ModelCalls, Line: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				v := Check(stubLogWorld(t, tc.calls, tc.cited...).input(withLog))
				got := only(v, "L0.draft-origin")
				if tc.missing == "" {
					assert.Empty(t, got)
				} else {
					require.NotEmpty(t, got)
					assert.Equal(t, "d2", got[len(got)-1].DraftID)
					assert.Contains(t, got[len(got)-1].Detail, tc.missing)
				}
				require.Len(t, v.FixtureDefects, len(tc.defects))
				for i, d := range tc.defects {
					assert.Equal(t, d.File, v.FixtureDefects[i].File)
					assert.Equal(t, d.Line, v.FixtureDefects[i].Line)
					assert.Contains(t, v.FixtureDefects[i].Detail, "not judged")
				}
			})
		})
	}
}

// A defect in the stub's log annuls only what it makes unjudgeable: the
// rest of L0 is judged as ever, and the verdict carries the defect.
func TestFixtureDefectJudgesTheRest(t *testing.T) {
	w := stubLogWorld(t, "garbage\n", "c1")
	w.send("e9", "d-never", 3)
	v := Check(w.input(true))
	assert.Empty(t, only(v, "L0.draft-origin"))
	assert.Len(t, only(v, "L0.outbox-declared"), 1)
	assert.Equal(t, Fail, v.Levels[0])
	require.Len(t, v.FixtureDefects, 1)
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var doc struct {
		FixtureDefects []map[string]any `json:"fixture_defects"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.FixtureDefects, 1)
	assert.Equal(t, sandbox.ModelCalls, doc.FixtureDefects[0]["file"])
	assert.EqualValues(t, 1, doc.FixtureDefects[0]["line"])
	assert.Contains(t, doc.FixtureDefects[0]["detail"], "not a JSON object")
}

// With the defect the level that only the origin failed passes: the
// defect is the harness's, and it is listed.
func TestFixtureDefectIsNotTheImplementationsFailure(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := stubLogWorld(t, `{"call_id":"call-1"}`+"\n"+`not json`+"\n", "c1")
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		v := Check(w.input(withLog))
		assert.Equal(t, Pass, v.Levels[0], "%v", v.Violations)
		assert.Len(t, v.FixtureDefects, 1)

		w = stubLogWorld(t, `{"call_id":"call-1"}`+"\n", "c1")
		w.approve("ap1", "m1", "d1", 2)
		w.send("e1", "d1", 2)
		v = Check(w.input(withLog))
		assert.Equal(t, Fail, v.Levels[0])
		assert.Len(t, only(v, "L0.draft-origin"), 1)
		assert.Empty(t, v.FixtureDefects)
	})
}
