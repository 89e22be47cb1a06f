package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"
)

// intern is string(b) for any bytes; for the words of the files it costs
// no allocation.
func TestInternIsTheBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
		if got := intern(b); got != string(b) {
			t.Fatalf("intern(%q) = %q", b, got)
		}
	})
	for _, w := range []string{"event", "work_id", "admission", "stood_down", "operator_escalation", "w-m1", "eventx", ""} {
		assert.Equal(t, w, intern([]byte(w)))
	}
	word := []byte("admission")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = intern(word) }), "a word of the files is not allocated")
	other := []byte("w-m1-not-a-word")
	assert.NotZero(t, testing.AllocsPerRun(100, func() { _ = intern(other) }), "other bytes are their own string")
}
