package fuzz

import (
	"bytes"
	"testing"

	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/internal/jcs"
	"github.com/amr-bench/amr/scenarios"
)

// A generated bundle's canonical bytes, which a campaign takes by hand,
// are those of the general path, on every preset.
func TestGeneratedCanonicalMatchesMarshal(t *testing.T) {
	bundles := []*scenarios.Bundle{}
	for _, preset := range faults.Presets() {
		for i := range 150 {
			_, b, err := Generated(uint64(7+i%3), i, preset.Name)
			if err != nil {
				t.Fatal(err)
			}
			bundles = append(bundles, b)
		}
	}
	published, err := scenarios.Published()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range published {
		bundles = append(bundles, p.Bundle)
	}
	for _, b := range bundles {
		want, err := jcs.Marshal(b.HashForm())
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("bundle %s: canonical bytes differ from the general path's", b.Meta.Name)
		}
	}
}
