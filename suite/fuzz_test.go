package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amr-bench/amr/internal/hostile"
)

// FuzzReadBaseline: any baseline file is read or refused with an error
// naming it, never a panic.
func FuzzReadBaseline(f *testing.F) {
	f.Add([]byte(`{"format":"` + BaselineFormat + `","runs":1,"results":[]}`))
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "baseline.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadBaseline(p); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("the error does not name the file: %v", err)
		}
	})
}
