package reserve_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/scenarios/scenariotest"
)

var sealedAt = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// reserveSet writes four bundles into a new directory, three in directory
// form and one in single-JSON form, and returns the directory and the
// bundles by name.
func reserveSet(t *testing.T) (string, map[string]*scenarios.Bundle) {
	t.Helper()
	dir := t.TempDir()
	set := map[string]*scenarios.Bundle{
		"l1-alpha":      scenariotest.Small("alpha", 1, "Refund for order alpha", "Hello, I would like a refund for alpha."),
		"l2-bravo":      scenariotest.Small("bravo", 2, "Refund needed: bravo", "Please refund bravo; it arrived broken."),
		"l4-charlie":    scenariotest.Small("charlie", 4, "refund charlie please", "Charlie here, the parcel never came."),
		"l0-delta.json": scenariotest.Small("delta", 0, "Question about delta refund", "Is delta eligible for a refund?"),
	}
	for name, b := range set {
		if strings.HasSuffix(name, ".json") {
			data, err := b.MarshalIndent()
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
			continue
		}
		require.NoError(t, scenarios.SaveDir(b, filepath.Join(dir, name)))
	}
	return dir, set
}

func seeded(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	s[0] = byte(seed)
	s[1] = byte(seed >> 8)
	return rand.NewChaCha8(s)
}

func seal(t *testing.T, dir string, seed uint64) (*reserve.Manifest, *reserve.Secrets) {
	t.Helper()
	m, s, err := reserve.SealDir(dir, reserve.LoadBundle, sealedAt, seeded(seed))
	require.NoError(t, err)
	return m, s
}

func TestSealShape(t *testing.T) {
	dir, set := reserveSet(t)
	m, s := seal(t, dir, 1)

	assert.Equal(t, reserve.ManifestFormat, m.Format)
	assert.Equal(t, "2026-03-01T12:00:00Z", m.CreatedAt)
	assert.Equal(t, 4, m.Count)
	require.Len(t, m.Entries, 4)
	require.Len(t, s.Entries, 4)
	assert.Equal(t, m.Root, s.Root)

	var commitments, names []string
	for i, e := range m.Entries {
		assert.Equal(t, []string{"r01", "r02", "r03", "r04"}[i], e.ID)
		assert.Equal(t, e.ID, s.Entries[i].ID)
		assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, e.Commitment)
		assert.Regexp(t, `^[0-9a-f]{64}$`, s.Entries[i].Salt)
		b := set[s.Entries[i].Bundle]
		require.NotNil(t, b, s.Entries[i].Bundle)
		assert.Equal(t, b.Meta.TopLevel, e.TopLevel)
		hash, err := b.Hash()
		require.NoError(t, err)
		assert.Equal(t, hash, s.Entries[i].BundleHash)
		commitments = append(commitments, e.Commitment)
		names = append(names, s.Entries[i].Bundle)
	}
	root, err := reserve.Root(commitments)
	require.NoError(t, err)
	assert.Equal(t, root, m.Root)
	sort.Strings(names)
	assert.Equal(t, []string{"l0-delta.json", "l1-alpha", "l2-bravo", "l4-charlie"}, names)
}

func TestSealIsAFunctionOfItsRandomness(t *testing.T) {
	dir, _ := reserveSet(t)
	m1, s1 := seal(t, dir, 7)
	m2, s2 := seal(t, dir, 7)
	assert.Equal(t, encode(t, m1), encode(t, m2))
	assert.Equal(t, encode(t, s1), encode(t, s2))

	m3, _ := seal(t, dir, 8)
	for i := range m1.Entries {
		assert.NotEqual(t, m1.Entries[i].Commitment, m3.Entries[i].Commitment)
	}
}

func TestSealOrderIsNotNameOrder(t *testing.T) {
	dir, _ := reserveSet(t)
	orders := map[string]bool{}
	for seed := range uint64(40) {
		_, s := seal(t, dir, seed)
		var names []string
		for _, e := range s.Entries {
			names = append(names, e.Bundle)
		}
		orders[strings.Join(names, ",")] = true
	}
	// 4! = 24 orders; forty seeds must show many of them.
	assert.Greater(t, len(orders), 10)
}

func TestSealRejects(t *testing.T) {
	b := scenariotest.Small("x", 1, "s", "b")
	tests := []struct {
		name    string
		bundles []reserve.Named
		rnd     []byte
	}{
		{"no bundles", nil, make([]byte, 1024)},
		{"duplicate name", []reserve.Named{{"a", b}, {"a", b}}, make([]byte, 1024)},
		{"path in name", []reserve.Named{{"../a", b}}, make([]byte, 1024)},
		{"randomness runs out", []reserve.Named{{"a", b}, {"b", b}}, make([]byte, 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := reserve.Seal(tt.bundles, sealedAt, bytes.NewReader(tt.rnd))
			require.Error(t, err)
		})
	}
}

func TestSealDirRejectsStrayFiles(t *testing.T) {
	dir, _ := reserveSet(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	_, _, err := reserve.SealDir(dir, reserve.LoadBundle, sealedAt, seeded(1))
	require.ErrorContains(t, err, "notes.txt")
}

func TestSealDirReportsEveryBadBundle(t *testing.T) {
	dir, _ := reserveSet(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad-one.json"), []byte(`{"format":`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad-two.json"), []byte(`{"nope":1}`), 0o644))
	_, _, err := reserve.SealDir(dir, reserve.LoadBundle, sealedAt, seeded(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad-one.json:1")
	assert.Contains(t, err.Error(), "bad-two.json:1")
}

func TestCommitLayout(t *testing.T) {
	salt := bytes.Repeat([]byte{0xab}, reserve.SaltSize)
	data := []byte(`{"a":1}`)
	got, err := reserve.Commit(salt, data)
	require.NoError(t, err)
	want := sha256.Sum256(append(append([]byte("amr.reserve.commit/v1\x00"), salt...), data...))
	assert.Equal(t, "sha256:"+hex.EncodeToString(want[:]), got)

	_, err = reserve.Commit(salt[:31], data)
	require.Error(t, err)
}

func TestRoot(t *testing.T) {
	a := "sha256:" + strings.Repeat("1", 64)
	b := "sha256:" + strings.Repeat("2", 64)
	ab, err := reserve.Root([]string{a, b})
	require.NoError(t, err)
	ba, err := reserve.Root([]string{b, a})
	require.NoError(t, err)
	assert.NotEqual(t, ab, ba, "the root fixes the order")

	raw, _ := hex.DecodeString(strings.Repeat("1", 64) + strings.Repeat("2", 64))
	want := sha256.Sum256(append([]byte("amr.reserve.root/v1\x00"), raw...))
	assert.Equal(t, "sha256:"+hex.EncodeToString(want[:]), ab)

	for _, bad := range []string{"", "sha256:12", "md5:" + strings.Repeat("1", 64), "sha256:" + strings.Repeat("A", 64)} {
		_, err := reserve.Root([]string{a, bad})
		assert.Error(t, err, bad)
	}
}

func encode(t *testing.T, v any) string {
	t.Helper()
	data, err := reserve.Encode(v)
	require.NoError(t, err)
	return string(data)
}

func TestManifestRoundTrip(t *testing.T) {
	dir, _ := reserveSet(t)
	m, s := seal(t, dir, 3)
	out := t.TempDir()
	mp, sp := filepath.Join(out, "manifest.json"), filepath.Join(out, "secrets.json")
	require.NoError(t, reserve.WriteFile(mp, m))
	require.NoError(t, reserve.WriteFile(sp, s))

	raw, err := os.ReadFile(mp)
	require.NoError(t, err)
	canon, err := jcs.Canonicalize(raw)
	require.NoError(t, err)
	assert.Equal(t, string(canon)+"\n", string(raw), "reserve files are canonical JSON and a newline")

	m2, err := reserve.ReadManifest(mp)
	require.NoError(t, err)
	assert.Equal(t, m, m2)
	s2, err := reserve.ReadSecrets(sp)
	require.NoError(t, err)
	assert.Equal(t, s, s2)
}

func TestReadManifestRejects(t *testing.T) {
	good := `{"count":0,"created_at":"x","entries":[],"format":"amr.reserve.manifest/v1","root":"r"}`
	tests := []struct{ name, text string }{
		{"unknown field", strings.Replace(good, `"count":0`, `"count":0,"extra":1`, 1)},
		{"duplicate key", strings.Replace(good, `"count":0`, `"count":0,"count":1`, 1)},
		{"not JSON", `{"count":`},
		{"wrong format", strings.Replace(good, "manifest/v1", "manifest/v9", 1)},
		{"invalid number", strings.Replace(good, `"count":0`, `"count":01`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.text), 0o644))
			_, err := reserve.ReadManifest(path)
			require.Error(t, err)
		})
	}
	path := filepath.Join(t.TempDir(), "m.json")
	require.NoError(t, os.WriteFile(path, []byte(good), 0o644))
	_, err := reserve.ReadManifest(path)
	require.NoError(t, err)
}

func TestReadSecretsRejectsUnsafeNames(t *testing.T) {
	for _, tt := range []struct{ name, id, bundle, salt string }{
		{"path in bundle", "r01", "../etc", strings.Repeat("0", 64)},
		{"path in id", "../r01", "a", strings.Repeat("0", 64)},
		{"short salt", "r01", "a", "00"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := reserve.Secrets{Format: reserve.SecretsFormat, Entries: []reserve.Secret{{ID: tt.id, Bundle: tt.bundle, Salt: tt.salt}}}
			path := filepath.Join(t.TempDir(), "s.json")
			require.NoError(t, reserve.WriteFile(path, s))
			_, err := reserve.ReadSecrets(path)
			require.Error(t, err)
		})
	}
}

// fakeRunner reports every level up to the bundle's top level as pass,
// except that bundles whose name is in fail fail their top level.
func fakeRunner(fail ...string) reserve.Runner {
	return func(b *scenarios.Bundle) ([reserve.Levels]string, error) {
		var out [reserve.Levels]string
		for l := 0; l <= b.Meta.TopLevel; l++ {
			out[l] = "pass"
		}
		for _, f := range fail {
			if f == b.Meta.Name {
				out[b.Meta.TopLevel] = "fail"
			}
		}
		return out, nil
	}
}

func TestFullCycle(t *testing.T) {
	dir, _ := reserveSet(t)
	m, s := seal(t, dir, 11)

	opt := reserve.ApplyOptions{Impl: "reference", Runs: 5, AppliedAt: sealedAt.Add(24 * time.Hour), HarnessVersion: "0.1.0"}
	app, runErrs, err := reserve.Apply(m, s, dir, reserve.LoadBundle, fakeRunner("bravo"), opt)
	require.NoError(t, err)
	assert.Empty(t, runErrs)
	assert.Equal(t, reserve.ApplicationFormat, app.Format)
	assert.Equal(t, m.Root, app.ManifestRoot)
	assert.Equal(t, "2026-03-02T12:00:00Z", app.AppliedAt)
	require.Len(t, app.Entries, 4)
	for i, e := range app.Entries {
		assert.Equal(t, m.Entries[i].ID, e.ID)
		assert.Equal(t, m.Entries[i].Commitment, e.Commitment)
		assert.Len(t, e.Levels, m.Entries[i].TopLevel+1)
		if s.Entries[i].Bundle == "l2-bravo" {
			assert.Equal(t, map[string]string{"L0": "pass", "L1": "pass", "L2": "fail"}, e.Levels)
		}
	}

	out := filepath.Join(t.TempDir(), "revealed")
	ids, err := reserve.Reveal(s, dir, reserve.LoadBundle, out)
	require.NoError(t, err)
	assert.Equal(t, []string{"r01", "r02", "r03", "r04"}, ids)

	report, err := reserve.Verify(m, out)
	require.NoError(t, err)
	assert.True(t, report.OK(), "%+v", report.Findings)
	assert.Equal(t, ids, report.Verified)

	// Each revealed bundle is the sealed bundle.
	for _, sec := range s.Entries {
		b, _, err := scenarios.Load(filepath.Join(out, sec.ID+".json"))
		require.NoError(t, err)
		hash, err := b.Hash()
		require.NoError(t, err)
		assert.Equal(t, sec.BundleHash, hash)
	}
}

func TestApplyRecordsRunnerErrorsWithoutTheirText(t *testing.T) {
	dir, _ := reserveSet(t)
	m, s := seal(t, dir, 2)
	run := func(b *scenarios.Bundle) ([reserve.Levels]string, error) {
		if b.Meta.Name == "charlie" {
			return [reserve.Levels]string{}, assert.AnError
		}
		return fakeRunner()(b)
	}
	app, runErrs, err := reserve.Apply(m, s, dir, reserve.LoadBundle, run, reserve.ApplyOptions{Runs: 5})
	require.NoError(t, err)
	require.Len(t, runErrs, 1)
	data := encode(t, app)
	assert.NotContains(t, data, assert.AnError.Error())
	errored := 0
	for _, e := range app.Entries {
		if e.Error {
			errored++
			assert.Empty(t, e.Levels)
			assert.Contains(t, runErrs[0].Error(), e.ID)
		}
	}
	assert.Equal(t, 1, errored)
}

func TestApplyRefuses(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string, m *reserve.Manifest, s *reserve.Secrets)
		want   string
	}{
		{"edited bundle", func(t *testing.T, dir string, m *reserve.Manifest, s *reserve.Secrets) {
			b := scenariotest.Small("alpha", 1, "Refund for order alpha", "Hello, I would like a refund for ALPHA.")
			require.NoError(t, scenarios.SaveDir(b, filepath.Join(dir, "l1-alpha")))
		}, "changed since sealing"},
		{"secrets of another seal", func(t *testing.T, dir string, m *reserve.Manifest, s *reserve.Secrets) {
			_, other := seal(t, dir, 99)
			*s = *other
		}, "root"},
		{"salt that does not open the commitment", func(t *testing.T, dir string, m *reserve.Manifest, s *reserve.Secrets) {
			s.Entries[0].Salt, s.Entries[1].Salt = s.Entries[1].Salt, s.Entries[0].Salt
		}, "does not open"},
		{"missing bundle", func(t *testing.T, dir string, m *reserve.Manifest, s *reserve.Secrets) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "l4-charlie")))
		}, "l4-charlie"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := reserveSet(t)
			m, s := seal(t, dir, 5)
			tt.tamper(t, dir, m, s)
			_, _, err := reserve.Apply(m, s, dir, reserve.LoadBundle, fakeRunner(), reserve.ApplyOptions{})
			require.ErrorContains(t, err, tt.want)
		})
	}
	dir, _ := reserveSet(t)
	m, s := seal(t, dir, 5)
	_, _, err := reserve.Apply(m, s, dir, reserve.LoadBundle, nil, reserve.ApplyOptions{})
	require.ErrorContains(t, err, "no runner")
}

func TestRevealRefuses(t *testing.T) {
	dir, _ := reserveSet(t)
	_, s := seal(t, dir, 4)

	full := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(full, "x"), nil, 0o644))
	_, err := reserve.Reveal(s, dir, reserve.LoadBundle, full)
	require.ErrorContains(t, err, "not empty")

	b := scenariotest.Small("bravo", 2, "Refund needed: bravo", "Please refund bravo; it arrived broken!")
	require.NoError(t, scenarios.SaveDir(b, filepath.Join(dir, "l2-bravo")))
	out := filepath.Join(t.TempDir(), "out")
	_, err = reserve.Reveal(s, dir, reserve.LoadBundle, out)
	require.ErrorContains(t, err, "changed since sealing")
	_, statErr := os.Stat(out)
	assert.True(t, os.IsNotExist(statErr), "nothing is written when a bundle fails its check")
}

// A reformatted sealed bundle (whitespace, key order) still opens its
// commitment: apply and reveal accept it.
func TestReformattedSourceStillOpens(t *testing.T) {
	dir, _ := reserveSet(t)
	m, s := seal(t, dir, 6)
	scenariotest.ReformatDir(t, filepath.Join(dir, "l1-alpha"))
	scenariotest.ReformatJSONFile(t, filepath.Join(dir, "l0-delta.json"))
	_, _, err := reserve.Apply(m, s, dir, reserve.LoadBundle, fakeRunner(), reserve.ApplyOptions{})
	require.NoError(t, err)
	_, err = reserve.Reveal(s, dir, reserve.LoadBundle, filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
}
