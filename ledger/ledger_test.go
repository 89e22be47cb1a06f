package ledger_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/ledger"
)

// fixture writes a ledger of n receipts, each with one artifact kept
// beside it, and returns the ledger's path.
func fixture(t testing.TB, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "ledger.jsonl")
	l, err := ledger.Open(path)
	require.NoError(t, err)
	for i := 1; i <= n; i++ {
		level := "pass"
		if i == 2 {
			level = "fail" // one failing run, for the lies about it
		}
		outbox := keepFile(t, dir, fmt.Sprintf("out/run-%d/outbox.jsonl", i), fmt.Sprintf(`{"effect_id":"e%d"}`+"\n", i))
		verdict := keepFile(t, dir, fmt.Sprintf("out/run-%d/verdict.json", i),
			fmt.Sprintf(`{"run": %d, "engine_seed": "%d", "levels": {"L0": %q}, "origin": "model-based", "violations": []}`+"\n", i, i, level))
		_, err := l.Append(ledger.Receipt{Scenario: "s", BundleHash: "sha256:b", Run: i, Seed: fmt.Sprint(i),
			Impl:           ledger.Impl{Name: "reference", Fingerprint: ledger.Fingerprint("reference", "0.1.0")},
			HarnessVersion: "0.1.0", Status: ledger.StatusRan,
			Verdict:   ledger.Verdict{Levels: map[string]string{"L0": level}, Origin: "model-based"},
			Artifacts: []ledger.Artifact{outbox, verdict}})
		require.NoError(t, err)
	}
	return path
}

// keepFile writes an artifact under dir and returns it as a receipt names
// it.
func keepFile(t testing.TB, dir, rel, content string) ledger.Artifact {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644))
	name := "sandbox/" + filepath.Base(rel)
	if filepath.Base(rel) == "verdict.json" {
		name = "verdict.json"
	}
	return ledger.Artifact{Name: name, Path: rel, Hash: ledger.Digest([]byte(content))}
}

func lines(t testing.TB, path string) [][]byte {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func write(t testing.TB, path string, ls [][]byte) {
	var buf bytes.Buffer
	for _, l := range ls {
		buf.Write(bytes.TrimSuffix(l, []byte("\n")))
		buf.WriteByte('\n')
	}
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

func TestAppendChainsAndSeals(t *testing.T) {
	path := fixture(t, t.TempDir(), 3)
	l, err := ledger.Open(path)
	require.NoError(t, err)
	rs := l.Receipts()
	require.Len(t, rs, 3)
	assert.Nil(t, rs[0].Prev)
	for i, r := range rs {
		assert.Equal(t, ledger.Format, r.Format)
		assert.Equal(t, ledger.HashAlg, r.HashAlg)
		assert.Equal(t, ledger.SignatureNone, r.Signature.Scheme)
		assert.NotEmpty(t, r.Signature.NullReason)
		h, err := r.Hash()
		require.NoError(t, err)
		assert.Equal(t, h, r.ContentHash)
		if i > 0 {
			require.NotNil(t, r.Prev)
			assert.Equal(t, rs[i-1].ContentHash, *r.Prev)
		}
	}
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Problems)
	assert.Equal(t, 3, rep.Ran)
	assert.Equal(t, 6, rep.ArtifactsChecked)
	assert.Equal(t, rs[2].ContentHash, rep.Head)
}

// Every way to tamper with a ledger is reported, by position.
func TestVerifyReportsTamperingByPosition(t *testing.T) {
	type problem struct {
		pos  int
		kind string
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir, path string) string // returns the head to expect, if any
		want   []problem
	}{
		{"one byte edited", func(t *testing.T, dir, path string) string {
			ls := lines(t, path)
			ls[2] = bytes.Replace(ls[2], []byte(`"run":3`), []byte(`"run":4`), 1)
			write(t, path, ls)
			return ""
		}, []problem{{3, ledger.ProblemEdited}, {3, ledger.ProblemArtifactDisagrees}}},
		{"one byte edited and the hash recomputed", func(t *testing.T, dir, path string) string {
			l, err := ledger.Open(path)
			require.NoError(t, err)
			r := l.Receipts()[2]
			r.Verdict.Levels["L0"] = "fail"
			r.ContentHash, err = r.Hash()
			require.NoError(t, err)
			line, err := r.Line()
			require.NoError(t, err)
			ls := lines(t, path)
			ls[2] = line
			write(t, path, ls)
			return ""
		}, []problem{{3, ledger.ProblemArtifactDisagrees}, {4, ledger.ProblemLinkMissing}}},
		{"one receipt deleted", func(t *testing.T, dir, path string) string {
			ls := lines(t, path)
			write(t, path, append(ls[:2:2], ls[3:]...))
			return ""
		}, []problem{{3, ledger.ProblemLinkMissing}}},
		{"the first receipt deleted", func(t *testing.T, dir, path string) string {
			write(t, path, lines(t, path)[1:])
			return ""
		}, []problem{{1, ledger.ProblemFirstLinked}}},
		{"two receipts swapped", func(t *testing.T, dir, path string) string {
			ls := lines(t, path)
			ls[1], ls[2] = ls[2], ls[1]
			write(t, path, ls)
			return ""
		}, []problem{{2, ledger.ProblemLinkReordered}, {3, ledger.ProblemLinkSkips}, {4, ledger.ProblemLinkSkips}}},
		{"the last receipt deleted, caught by the published head", func(t *testing.T, dir, path string) string {
			rep, err := ledger.Verify(path, "")
			require.NoError(t, err)
			ls := lines(t, path)
			write(t, path, ls[:len(ls)-1])
			return rep.Head
		}, []problem{{4, ledger.ProblemHead}}},
		{"a kept artifact edited", func(t *testing.T, dir, path string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "out/run-2/outbox.jsonl"), []byte("{}\n"), 0o644))
			return ""
		}, []problem{{2, ledger.ProblemArtifactChanged}}},
		{"a line that is not a receipt", func(t *testing.T, dir, path string) string {
			ls := lines(t, path)
			ls[4] = []byte("not json")
			write(t, path, ls)
			return ""
		}, []problem{{5, ledger.ProblemUnparsable}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := fixture(t, dir, 5)
			head := c.tamper(t, dir, path)
			rep, err := ledger.Verify(path, head)
			require.NoError(t, err)
			var got []problem
			for _, p := range rep.Problems {
				got = append(got, problem{p.Position, p.Kind})
				assert.NotEmpty(t, p.Detail)
			}
			assert.Equal(t, c.want, got)
			assert.False(t, rep.OK())
		})
	}
}

func TestStoreIsContentAddressed(t *testing.T) {
	dir := t.TempDir()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	require.NoError(t, err)
	p1, err := l.Store([]byte("hello\n"))
	require.NoError(t, err)
	p2, err := l.Store([]byte("hello\n"))
	require.NoError(t, err)
	assert.Equal(t, p1, p2)
	assert.Regexp(t, `^objects/[0-9a-f]{2}/[0-9a-f]{62}$`, p1)
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p1)))
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(data))
	assert.Equal(t, ledger.Digest(data), "sha256:"+strings.ReplaceAll(strings.TrimPrefix(p1, "objects/"), "/", ""))
}

// A missing artifact is counted, not a problem: a ledger can travel without
// the files it describes.
func TestVerifyCountsMissingArtifacts(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, dir, 2)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "out")))
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	assert.True(t, rep.OK())
	assert.Equal(t, 4, rep.ArtifactsMissing)
	assert.Zero(t, rep.ArtifactsChecked)
}

func TestSkippedReceiptsMustCopyTheirSource(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, dir, 1)
	l, err := ledger.Open(path)
	require.NoError(t, err)
	src := l.Receipts()[0]
	got, ok := l.Lookup(src.Key())
	require.True(t, ok)
	assert.Equal(t, src.ContentHash, got.ContentHash)
	_, ok = l.Lookup(ledger.Key{BundleHash: "sha256:other"})
	assert.False(t, ok)

	skip := src
	skip.Status, skip.CopiedFrom, skip.Artifacts = ledger.StatusSkipped, src.ContentHash, nil
	_, err = l.Append(skip)
	require.NoError(t, err)
	bad := skip
	bad.Verdict = ledger.Verdict{Levels: map[string]string{"L0": "fail"}}
	_, err = l.Append(bad)
	require.NoError(t, err)
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, ledger.Problem{Position: 3, Kind: ledger.ProblemBadCopy, Detail: rep.Problems[0].Detail}, rep.Problems[0])
	assert.Equal(t, 2, rep.Skipped)
}

func TestOpenRefusesALedgerItCannotRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{\"format\":\"other\"}\n"), 0o644))
	_, err := ledger.Open(path)
	assert.ErrorContains(t, err, "ledger.jsonl:1")
	_, err = ledger.Verify(filepath.Join(dir, "missing.jsonl"), "")
	assert.Error(t, err)
	l, err := ledger.Open(filepath.Join(dir, "new.jsonl"))
	require.NoError(t, err)
	assert.Empty(t, l.Receipts())
}

func TestArtifactPathsMustBeRelative(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	l, err := ledger.Open(path)
	require.NoError(t, err)
	_, err = l.Append(ledger.Receipt{Scenario: "s", Status: ledger.StatusRan,
		Artifacts: []ledger.Artifact{{Name: "x", Path: "/etc/hostname", Hash: "sha256:0"}}})
	require.NoError(t, err)
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, ledger.ProblemArtifactPath, rep.Problems[0].Kind)
}

// Any change of any single byte of a ledger is detected.
func TestAnyByteChangeIsDetected(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, dir, 4)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	rapid.Check(t, func(rt *rapid.T) {
		i := rapid.IntRange(0, len(orig)-1).Draw(rt, "at")
		b := rapid.Byte().Filter(func(b byte) bool { return b != orig[i] }).Draw(rt, "byte")
		data := append([]byte(nil), orig...)
		data[i] = b
		p := filepath.Join(dir, "mutated.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			rt.Fatal(err)
		}
		rep, err := ledger.Verify(p, "")
		if err != nil {
			rt.Fatal(err)
		}
		if rep.OK() {
			rt.Fatalf("byte %d changed to %q and the ledger still verifies", i, b)
		}
	})
}

// A receipt's obligation counts are sealed with it; a receipt without them
// (sealed before they existed) has the same canonical bytes as before, so
// it still verifies.
func TestObligationCountsAreSealed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	l, err := ledger.Open(path)
	require.NoError(t, err)
	base := ledger.Receipt{Scenario: "s", BundleHash: "sha256:b", Run: 1, Seed: "1",
		Impl: ledger.Impl{Name: "reference", Fingerprint: ledger.Fingerprint("reference", "0.1.0")}, HarnessVersion: "0.1.0",
		Status: ledger.StatusRan, Verdict: ledger.Verdict{Levels: map[string]string{"L0": "pass"}, Origin: "model-based"}}
	old, err := l.Append(base)
	require.NoError(t, err)
	line, err := old.Line()
	require.NoError(t, err)
	for _, key := range []string{`"obligations"`, `"judged"`, `"vacuous"`} {
		assert.NotContains(t, string(line), key, "absent counts are not written")
	}

	counted := base
	counted.Run = 2
	counted.Verdict.Obligations = map[string]int{"L0": 0}
	counted.Verdict.Judged = map[string]int{"L0.reply": 0}
	counted.Verdict.Vacuous = []string{"L0"}
	sealed, err := l.Append(counted)
	require.NoError(t, err)
	line, err = sealed.Line()
	require.NoError(t, err)
	assert.Contains(t, string(line), `"vacuous":["L0"]`)

	again, err := ledger.Open(path)
	require.NoError(t, err)
	rs := again.Receipts()
	require.Len(t, rs, 2)
	assert.Equal(t, []string{"L0"}, rs[1].Verdict.Vacuous)
	assert.Equal(t, map[string]int{"L0": 0}, rs[1].Verdict.Obligations)
	h, err := rs[1].Hash()
	require.NoError(t, err)
	assert.Equal(t, sealed.ContentHash, h)
	rep, err := ledger.Verify(path, "")
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Problems)
}
