package ledger_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/ledger"
)

// benchLedger writes a ledger shaped like the published suite's after
// `rounds` runs of amr run --ledger: 60 ran receipts, each with 15 stored
// artifacts and a verdict.json, then 60 skipped receipts per later round.
func benchLedger(b *testing.B, rounds int) string {
	b.Helper()
	dir := b.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	l, err := ledger.Open(path)
	require.NoError(b, err)
	var ran []ledger.Receipt
	for i := 0; i < 60; i++ {
		r := ledger.Receipt{Scenario: fmt.Sprintf("s%d", i/5), BundleHash: "sha256:b", Run: i%5 + 1, Seed: fmt.Sprint(i),
			Impl: ledger.Impl{Name: "reference", Fingerprint: ledger.Fingerprint("reference", "0.1.0")}, HarnessVersion: "0.1.0",
			Status: ledger.StatusRan, Verdict: ledger.Verdict{Levels: map[string]string{"L0": "pass"}, Origin: "model-based"}}
		for k := 0; k < 14; k++ {
			data := []byte(strings.Repeat(fmt.Sprintf(`{"line":%d,"k":%d}`+"\n", i, k), 20))
			p, err := l.Store(data)
			require.NoError(b, err)
			r.Artifacts = append(r.Artifacts, ledger.Artifact{Name: fmt.Sprintf("sandbox/f%02d", k), Path: p, Hash: ledger.Digest(data)})
		}
		v := []byte(fmt.Sprintf(`{"run": %d, "engine_seed": "%d", "levels": {"L0": "pass"}, "origin": "model-based", "violations": [], "pad": %q}`,
			i%5+1, i, strings.Repeat("x", 4000)))
		p, err := l.Store(v)
		require.NoError(b, err)
		r.Artifacts = append(r.Artifacts, ledger.Artifact{Name: "verdict.json", Path: p, Hash: ledger.Digest(v)})
		sealed, err := l.Append(r)
		require.NoError(b, err)
		ran = append(ran, sealed)
	}
	for round := 1; round < rounds; round++ {
		for _, src := range ran {
			skip := src
			skip.Status, skip.CopiedFrom, skip.Artifacts = ledger.StatusSkipped, src.ContentHash, nil
			_, err := l.Append(skip)
			require.NoError(b, err)
		}
	}
	return path
}

// Opening a ledger verifies it (every receipt's hash, the chain, every
// artifact re-hashed, each ran receipt against its verdict.json): what a
// memoized amr run pays before it skips anything.
func BenchmarkOpen(b *testing.B) {
	for _, rounds := range []int{1, 16} {
		b.Run(fmt.Sprintf("rounds=%d", rounds), func(b *testing.B) {
			path := benchLedger(b, rounds)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l, err := ledger.Open(path)
				if err != nil || l.Withheld() != 0 {
					b.Fatal(err, l.Withheld())
				}
			}
		})
	}
}
