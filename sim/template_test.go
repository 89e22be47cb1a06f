package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// The hand scan fills placeholders exactly as the replacer does, stray and
// nested braces and placeholders inside values included.
func TestFillReplaceIsTheReplacer(t *testing.T) {
	parts := []string{"{{anchor}}", "{{call_id}}", "{{sender}}", "{{participants}}", "{{", "}}", "{", "}",
		"{{anchor", "anchor}}", "a", " ", "é", "{{Anchor}}"}
	piece := rapid.StringOf(rapid.SampledFrom([]rune("ab{}")))
	text := func(t *rapid.T, label string) string {
		var s string
		for n := rapid.IntRange(0, 8).Draw(t, label+"-n"); n > 0; n-- {
			s += rapid.OneOf(rapid.SampledFrom(parts), piece).Draw(t, label)
		}
		return s
	}
	rapid.Check(t, func(t *rapid.T) {
		f := fill{anchor: text(t, "anchor"), callID: text(t, "call"), sender: text(t, "sender"), participants: text(t, "who")}
		s := text(t, "template")
		if got, want := f.replace(s), f.replacer().Replace(s); got != want {
			t.Fatalf("replace(%q) = %q, the replacer gives %q", s, got, want)
		}
	})
}
