package reserve_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/reserve"
	"github.com/amr-bench/amr/scenarios"
)

func hashOf(t *testing.T, path string) string {
	t.Helper()
	b, _, err := scenarios.Load(path)
	require.NoError(t, err)
	h, err := reserve.BundleHash(b)
	require.NoError(t, err)
	return h
}

func TestBundleHashIgnoresFormAndFormatting(t *testing.T) {
	b := testBundle("echo", 3, "Refund echo", "Echo wants a refund.")
	dir := t.TempDir()

	asDir := filepath.Join(dir, "echo")
	require.NoError(t, scenarios.SaveDir(b, asDir))
	asFile := filepath.Join(dir, "echo.json")
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(asFile, data, 0o644))

	want, err := reserve.BundleHash(b)
	require.NoError(t, err)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, want)
	assert.Equal(t, want, hashOf(t, asDir), "directory form")
	assert.Equal(t, want, hashOf(t, asFile), "single-JSON form")

	reformatDir(t, asDir)
	reformatJSONFile(t, asFile)
	assert.Equal(t, want, hashOf(t, asDir), "reformatted directory form")
	assert.Equal(t, want, hashOf(t, asFile), "reformatted single-JSON form")
}

// An absent list and an empty one are the same bundle.
func TestBundleHashEmptyListsEqualMissingOnes(t *testing.T) {
	b := testBundle("foxtrot", 1, "s", "b")
	empty := b.Clone()
	empty.Signals, empty.Faults, empty.Fleet = []scenarios.Signal{}, []scenarios.Fault{}, []string{}
	missing := b.Clone()
	missing.Signals, missing.Faults, missing.Fleet = nil, nil, nil
	h1, err := reserve.BundleHash(empty)
	require.NoError(t, err)
	h2, err := reserve.BundleHash(missing)
	require.NoError(t, err)
	assert.Equal(t, h1, h2)
	assert.Nil(t, missing.Signals, "hashing leaves the bundle alone")
}

func TestBundleHashSeesEveryChange(t *testing.T) {
	base := testBundle("golf", 2, "Refund golf", "Golf body.")
	h0, err := reserve.BundleHash(base)
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
			h, err := reserve.BundleHash(b)
			require.NoError(t, err)
			assert.NotEqual(t, h0, h)
		})
	}
}

// The canonical bytes of a fixed bundle are pinned: a change here changes
// every published hash and commitment, and must be deliberate.
func TestCanonicalBundleGolden(t *testing.T) {
	b, _, err := scenarios.Load(filepath.Join("testdata", "bundle", "hotel.json"))
	require.NoError(t, err)
	got, err := reserve.CanonicalBundle(b)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "bundle", "hotel.canonical.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	h, err := reserve.BundleHash(b)
	require.NoError(t, err)
	assert.Equal(t, "sha256:"+sha256Hex(want), h)
}

func TestBundleHashRejectsInexactIntegers(t *testing.T) {
	b := testBundle("india", 1, "s", "b")
	b.Meta.Horizon = 1<<53 + 1
	_, err := reserve.BundleHash(b)
	require.ErrorContains(t, err, "would change")
	_, err = reserve.BundleHash(nil)
	require.Error(t, err)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
