package scenarios

import "testing"

// BenchmarkPublished is what `amr run` does before its first play: every
// published bundle loaded from the binary and validated.
func BenchmarkPublished(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		pubs, err := Published()
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range pubs {
			if errs := Validate(p.Bundle, p.Source).Errors(); len(errs) > 0 {
				b.Fatalf("%s: %v", p.Name, errs)
			}
		}
	}
}
