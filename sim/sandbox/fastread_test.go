package sandbox

import (
	"encoding/json"
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

// The clock's fast read says what json.Unmarshal says, for the harness's
// spelling and for anything near it (spaces, signs, fractions, leading
// zeros, other fields, no newline or two), which it leaves to Unmarshal.
func TestPlainClockAgreesWithUnmarshal(t *testing.T) {
	near := rapid.SampledFrom([]string{`{"tick":`, `{"tick": `, `{ "tick":`, `{"Tick":`, `{"tick":-`, `{"tick":0`, `{"x":1,"tick":`})
	tail := rapid.SampledFrom([]string{"}\n", "}", "}\n\n", " }\n", ".0}\n", "e1}\n", "}x", ""})
	rapid.Check(t, func(t *rapid.T) {
		data := []byte(near.Draw(t, "head") + rapid.StringMatching(`[0-9]{0,17}`).Draw(t, "n") + tail.Draw(t, "tail"))
		m := NewMemory()
		if err := m.Write(Clock, data); err != nil {
			t.Fatal(err)
		}
		got, gotErr := ReadClock(m)
		var c ClockFile
		wantErr := json.Unmarshal(data, &c)
		if (gotErr == nil) != (wantErr == nil) || wantErr == nil && got != c.Tick {
			t.Fatalf("%q: ReadClock %d, %v; Unmarshal %d, %v", data, got, gotErr, c.Tick, wantErr)
		}
	})
	tick, ok := plainClock([]byte(`{"tick":1234}` + "\n"))
	assert.True(t, ok)
	assert.Equal(t, 1234, tick)
	_, ok = plainClock([]byte(`{"tick":01}` + "\n"))
	assert.False(t, ok, "a leading zero is not JSON: Unmarshal refuses it")
}

// A marshalled line is the encoder's bytes without the newline, and its
// own: the buffer it was encoded in is reused by the next line, which must
// not show through.
func TestMarshalLineOwnsItsBytes(t *testing.T) {
	first, err := MarshalLine(Message{ID: "m1", Body: "<a & b>"})
	assert.NoError(t, err)
	want := `{"id":"m1","conversation_id":"","from":"","subject":"","body":"<a & b>","at":0}`
	second, err := MarshalLine(Message{ID: "m2", Body: "other text, longer than the first line was"})
	assert.NoError(t, err)
	assert.Equal(t, want, string(first), "HTML characters as written, and untouched by the next line")
	assert.Contains(t, string(second), `"id":"m2"`)
	_, err = MarshalLine(func() {})
	assert.Error(t, err, "what JSON cannot hold is an error, as before")
}
