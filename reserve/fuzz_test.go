package reserve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amr-bench/amr/internal/hostile"
)

// FuzzReadManifest: any manifest or secrets file is read or refused with
// an error naming it, never a panic.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"format":"amr-reserve-manifest/1","entries":[]}`))
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(p); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("the error does not name the file: %v", err)
		}
		_, _ = ReadSecrets(p)
	})
}
