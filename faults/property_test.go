package faults

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/scenarios"
)

// rapidSource lets rapid drive the generators: every draw is a rapid draw,
// so rapid explores profiles and bundles and shrinks them toward draws of 0,
// which the generators read as the simplest choice.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(s.t, "n")
}

// drawGenerated draws a preset, a profile and a bundle from rapid.
func drawGenerated(t *rapid.T) (Profile, *scenarios.Bundle) {
	preset := rapid.SampledFrom(PresetNames()).Draw(t, "preset")
	src := rapidSource{t}
	p, err := DrawProfile(src, preset)
	if err != nil {
		t.Fatalf("drawing a profile: %v", err)
	}
	return p, Generate(src, p)
}

// scheduledTicks lists every tick a bundle schedules something at, jump
// landings included.
func scheduledTicks(b *scenarios.Bundle) []int {
	var ticks []int
	for _, d := range b.Inbox {
		ticks = append(ticks, d.At)
	}
	for _, a := range b.Approvals {
		ticks = append(ticks, a.At)
	}
	for _, s := range b.Signals {
		ticks = append(ticks, s.At)
	}
	for _, f := range b.Faults {
		ticks = append(ticks, f.At)
		if f.Kind == scenarios.FaultTickJump {
			ticks = append(ticks, f.At+f.By)
		}
	}
	return ticks
}

func TestGeneratedBundlesAreValidWithAQuietTail(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, b := drawGenerated(t)
		require.Empty(t, scenarios.Validate(b, nil).Errors(), "profile %s", p)
		for _, tick := range scheduledTicks(b) {
			require.LessOrEqual(t, tick, b.Meta.Horizon-Tail, "something is scheduled in the quiet tail")
		}
		require.LessOrEqual(t, len(b.Inbox), maxMessages)
		require.Len(t, b.Fleet, p.Fleet)
	})
}

func TestGeneratedBundlesRoundTripBothForms(t *testing.T) {
	dir := t.TempDir()
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		_, b := drawGenerated(t)
		n++
		asDir := filepath.Join(dir, "b", string(rune('a'+n%26)), rapid.StringMatching(`[a-z]{6}`).Draw(t, "dir"))
		require.NoError(t, scenarios.SaveDir(b, asDir))
		fromDir, _, err := scenarios.LoadDir(asDir)
		require.NoError(t, err)
		require.Equal(t, b, fromDir, "directory form")

		data, err := b.MarshalIndent()
		require.NoError(t, err)
		fromJSON, _, err := scenarios.Parse("bundle.json", data)
		require.NoError(t, err)
		require.Equal(t, b, fromJSON, "single-JSON form")
	})
}

// DrawGenerated lets the package's black-box tests draw from rapid the way
// the property tests here do.
var DrawGenerated = drawGenerated
