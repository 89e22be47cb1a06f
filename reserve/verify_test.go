package reserve_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/scenarios/scenariotest"
)

// revealed seals a reserve set, reveals it and returns the manifest and the
// revealed directory.
func revealed(t *testing.T) (*reserve.Manifest, string) {
	t.Helper()
	dir, _ := reserveSet(t)
	m, s := seal(t, dir, 21)
	out := filepath.Join(t.TempDir(), "revealed")
	_, err := reserve.Reveal(s, dir, reserve.LoadBundle, out)
	require.NoError(t, err)
	return m, out
}

type found struct{ id, kind string }

func findings(r *reserve.Report) []found {
	out := []found{}
	for _, f := range r.Findings {
		out = append(out, found{f.ID, f.Kind})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].id != out[j].id {
			return out[i].id < out[j].id
		}
		return out[i].kind < out[j].kind
	})
	return out
}

func TestVerifyTamperTable(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, m *reserve.Manifest, dir string)
		want   []found
	}{
		{"untouched", func(t *testing.T, m *reserve.Manifest, dir string) {}, nil},
		{"one byte changed in a bundle", func(t *testing.T, m *reserve.Manifest, dir string) {
			path := filepath.Join(dir, "r02.json")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			i := strings.Index(string(data), "refund")
			require.Positive(t, i)
			data[i] = 'R'
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}, []found{{"r02", reserve.FindAltered}}},
		{"one digit changed in a bundle", func(t *testing.T, m *reserve.Manifest, dir string) {
			path := filepath.Join(dir, "r03.json")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			text := strings.Replace(string(data), `"horizon": 40`, `"horizon": 41`, 1)
			require.NotEqual(t, string(data), text)
			require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		}, []found{{"r03", reserve.FindAltered}}},
		{"swapped salts", func(t *testing.T, m *reserve.Manifest, dir string) {
			a, b := filepath.Join(dir, "r01.salt"), filepath.Join(dir, "r04.salt")
			da, err := os.ReadFile(a)
			require.NoError(t, err)
			db, err := os.ReadFile(b)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(a, db, 0o644))
			require.NoError(t, os.WriteFile(b, da, 0o644))
		}, []found{{"r01", reserve.FindAltered}, {"r04", reserve.FindAltered}}},
		{"swapped bundles", func(t *testing.T, m *reserve.Manifest, dir string) {
			require.NoError(t, os.Rename(filepath.Join(dir, "r01.json"), filepath.Join(dir, "tmp")))
			require.NoError(t, os.Rename(filepath.Join(dir, "r02.json"), filepath.Join(dir, "r01.json")))
			require.NoError(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "r02.json")))
		}, []found{{"r01", reserve.FindAltered}, {"r02", reserve.FindAltered}}},
		{"missing bundle", func(t *testing.T, m *reserve.Manifest, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "r03.json")))
		}, []found{{"r03", reserve.FindMissing}}},
		{"missing salt", func(t *testing.T, m *reserve.Manifest, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "r02.salt")))
		}, []found{{"r02", reserve.FindMissing}}},
		{"extra bundle", func(t *testing.T, m *reserve.Manifest, dir string) {
			data, err := scenariotest.Small("juliet", 1, "Refund juliet", "Juliet.").MarshalIndent()
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "r05.json"), data, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "r05.salt"), []byte(strings.Repeat("ab", 32)+"\n"), 0o644))
		}, []found{{"r05", reserve.FindExtra}, {"r05", reserve.FindExtra}}},
		{"changed manifest commitment", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Entries[1].Commitment = "sha256:" + strings.Repeat("0", 64)
		}, []found{{"", reserve.FindManifest}, {"r02", reserve.FindAltered}}},
		{"changed manifest top level", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Entries[2].TopLevel = 6
		}, []found{{"r03", reserve.FindAltered}}},
		{"changed manifest id", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Entries[3].ID = "r09"
		}, []found{{"r04", reserve.FindExtra}, {"r04", reserve.FindExtra}, {"r09", reserve.FindManifest}, {"r09", reserve.FindMissing}}},
		{"changed manifest count", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Count = 3
		}, []found{{"", reserve.FindManifest}}},
		{"dropped manifest entry", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Entries = m.Entries[:3]
			m.Count = 3
		}, []found{{"", reserve.FindManifest}, {"r04", reserve.FindExtra}, {"r04", reserve.FindExtra}}},
		{"reordered entries", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Entries[0], m.Entries[1] = m.Entries[1], m.Entries[0]
		}, []found{{"", reserve.FindManifest}, {"r01", reserve.FindReordered}, {"r02", reserve.FindReordered}}},
		{"reordered commitments under fixed ids", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Entries[0].Commitment, m.Entries[1].Commitment = m.Entries[1].Commitment, m.Entries[0].Commitment
		}, []found{{"", reserve.FindManifest}, {"r01", reserve.FindAltered}, {"r02", reserve.FindAltered}}},
		{"wrong root", func(t *testing.T, m *reserve.Manifest, dir string) {
			m.Root = "sha256:" + strings.Repeat("f", 64)
		}, []found{{"", reserve.FindManifest}}},
		{"reformatted bundle is accepted", func(t *testing.T, m *reserve.Manifest, dir string) {
			scenariotest.ReformatJSONFile(t, filepath.Join(dir, "r01.json"))
			compact(t, filepath.Join(dir, "r02.json"))
		}, nil},
		{"salt without its newline is accepted", func(t *testing.T, m *reserve.Manifest, dir string) {
			path := filepath.Join(dir, "r01.salt")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, []byte(strings.TrimSpace(string(data))), 0o644))
		}, nil},
		{"committed bundle that is not a bundle", func(t *testing.T, m *reserve.Manifest, dir string) {
			doc := []byte(`{"not":"a bundle"}`)
			salt := strings.Repeat("cd", 32)
			saltBytes, _ := hex.DecodeString(salt)
			c, err := reserve.Commit(saltBytes, doc)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "r01.json"), doc, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "r01.salt"), []byte(salt+"\n"), 0o644))
			m.Entries[0].Commitment = c
		}, []found{{"", reserve.FindManifest}, {"r01", reserve.FindInvalid}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dir := revealed(t)
			tt.tamper(t, m, dir)
			report, err := reserve.Verify(m, dir)
			require.NoError(t, err)
			want := tt.want
			if want == nil {
				want = []found{}
			}
			assert.Equal(t, want, findings(report), "%+v", report.Findings)
			assert.Equal(t, len(want) == 0, report.OK())
			for _, f := range report.Findings {
				assert.NotEmpty(t, f.Detail)
			}
		})
	}
}

func compact(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

func TestVerifyNeverReadsOutsideTheDirectory(t *testing.T) {
	m, dir := revealed(t)
	m.Entries[0].ID = "../r01"
	report, err := reserve.Verify(m, dir)
	require.NoError(t, err)
	assert.False(t, report.OK())
	assert.NotContains(t, report.Verified, "../r01")
}

func TestVerifyMissingDirectory(t *testing.T) {
	m, _ := revealed(t)
	_, err := reserve.Verify(m, filepath.Join(t.TempDir(), "absent"))
	require.Error(t, err)
}

// Neither the manifest nor the application log may let anyone confirm a
// guessed bundle: no unsalted hash of the bundle or of any of its files, no
// rules_hash, and none of its text.
func TestPublicFilesCarryNoBundleContent(t *testing.T) {
	dir, set := reserveSet(t)
	m, s := seal(t, dir, 31)
	app, _, err := reserve.Apply(m, s, dir, reserve.LoadBundle, fakeRunner("alpha"),
		reserve.ApplyOptions{Impl: "reference", Runs: 5, AppliedAt: time.Unix(0, 0), HarnessVersion: "0.1.0"})
	require.NoError(t, err)
	public := map[string]string{"manifest": encode(t, m), "application log": encode(t, app)}

	var secrets []string
	for name, b := range set {
		secrets = append(secrets, name)
		hash, err := b.Hash()
		require.NoError(t, err)
		secrets = append(secrets, strings.TrimPrefix(hash, "sha256:"))
		canonical, err := b.Canonical()
		require.NoError(t, err)
		secrets = append(secrets, sha256Hex(canonical))
		secrets = append(secrets, scenarios.RulesHash(scenarios.RulesBytes(b.Rules)))
		secrets = append(secrets, fileHashes(t, filepath.Join(dir, name))...)
		secrets = append(secrets, contentStrings(t, canonical)...)
	}
	for _, sec := range s.Entries {
		secrets = append(secrets, sec.Salt)
	}
	for what, text := range public {
		for _, secret := range secrets {
			assert.NotContains(t, text, secret, "%s leaks %q", what, secret)
		}
	}
}

// fileHashes lists the SHA-256 hex of a bundle's files, in either form.
func fileHashes(t *testing.T, path string) []string {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	paths := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		require.NoError(t, err)
		paths = paths[:0]
		for _, e := range entries {
			paths = append(paths, filepath.Join(path, e.Name()))
		}
	}
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		out = append(out, hex.EncodeToString(sum[:]))
	}
	return out
}

// contentStrings lists every string value of a bundle document that is
// long enough to be telling.
func contentStrings(t *testing.T, doc []byte) []string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(doc, &v))
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) >= 5 {
				out = append(out, v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	require.NotEmpty(t, out)
	return out
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
