package ledger

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/amr-bench/amr/internal/hostile"
)

// FuzzParseReceipt: any line is a receipt or an error, never a panic.
func FuzzParseReceipt(f *testing.F) {
	f.Add([]byte(`{"format":"` + Format + `","kind":"ran"}`))
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		_, _ = parseReceipt(line)
	})
}

// FuzzVerify: any ledger file is a report or an error, never a panic.
func FuzzVerify(f *testing.F) {
	f.Add([]byte(`{"format":"` + Format + `","kind":"ran"}` + "\n"))
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "ledger.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = Verify(p, "")
		_, _ = Open(p)
	})
}
