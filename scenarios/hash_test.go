package scenarios_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/scenarios/scenariotest"
)

func hashOf(t *testing.T, path string) string {
	t.Helper()
	b, _, err := scenarios.Load(path)
	require.NoError(t, err)
	h, err := b.Hash()
	require.NoError(t, err)
	return h
}

func TestBundleHashIgnoresFormAndFormatting(t *testing.T) {
	b := scenariotest.Small("echo", 3, "Refund echo", "Echo wants a refund.")
	dir := t.TempDir()

	asDir := filepath.Join(dir, "echo")
	require.NoError(t, scenarios.SaveDir(b, asDir))
	asFile := filepath.Join(dir, "echo.json")
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(asFile, data, 0o644))

	want, err := b.Hash()
	require.NoError(t, err)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, want)
	assert.Equal(t, want, hashOf(t, asDir), "directory form")
	assert.Equal(t, want, hashOf(t, asFile), "single-JSON form")

	scenariotest.ReformatDir(t, asDir)
	scenariotest.ReformatJSONFile(t, asFile)
	assert.Equal(t, want, hashOf(t, asDir), "reformatted directory form")
	assert.Equal(t, want, hashOf(t, asFile), "reformatted single-JSON form")
}

// rules.json's bytes are part of what the implementation is given, so they
// are part of the bundle: a reformatted rules.json is another bundle, and the
// directory form, the single-JSON form and back again keep bytes and hash.
func TestBundleHashCoversTheRulesBytes(t *testing.T) {
	b := scenariotest.Small("kilo", 2, "Refund kilo", "Kilo body.")
	b.Faults = append(b.Faults, scenarios.Fault{At: 5, Kind: scenarios.FaultRules, Rules: []scenarios.Rule{{ID: "all", Admit: true}}})
	plain, err := b.Hash()
	require.NoError(t, err)

	dir := filepath.Join(t.TempDir(), "kilo")
	require.NoError(t, scenarios.SaveDir(b, dir))
	compactRules, err := json.Marshal(b.Rules)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, scenarios.FileRules), compactRules, 0o644))
	compacted := hashOf(t, dir)
	assert.NotEqual(t, plain, compacted, "other rules.json bytes, another bundle")

	loaded, _, err := scenarios.Load(dir)
	require.NoError(t, err)
	asFile := filepath.Join(t.TempDir(), "kilo.json")
	require.NoError(t, scenarios.SaveJSON(loaded, asFile))
	assert.Equal(t, compacted, hashOf(t, asFile), "single-JSON form")
	scenariotest.ReformatJSONFile(t, asFile)
	assert.Equal(t, compacted, hashOf(t, asFile), "the single-JSON form's own formatting does not count")
	fromFile, _, err := scenarios.Load(asFile)
	require.NoError(t, err)
	back := filepath.Join(t.TempDir(), "kilo")
	require.NoError(t, scenarios.SaveDir(fromFile, back))
	assert.Equal(t, compacted, hashOf(t, back), "back to the directory form")
	written, err := os.ReadFile(filepath.Join(back, scenarios.FileRules))
	require.NoError(t, err)
	assert.Equal(t, string(compactRules), string(written))

	require.NoError(t, os.WriteFile(filepath.Join(back, scenarios.FileRules), scenarios.RulesBytes(b.Rules), 0o644))
	assert.Equal(t, plain, hashOf(t, back), "the default bytes are the bundle without a text")

	fault := b.Clone()
	fault.Faults[1].RulesJSON = `[{"admit":true,"id":"all"}]`
	h, err := fault.Hash()
	require.NoError(t, err)
	assert.NotEqual(t, plain, h, "a rules fault's bytes count too")
	same := b.Clone()
	same.RulesJSON = string(scenarios.RulesBytes(b.Rules))
	same.Faults[1].RulesJSON = string(scenarios.RulesBytes(b.Faults[1].Rules))
	h, err = same.Hash()
	require.NoError(t, err)
	assert.Equal(t, plain, h, "texts equal to the default bytes change nothing")
}

// An absent list and an empty one are the same bundle.
func TestBundleHashEmptyListsEqualMissingOnes(t *testing.T) {
	b := scenariotest.Small("foxtrot", 1, "s", "b")
	empty := b.Clone()
	empty.Signals, empty.Faults, empty.Fleet = []scenarios.Signal{}, []scenarios.Fault{}, []string{}
	missing := b.Clone()
	missing.Signals, missing.Faults, missing.Fleet = nil, nil, nil
	h1, err := empty.Hash()
	require.NoError(t, err)
	h2, err := missing.Hash()
	require.NoError(t, err)
	assert.Equal(t, h1, h2)
	assert.Nil(t, missing.Signals, "hashing leaves the bundle alone")
}

func TestBundleHashSeesEveryChange(t *testing.T) {
	base := scenariotest.Small("golf", 2, "Refund golf", "Golf body.")
	h0, err := base.Hash()
	require.NoError(t, err)
	edits := map[string]func(b *scenarios.Bundle){
		"body":        func(b *scenarios.Bundle) { b.Inbox[0].Body += " " },
		"tick":        func(b *scenarios.Bundle) { b.Inbox[0].At++ },
		"top level":   func(b *scenarios.Bundle) { b.Meta.TopLevel++ },
		"fleet order": func(b *scenarios.Bundle) { b.Fleet[0], b.Fleet[1] = b.Fleet[1], b.Fleet[0] },
		"rule":        func(b *scenarios.Bundle) { b.Rules[0].Admit = false },
		"fault":       func(b *scenarios.Bundle) { b.Faults[0].AfterWrites = 1 },
		"posture":     func(b *scenarios.Bundle) { b.Mode.Posture = "maintenance" },
		"origin":      func(b *scenarios.Bundle) { b.Meta.Origin = &scenarios.Origin{Kind: "reserve", ReserveID: "r01"} },
		"unknown rule": func(b *scenarios.Bundle) {
			b.Rules[0].When.Unknown = map[string]json.RawMessage{"x": json.RawMessage(`1`)}
		},
		"anchor":        func(b *scenarios.Bundle) { b.Model.Anchors = append(b.Model.Anchors, "ORD-2") },
		"approval kind": func(b *scenarios.Bundle) { b.Approvals[0].Forge = scenarios.ForgeDangling },
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			b := base.Clone()
			edit(b)
			h, err := b.Hash()
			require.NoError(t, err)
			assert.NotEqual(t, h0, h)
		})
	}
}

// A crash after a send is another crash than one after any write: the log
// it counts is in the canonical bytes, and only when it is set (D138).
func TestBundleHashSeesTheLogACrashCounts(t *testing.T) {
	b := scenariotest.Small("kilo", 2, "Refund kilo", "Kilo body.")
	b.Faults[0].AfterWrites = 1
	any, err := b.Canonical()
	require.NoError(t, err)
	assert.NotContains(t, string(any), "writes_to")
	b.Faults[0].WritesTo = scenarios.SendLog
	send, err := b.Canonical()
	require.NoError(t, err)
	assert.Contains(t, string(send), `"writes_to":"outbox.jsonl"`)
	h1, err := b.Hash()
	require.NoError(t, err)
	b.Faults[0].WritesTo = ""
	h0, err := b.Hash()
	require.NoError(t, err)
	assert.NotEqual(t, h0, h1)
	b.Faults[0].WritesTo = scenarios.StateFile
	state, err := b.Canonical()
	require.NoError(t, err)
	assert.Contains(t, string(state), `"writes_to":"state.json"`)
	h2, err := b.Hash()
	require.NoError(t, err)
	assert.NotEqual(t, h0, h2)
	assert.NotEqual(t, h1, h2)
}

// The canonical bytes of a fixed bundle are pinned: a change here changes
// every published hash and commitment, and must be deliberate.
func TestCanonicalBundleGolden(t *testing.T) {
	b, _, err := scenarios.Load(filepath.Join("testdata", "hash", "hotel.json"))
	require.NoError(t, err)
	got, err := b.Canonical()
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "hash", "hotel.canonical.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	h, err := b.Hash()
	require.NoError(t, err)
	assert.Equal(t, "sha256:"+sha256Hex(want), h)
}

func TestBundleHashRejectsInexactIntegers(t *testing.T) {
	b := scenariotest.Small("india", 1, "s", "b")
	b.Meta.Horizon = 1<<53 + 1
	_, err := b.Hash()
	require.ErrorContains(t, err, "would change")
	var none *scenarios.Bundle
	_, err = none.Hash()
	require.Error(t, err)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func ptr[T any](v T) *T { return &v }

// BenchmarkBundleHash hashes every published bundle; general is the same
// bytes through encoding/json and the canonicalizing parse.
func BenchmarkBundleHash(b *testing.B) {
	published, err := scenarios.Published()
	require.NoError(b, err)
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range published {
				if _, err := p.Bundle.Hash(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range published {
				data, err := jcs.Marshal(p.Bundle.HashForm())
				if err != nil {
					b.Fatal(err)
				}
				sha256.Sum256(data)
			}
		}
	})
}
