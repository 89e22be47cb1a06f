package ledger_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/ledger"
)

// lieFrom edits receipt i (0-based) and seals it and every receipt after it
// again, each linked to the one before: a consistent lie, which the hashes
// and the chain alone cannot tell from the truth.
func lieFrom(t *testing.T, path string, i int, edit func(*ledger.Receipt)) {
	t.Helper()
	l, err := ledger.Open(path)
	require.NoError(t, err)
	rs := l.Receipts()
	edit(&rs[i])
	ls := lines(t, path)
	for j := i; j < len(rs); j++ {
		if j > 0 {
			prev := rs[j-1].ContentHash
			rs[j].Prev = &prev
		}
		rs[j].ContentHash, err = rs[j].Hash()
		require.NoError(t, err)
		ls[j], err = rs[j].Line()
		require.NoError(t, err)
	}
	write(t, path, ls)
}

func kinds(rep *ledger.Report) []string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, p.Kind)
	}
	return out
}

// A receipt re-hashed after its verdict was edited, the chain re-linked
// after it, verifies by its hashes; the verdict.json it names still says
// the run failed, and that is reported at its position.
func TestVerifyCatchesAConsistentLie(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, dir, 4)
	lieFrom(t, path, 1, func(r *ledger.Receipt) { r.Verdict.Levels["L0"] = "pass" })
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1, "%+v", rep.Problems)
	p := rep.Problems[0]
	assert.Equal(t, 2, p.Position)
	assert.Equal(t, ledger.ProblemArtifactDisagrees, p.Kind)
	assert.Contains(t, p.Detail, "verdict.json says L0 fail, the receipt pass")
	assert.False(t, rep.OK())
}

// Every field a receipt copies from its verdict is held to it, and the
// bundle and seed to the run log; an honest receipt of each shape passes.
func TestVerifyHoldsEachFieldToItsArtifact(t *testing.T) {
	cases := []struct {
		name string
		edit func(*ledger.Receipt)
	}{
		{"origin", func(r *ledger.Receipt) { r.Verdict.Origin = "model-free" }},
		{"invalid", func(r *ledger.Receipt) { r.Verdict.Invalid = true }},
		{"a violation dropped", func(r *ledger.Receipt) { r.Verdict.Violations = nil }},
		{"seed", func(r *ledger.Receipt) { r.Seed = "99" }},
		{"run", func(r *ledger.Receipt) { r.Run = 7 }},
		{"history counts", func(r *ledger.Receipt) { r.Verdict.History = map[string]int{"H1.duplicate-effect": 1} }},
		{"unattributed calls", func(r *ledger.Receipt) { r.Verdict.UnattributedCalls = 3 }},
		{"obligations", func(r *ledger.Receipt) { r.Verdict.Obligations["L0"] = 2 }},
		{"bundle hash", func(r *ledger.Receipt) { r.BundleHash = "sha256:other" }},
		{"scenario", func(r *ledger.Receipt) { r.Scenario = "other" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := fullFixture(t, dir)
			rep, err := ledger.Verify(path, "")
			require.NoError(t, err)
			require.True(t, rep.OK(), "the honest receipt verifies: %+v", rep.Problems)
			assert.Empty(t, rep.Unavailable)

			lieFrom(t, path, 0, c.edit)
			rep, err = ledger.Verify(path, "")
			require.NoError(t, err)
			assert.Contains(t, kinds(rep), ledger.ProblemArtifactDisagrees, "%+v", rep.Problems)
		})
	}
}

// fullFixture is a ledger of one ran receipt whose verdict.json and
// run.jsonl carry every field the receipt copies.
func fullFixture(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ledger.jsonl")
	l, err := ledger.Open(path)
	require.NoError(t, err)
	verdict := keepFile(t, dir, "out/verdict.json", `{"run": 1, "engine_seed": "42", "levels": {"L0": "fail", "L1": "pass"},
  "obligations": {"L0": 1, "L1": 0}, "judged": {"L0.reply": 1}, "vacuous": ["L1"], "origin": "model-based",
  "violations": [{"invariant": "L0.reply", "level": 0, "tick": 10, "message_id": "m1", "evidence": [], "detail": "no reply"}],
  "invalid": false, "history": {"counts": {"H1.duplicate-effect": 0, "H3.lost-work": 1}}, "surprise": {"unattributed": 0}}`)
	runLog := keepFile(t, dir, "out/run.jsonl", `{"kind":"start","tick":0,"bundle":"s","bundle_hash":"sha256:b","engine_seed":"42"}`+"\n"+`{"kind":"tick_end","tick":0}`+"\n")
	runLog.Name = "run.jsonl"
	_, err = l.Append(ledger.Receipt{Scenario: "s", BundleHash: "sha256:b", Run: 1, Seed: "42",
		Impl: ledger.Impl{Name: "reference", Fingerprint: ledger.Fingerprint("reference", "0.1.0")}, HarnessVersion: "0.1.0",
		Status: ledger.StatusRan,
		Verdict: ledger.Verdict{Levels: map[string]string{"L0": "fail", "L1": "pass"}, Origin: "model-based",
			Obligations: map[string]int{"L0": 1, "L1": 0}, Judged: map[string]int{"L0.reply": 1}, Vacuous: []string{"L1"},
			Violations: []ledger.Violation{{Invariant: "L0.reply", Level: 0, Tick: 10, MessageID: "m1", Evidence: []string{}, Detail: "no reply"}},
			History:    map[string]int{"H3.lost-work": 1}},
		Artifacts: []ledger.Artifact{runLog, verdict}})
	require.NoError(t, err)
	return path
}

// What could not be read back is named, receipt by receipt, and a verdict
// that nothing confirmed says so; it is not a problem.
func TestVerifyNamesWhatWasNotAvailable(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, dir, 2)
	require.NoError(t, os.Remove(filepath.Join(dir, "out/run-2/verdict.json")))
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Problems)
	assert.Equal(t, []ledger.Unavailable{{Position: 2, Scenario: "s", Run: 2, Artifacts: []string{"verdict.json"}, VerdictUnchecked: true}}, rep.Unavailable)
	assert.Equal(t, 1, rep.ArtifactsMissing)
}

// A receipt that fails verification is never copied forward: a
// consistent lie, a receipt whose verdict nothing confirms, and every
// receipt before a broken link. The others are.
func TestOpenReusesOnlyReceiptsThatVerify(t *testing.T) {
	reused := func(t *testing.T, path string) []bool {
		l, err := ledger.Open(path)
		require.NoError(t, err)
		var out []bool
		for _, r := range l.Receipts() {
			got, ok := l.Lookup(r.Key())
			out = append(out, ok && got.ContentHash == r.ContentHash)
		}
		return out
	}
	t.Run("honest", func(t *testing.T) {
		path := fixture(t, t.TempDir(), 3)
		assert.Equal(t, []bool{true, true, true}, reused(t, path))
	})
	t.Run("a consistent lie", func(t *testing.T) {
		path := fixture(t, t.TempDir(), 3)
		lieFrom(t, path, 1, func(r *ledger.Receipt) { r.Verdict.Levels["L0"] = "pass" })
		assert.Equal(t, []bool{true, false, true}, reused(t, path))
		l, err := ledger.Open(path)
		require.NoError(t, err)
		assert.Equal(t, 1, l.Withheld())
	})
	t.Run("edited, not re-hashed", func(t *testing.T) {
		path := fixture(t, t.TempDir(), 3)
		ls := lines(t, path)
		ls[0] = bytes.Replace(ls[0], []byte(`"origin":"model-based"`), []byte(`"origin":"model-free"`), 1)
		write(t, path, ls)
		got := reused(t, path)
		assert.False(t, got[0], "a receipt verify reports as edited")
		assert.Equal(t, []bool{true, true}, got[1:])
	})
	t.Run("a verdict nothing confirms", func(t *testing.T) {
		dir := t.TempDir()
		path := fixture(t, dir, 3)
		require.NoError(t, os.Remove(filepath.Join(dir, "out/run-3/verdict.json")))
		assert.Equal(t, []bool{true, true, false}, reused(t, path))
	})
	t.Run("edited and re-hashed, the chain broken after it", func(t *testing.T) {
		path := fixture(t, t.TempDir(), 4)
		l, err := ledger.Open(path)
		require.NoError(t, err)
		r := l.Receipts()[1]
		r.Artifacts = r.Artifacts[:1] // drop its verdict.json: nothing contradicts it now
		r.ContentHash, err = r.Hash()
		require.NoError(t, err)
		line, err := r.Line()
		require.NoError(t, err)
		ls := lines(t, path)
		ls[1] = line
		write(t, path, ls)
		assert.Equal(t, []bool{false, false, true, true}, reused(t, path), "receipts before the break cannot be told from forgeries")
	})
}

// The two canonical forms a verify takes from one serialization are the
// ones computed each in full, whatever the content hash holds.
func TestSealedFormsAreTheCanonicalForms(t *testing.T) {
	path := fullFixture(t, t.TempDir())
	l, err := ledger.Open(path)
	require.NoError(t, err)
	base := l.Receipts()[0]
	for _, hash := range []string{base.ContentHash, "", "x", `a"b`, "<&>", "sha256:" + strings.Repeat("0", 64), ",\"content_hash\":\"y\""} {
		r := base
		r.ContentHash = hash
		canonical, line, err := ledger.SealedForTest(r)
		require.NoError(t, err)
		want, err := r.Canonical()
		require.NoError(t, err)
		assert.Equal(t, string(want), string(canonical), "hash %q", hash)
		if hash != "" {
			wantLine, err := r.Line()
			require.NoError(t, err)
			assert.Equal(t, string(wantLine[:len(wantLine)-1]), string(line))
		}
	}
}
