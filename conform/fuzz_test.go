package conform

import (
	"testing"

	"github.com/amr-bench/amr/internal/hostile"
)

// FuzzParse: any declaration is one or an error, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"impl":"reference","levels":[0,1]}`))
	for _, s := range hostile.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Parse(data)
	})
}
