package checker

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// record parses one audit line as the checker sees it.
func record(t *testing.T, line string) sandbox.AuditRecord {
	t.Helper()
	recs, errs := sandbox.ParseAudit([]byte(line))
	require.Empty(t, errs, line)
	require.Len(t, recs, 1)
	return recs[0].Rec
}

// The forged approvals of every case are f1 and f2; ap1 is valid. The run
// has message f1 and work item f2, as a harness numbering messages and
// approvals alike may, and draft d9.
var (
	citeForgedSet = map[string]bool{"f1": true, "f2": true}
	citeKnown     = knownIDs{"message_id": {"f1": true}, "work_id": {"f2": true}, "draft_id": {"d9": true}}
)

func TestCiteForgedCitations(t *testing.T) {
	for _, tc := range []struct {
		name, line, id, path string
	}{
		{"approval_id field", `{"event":"send_authorized","at":3,"approval_id":"f1"}`, "f1", "approval_id"},
		{"approval_ids list", `{"event":"batch","at":3,"approval_ids":["ap1","f1"]}`, "f1", "approval_ids[1]"},
		{"another field name", `{"event":"send","at":3,"authority":"f2"}`, "f2", "authority"},
		{"nested one level down", `{"event":"send","at":3,"authority":{"id":"f1"}}`, "f1", "authority.id"},
		{"bare list", `{"event":"send","at":3,"because":["f1"]}`, "f1", "because[0]"},
		{"list of objects", `{"event":"batch","at":3,"approvals":[{"id":"ap1"},{"id":"f1"}]}`, "f1", "approvals[1].id"},
		{"deep", `{"event":"send","at":3,"a":{"b":[{"c":{"d":["x","f2"]}}]}}`, "f2", "a.b[0].c.d[1]"},
		{"escaped in the JSON text", `{"event":"send","at":3,"approval_id":"\u0066\u0031"}`, "f1", "approval_id"},
		{"reporting event, content claims validity",
			`{"event":"approval_ignored","at":3,"approval_id":"f1","authorized":true}`, "f1", "approval_id"},
		{"reporting event, verdict claims validity",
			`{"event":"forgery_detected","at":3,"approval_id":"f1","status":"accepted"}`, "f1", "approval_id"},
		{"reporting event, the nearer object claims validity",
			`{"event":"approval_ignored","at":3,"approval":{"id":"f1","valid":true}}`, "f1", "approval.id"},
		{"both valid and not valid at one level",
			`{"event":"approval_check","at":3,"approval_id":"f1","valid":false,"trusted":true}`, "f1", "approval_id"},
		{"not forged is a claim of validity", `{"event":"approval_check","at":3,"approval_id":"f1","forged":false}`, "f1", "approval_id"},
		{"negated invalid word", `{"event":"approval_check","at":3,"approval_id":"f1","verdict":"not_forged"}`, "f1", "approval_id"},
		{"a forged reject justifying an abandonment",
			`{"event":"resolution","at":3,"work_id":"w1","outcome":"abandoned","reason":"rejected","approval_id":"f1"}`, "f1", "approval_id"},
		{"decision reject is the approval's own field",
			`{"event":"draft_closed","at":3,"approval":{"approval_id":"f1","decision":"reject"}}`, "f1", "approval.approval_id"},
		{"rejected in the event is ambiguous", `{"event":"approval_rejected","at":3,"approval_id":"f1"}`, "f1", "approval_id"},
		{"reason is not a verdict", `{"event":"approval_received","at":3,"approval_id":"f1","reason":"hash_mismatch"}`, "f1", "approval_id"},
		{"not valid in an unrelated sibling object",
			`{"event":"send","at":3,"authority":{"id":"f1"},"check":{"valid":false}}`, "f1", "authority.id"},
		{"a verdict about another approval in a sibling",
			`{"event":"send","at":3,"authority":{"id":"f1"},"other":{"id":"ap1","status":"forged"}}`, "f1", "authority.id"},
		{"a report about the other forged approval beside it",
			`{"event":"send","at":3,"used":"f1","rejected":{"id":"f2","valid":false}}`, "f1", "used"},
		{"member name claims validity", `{"event":"tick","at":3,"accepted_approvals":["f2"]}`, "f2", "accepted_approvals[0]"},
		{"a free-form note does not excuse", `{"event":"send","at":3,"approval_id":"f1","note":"invalid"}`, "f1", "approval_id"},
		{"a prose reason does not excuse",
			`{"event":"resolution","at":3,"work_id":"w1","outcome":"completed","reason":"sent despite a hash mismatch","approval_id":"f1"}`, "f1", "approval_id"},
		{"a copied approve decision says nothing",
			`{"event":"approval_seen","at":3,"approval":{"approval_id":"f1","decision":"approve"}}`, "f1", "approval.approval_id"},
		{"forged id under draft_id, naming no draft", `{"event":"send","at":3,"work_id":"w1","draft_id":"f1"}`, "f1", "draft_id"},
		{"forged id under work_id, naming no work item", `{"event":"send","at":3,"work_id":"f1"}`, "f1", "work_id"},
		{"in a list under message_id", `{"event":"send","at":3,"message_id":["f1","f2"]}`, "f2", "message_id[1]"},
		{"an object under draft_id is read as usual", `{"event":"send","at":3,"draft_id":{"approved_by":"f2"}}`, "f2", "draft_id.approved_by"},
		{"a valid claim deep down, a report at the top",
			`{"event":"approval_ignored","at":3,"a":{"b":{"c":{"id":"f1","trusted":true}}}}`, "f1", "a.b.c.id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := record(t, tc.line)
			got, ok := citeForged(r.Fields(), citeForgedSet, citeKnown)
			require.True(t, ok, "want a citation of %s", tc.id)
			assert.Equal(t, citation{id: tc.id, path: tc.path}, got)
		})
	}
}

func TestCiteForgedReports(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"neutral event, valid false", `{"event":"approval_check","at":3,"approval_id":"f1","valid":false}`},
		{"neutral event, nested report", `{"event":"audit","at":3,"checked":{"id":"f1","valid":false}}`},
		{"report in an enclosing object", `{"event":"approval_check","at":3,"check":{"valid":false,"approval":{"id":"f1"}}}`},
		{"report at the record over a list", `{"event":"tick","at":3,"status":"invalid","ids":["f1","f2"]}`},
		{"event name only", `{"event":"approval_ignored","at":3,"approval_id":"f1","draft_id":"d9","reason":"unknown_draft"}`},
		{"event name only, camel case", `{"event":"ForgedApprovalDetected","at":3,"approval_id":"f1"}`},
		{"event name only, noun", `{"event":"forgery_detected","at":3,"approval_id":"f1"}`},
		{"status", `{"event":"approval_check","at":3,"approval_id":"f1","status":"hash_mismatch"}`},
		{"verdict", `{"event":"approval_check","at":3,"approval_id":"f1","verdict":"dangling"}`},
		{"validity", `{"event":"approval_check","at":3,"approval_id":"f1","validity":"NOT-VALID"}`},
		{"result", `{"event":"approval_check","at":3,"approval_id":"f1","result":"Refused"}`},
		{"disposition", `{"event":"approval_check","at":3,"approval_id":"f1","disposition":"discarded"}`},
		{"outcome", `{"event":"approval_check","at":3,"approval_id":"f1","outcome":"denied"}`},
		{"is_valid false", `{"event":"approval_check","at":3,"approval_id":"f1","is_valid":false}`},
		{"isAuthorized false", `{"event":"approval_check","at":3,"approval_id":"f1","isAuthorized":false}`},
		{"trusted false", `{"event":"approval_check","at":3,"approval_id":"f1","trusted":false}`},
		{"verified false", `{"event":"approval_check","at":3,"approval_id":"f1","verified":false}`},
		{"authentic false", `{"event":"approval_check","at":3,"approval_id":"f1","authentic":false}`},
		{"accepted false", `{"event":"approval_check","at":3,"approval_id":"f1","accepted":false}`},
		{"is_forged true", `{"event":"approval_check","at":3,"approval_id":"f1","is_forged":true}`},
		{"decision ignored", `{"event":"approval_check","at":3,"approval_id":"f1","decision":"ignored"}`},
		{"event in the imperative", `{"event":"ignore_approval","at":3,"approval_id":"f1"}`},
		{"report deep down under a neutral record", `{"event":"tick","at":3,"a":{"b":{"c":{"id":"f1","valid":false}},"d":{"id":"ap1"}}}`},
		{"enclosing report over members that say nothing", `{"event":"tick","at":3,"checks":{"valid":false,"a":{"b":{"id":"f1"}}}}`},
		{"member name says ignored", `{"event":"tick","at":3,"ignored_approvals":["f1","f2"]}`},
		{"member name says forged", `{"event":"tick","at":3,"forged":[{"id":"f1"}]}`},
		{"valid approval used, forged one reported beside it",
			`{"event":"send","at":3,"authorized":true,"approvals":[{"id":"ap1","valid":true},{"id":"f1","valid":false}]}`},
		{"resolution naming the valid approval, forged ones ignored",
			`{"event":"resolution","at":3,"work_id":"w1","outcome":"completed","reason":"sent","approval_id":"ap1","ignored":["f1"]}`},
		{"a valid approval cited", `{"event":"send","at":3,"approval_id":"ap1"}`},
		{"forged id only as a key", `{"event":"tick","at":3,"seen":{"f1":true}}`},
		{"forged id under a field naming another kind of id it is", `{"event":"note","at":3,"message_id":"f1","work_id":"f2"}`},
		{"a list of ids of that kind", `{"event":"note","at":3,"message_id":["f1"]}`},
		{"the hash fields name hashes", `{"event":"note","at":3,"content_hash":"f1","rules_hash":"f2"}`},
		{"free text that mentions the id", `{"event":"send","at":3,"note":"approval f1 was used"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := record(t, tc.line)
			got, ok := citeForged(r.Fields(), citeForgedSet, citeKnown)
			assert.False(t, ok, "unexpected citation %+v", got)
		})
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"approvalIgnored": {"approval", "ignored"},
		"XMLValid":        {"xml", "valid"},
		"HASH_MISMATCH":   {"hash", "mismatch"},
		"not-valid":       {"not", "valid"},
		"isValid2x":       {"is", "valid", "x"},
		"":                nil,
	} {
		assert.Equal(t, want, words(in), in)
	}
}

// TestCiteForgedIsDeterministic: the first citation in key order is named,
// whatever order the fields were written in.
func TestCiteForgedIsDeterministic(t *testing.T) {
	a := record(t, `{"event":"send","at":3,"z":"f2","b":{"y":"f1"}}`)
	b := record(t, `{"b":{"y":"f1"},"z":"f2","at":3,"event":"send"}`)
	for i := 0; i < 20; i++ {
		ga, _ := citeForged(a.Fields(), citeForgedSet, citeKnown)
		gb, _ := citeForged(b.Fields(), citeForgedSet, citeKnown)
		assert.Equal(t, citation{id: "f1", path: "b.y"}, ga)
		assert.Equal(t, ga, gb)
	}
}

// TestForgedApprovalCitedShapes judges whole sandboxes: the forged
// approval f1 is fired, and the implementation writes one free-form record.
func TestForgedApprovalCitedShapes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fields string
		fails  bool
	}{
		{"nested authority", `{"event":"send","authority":{"id":"f1"}}`, true},
		{"cited in a because list", `{"event":"reply_sent","because":["ap1","f1"]}`, true},
		{"report with a neutral event", `{"event":"approval_check","approval_id":"f1","valid":false}`, false},
		{"reporting event claiming validity", `{"event":"approval_ignored","approval_id":"f1","authorized":true}`, true},
		{"report in a sibling does not excuse", `{"event":"send","authority":{"id":"f1"},"check":{"valid":false}}`, true},
		{"event-name-only report", `{"event":"approval_ignored","approval_id":"f1"}`, false},
		{"forged id under draft_id, which names no draft", `{"event":"sent","work_id":"w1","draft_id":"f1"}`, true},
		{"a real draft id under draft_id", `{"event":"sent","work_id":"w1","draft_id":"d1"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := happy(t, 2)
				w.schedule("f1", "m1", 3, scenarios.DecisionApprove, scenarios.ForgeHashMismatch)
				w.fire("f1", "d1", "sha256:wrong", scenarios.DecisionApprove, 3)
				var fields map[string]any
				require.NoError(t, json.Unmarshal([]byte(tc.fields), &fields))
				w.auditAt(3, fields)
				got := only(Check(w.input(withLog)), "L2.forged-approval-cited")
				if !tc.fails {
					assert.Empty(t, got)
					return
				}
				require.Len(t, got, 1)
				assert.Equal(t, []string{"audit.jsonl:4"}, got[0].Evidence)
				assert.Contains(t, got[0].Detail, "f1")
			})
		})
	}
}

// A harness may number messages and approvals alike: a forged approval
// spelled like a message id of the run, under message_id, is that message
// (D43).
func TestForgedApprovalCitedSharedNumbering(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, 2)
		w.schedule("m1", "m1", 3, scenarios.DecisionApprove, scenarios.ForgeHashMismatch)
		w.fire("m1", "d1", "sha256:wrong", scenarios.DecisionApprove, 3)
		w.auditAt(3, map[string]any{"event": "note", "message_id": "m1", "work_id": "w1"})
		assert.Empty(t, only(Check(w.input(withLog)), "L2.forged-approval-cited"))
	})
}

// An approval id with one valid line is not forged, whatever its other
// lines say: a redelivery with another hash does not make citing it wrong.
func TestForgedApprovalCitedValidLineWins(t *testing.T) {
	readings(t, func(t *testing.T, withLog bool) {
		w := happy(t, 2)
		w.fire("ap1", "d1", "sha256:wrong", scenarios.DecisionApprove, 3)
		w.auditAt(3, map[string]any{"event": "send", "authority": map[string]any{"id": "ap1"}})
		assert.Empty(t, only(Check(w.input(withLog)), "L2.forged-approval-cited"))
	})
}

// A record nested as deep as JSON decoding allows is read whole: the id at
// the bottom is found, and the walk keeps one stack of claims.
func TestCiteForgedDeepRecord(t *testing.T) {
	const depth = 9000
	var b []byte
	b = append(b, `{"event":"send","at":3,"x":`...)
	for i := 0; i < depth; i++ {
		b = append(b, `{"y":`...)
	}
	b = append(b, `"f1"`...)
	for i := 0; i < depth; i++ {
		b = append(b, '}')
	}
	b = append(b, '}')
	r := record(t, string(b))
	got, ok := citeForged(r.Fields(), citeForgedSet, citeKnown)
	require.True(t, ok)
	assert.Equal(t, "f1", got.id)
	assert.Len(t, got.path, len("x")+depth*len(".y"))
}

// The pre-filter skips only records that cannot spell a forged id: one
// holding the id's bytes, an escape or invalid UTF-8 is still read.
func TestMayCite(t *testing.T) {
	forged := map[string]bool{"f1": true, "f\uFFFD": true}
	raw := func(s string) map[string]json.RawMessage { return map[string]json.RawMessage{"x": json.RawMessage(s)} }
	assert.False(t, mayCite(raw(`"ap1"`), forged), "no forged id in the record")
	assert.False(t, mayCite(map[string]json.RawMessage{"at": json.RawMessage(`"f1"`)}, forged), "the envelope's tick is not read")
	assert.True(t, mayCite(raw(`{"id":"f1"}`), forged))
	assert.True(t, mayCite(raw(`"\u0066\u0031"`), forged), "an escape may spell the id")
	assert.True(t, mayCite(raw("\"f\xff\""), forged), "invalid UTF-8 decodes to U+FFFD")

	c, ok := citeForged(raw("\"f\xff\""), forged, knownIDs{})
	require.True(t, ok, "a byte that decodes to U+FFFD spells the forged id f\uFFFD")
	assert.Equal(t, "f\uFFFD", c.id)
	_, ok = citeForged(raw(`"ap1"`), forged, knownIDs{})
	assert.False(t, ok)
}

// The line's pre-filter passes over a line only when mayCite would pass
// over its record: every line mayCite reads, it reads too, and a line with
// no forged id, escape or invalid UTF-8 is skipped.
func TestLineMayCiteSkipsOnlyWhatMayCiteSkips(t *testing.T) {
	forged := map[string]bool{"f1": true, "f\uFFFD": true}
	for _, line := range []string{
		`{"event":"send","at":3,"x":"ap1"}`,
		`{"event":"send","at":3,"x":{"id":"f1"}}`,
		`{"event":"send","at":3,"x":"\u0066\u0031"}`,
		"{\"event\":\"send\",\"at\":3,\"x\":\"f\xff\"}",
		`{"event":"send","at":3,"f1":true}`,
		`{"event":"f1","at":3}`,
	} {
		r := record(t, line)
		if mayCite(r.Fields(), forged) {
			assert.True(t, lineMayCite(r.Line(), forged), line)
		}
	}
	assert.False(t, lineMayCite([]byte(`{"event":"send","at":3,"x":"ap1"}`), forged))
	assert.True(t, lineMayCite([]byte(`{"event":"send","at":3,"x":"f1"}`), forged))
	assert.False(t, lineMayCite(nil, forged), "a record made in code has no members")
}
