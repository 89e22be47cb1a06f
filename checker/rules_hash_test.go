package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The rules texts of these tests: rules.json as another tool writes it,
// compact on one line with the keys in another order.
const (
	compactRules = `[{"when":{"subject_contains":"order"},"id":"support","admit":true}]`
	compactLater = `[{"id":"support-v2","admit":true,"when":{"subject_contains":"order"}}]`
)

var laterRules = []scenarios.Rule{{ID: "support-v2", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}}}

func sha(text string) string { return scenarios.RulesHash([]byte(text)) }

// withRulesLog records in a run log what the engine writes: the initial
// rules' hash on the start record and a rules record for each change.
func withRulesLog(in Input, initial string, changes ...sandbox.LogRecord) Input {
	var log []sandbox.LogRecord
	for _, r := range in.Log {
		if r.Kind == sandbox.LogStart {
			r.RulesHash = initial
		}
		log = append(log, r)
		if r.Kind == sandbox.LogStart {
			log = append(log, changes...)
		}
	}
	in.Log = log
	return in
}

// rulesAt is the run log record of a rules change fired at its tick.
func rulesAt(tick int, hash string) sandbox.LogRecord {
	return sandbox.LogRecord{Kind: sandbox.LogRules, Tick: tick, RulesHash: hash, Scheduled: &tick}
}

// rules_hash is the sha256 of the rules.json bytes the implementation was
// given (spec §2): a bundle's rules.json kept verbatim, compact or not. The
// hash of amr's re-encoding of those rules is another hash, and fails.
func TestRulesHashIsOfTheBytesGiven(t *testing.T) {
	reencoded := scenarios.RulesHash(scenarios.RulesBytes([]scenarios.Rule{{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}}}))
	require.NotEqual(t, sha(compactRules), reencoded)
	for _, tc := range []struct {
		name  string
		hash  string
		fails bool
	}{
		{"hash of the verbatim bytes", sha(compactRules), false},
		{"hash of amr's re-encoding", reencoded, true},
		{"hash of the bytes plus a newline", sha(compactRules + "\n"), true},
		{"some other hash", sha("[]"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 2, 30)
				w.b.RulesJSON = compactRules
				w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
				w.admitHash("w1", "m1", tc.hash, 1)
				in := w.input(withLog)
				if withLog {
					in = withRulesLog(in, sha(compactRules))
				}
				got := only(Check(in), "L2.admission-record")
				if !tc.fails {
					assert.Empty(t, got)
					return
				}
				require.Len(t, got, 1)
				assert.Contains(t, got[0].Detail, "rules_hash "+short(tc.hash))
			})
		})
	}
}

// A rules change writes its fault's bytes unchanged; after the allowance only
// their hash is in force.
func TestRulesHashAfterAChangeIsOfTheFaultsBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hash  string
		fails bool
	}{
		{"hash of the fault's text", sha(compactLater), false},
		{"hash of amr's re-encoding", scenarios.RulesHash(scenarios.RulesBytes(laterRules)), true},
		{"hash of the initial rules", sha(compactRules), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readings(t, func(t *testing.T, withLog bool) {
				w := newWorld(t, 2, 40)
				w.b.RulesJSON = compactRules
				w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultRules, Rules: laterRules, RulesJSON: compactLater})
				w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 12)
				w.admitHash("w1", "m1", tc.hash, 12)
				in := w.input(withLog)
				if withLog {
					in = withRulesLog(in, sha(compactRules), rulesAt(5, sha(compactLater)))
				}
				assert.Equal(t, tc.fails, len(only(Check(in), "L2.admission-record")) == 1)
			})
		})
	}
}

// With a run log the checker takes the hashes the log says were written, not
// the bundle's: an older engine wrote the re-encoding, and an implementation
// that hashed what it was given cited that.
func TestRulesHashFollowsTheRunLog(t *testing.T) {
	reencoded := scenarios.RulesHash(scenarios.RulesBytes(laterRules))
	for _, tc := range []struct {
		name    string
		initial string
		change  string
		at      int
		hash    string
		fails   bool
	}{
		{"initial hash as logged", sha("logged initial"), sha("logged change"), 2, sha("logged initial"), false},
		{"bundle's initial bytes against the log", sha("logged initial"), sha("logged change"), 2, sha(compactRules), true},
		{"change as logged", sha("logged initial"), reencoded, 12, reencoded, false},
		{"change's bundle bytes against the log", sha("logged initial"), reencoded, 12, sha(compactLater), true},
		{"a log without the initial hash falls back to the bundle", "", sha("logged change"), 2, sha(compactRules), false},
		{"a log without the initial hash, re-encoding cited", "", sha("logged change"), 2,
			scenarios.RulesHash(scenarios.RulesBytes([]scenarios.Rule{{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}}})), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2, 40)
			w.b.RulesJSON = compactRules
			w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultRules, Rules: laterRules, RulesJSON: compactLater})
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", tc.at)
			w.admitHash("w1", "m1", tc.hash, tc.at)
			in := withRulesLog(w.input(true), tc.initial, rulesAt(5, tc.change))
			assert.Equal(t, tc.fails, len(only(Check(in), "L2.admission-record")) == 1)
		})
	}
}

// A rules record without a hash, or a change the log does not record, is
// judged by the bundle's bytes.
func TestRulesHashOfAnUnloggedChangeIsTheBundles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change []sandbox.LogRecord
	}{
		{"no rules record", nil},
		{"a rules record without a hash", []sandbox.LogRecord{rulesAt(5, "")}},
		{"a rules record of another schedule", []sandbox.LogRecord{{Kind: sandbox.LogRules, Tick: 5, RulesHash: sha("x"), Scheduled: new(int)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2, 40)
			w.b.Faults = append(w.b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultRules, Rules: laterRules, RulesJSON: compactLater})
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 12)
			w.admitHash("w1", "m1", sha(compactLater), 12)
			in := withRulesLog(w.input(true), w.rulesHash(), tc.change...)
			assert.Empty(t, only(Check(in), "L2.admission-record"))

			w.admitHash("w2", "m1", scenarios.RulesHash(scenarios.RulesBytes(laterRules)), 12)
			in = withRulesLog(w.input(true), w.rulesHash(), tc.change...)
			assert.NotEmpty(t, only(Check(in), "L2.admission-record"))
		})
	}
}

// Another harness that writes the bundle's rules in other bytes gives the
// implementation those bytes: without a run log, the hash of the sandbox's
// rules.json is accepted for the rules it holds, as is the bundle's. Bytes
// holding other rules are a harness finding and their hash authorizes
// nothing.
func TestRulesHashOfBytesAnotherHarnessWrote(t *testing.T) {
	reencoded := scenarios.RulesBytes([]scenarios.Rule{{ID: "support", Admit: true, When: scenarios.Conditions{SubjectContains: str("order")}}})
	for _, tc := range []struct {
		name  string
		file  []byte
		hash  string
		fails bool
	}{
		{"hash of the re-encoded file", reencoded, scenarios.RulesHash(reencoded), false},
		{"hash of the bundle's bytes", reencoded, sha(compactRules), false},
		{"hash of neither", reencoded, sha("[]"), true},
		{"a file of other rules", []byte("[]\n"), sha("[]\n"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2, 30)
			w.b.RulesJSON = compactRules
			w.deliver("m1", "c1", "alice@example.com", subjectM1, "Where is ORD-1001?", 1)
			w.admitHash("w1", "m1", tc.hash, 1)
			in := w.input(false)
			in.Files[sandbox.Rules] = tc.file
			assert.Equal(t, tc.fails, len(only(Check(in), "L2.admission-record")) == 1)
		})
	}
}
