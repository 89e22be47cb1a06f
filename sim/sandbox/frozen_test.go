package sandbox

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// within reports whether s's bytes lie in data.
func within(s string, data []byte) bool {
	p, d := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return p >= d && p+uintptr(len(s)) <= d+uintptr(len(data))
}

// A frozen file's records point into it and equal an unfrozen copy's; an
// unfrozen file's records never point into the caller's buffer.
func TestFrozenFilesAreNotCopied(t *testing.T) {
	text := `{"event":"admission","at":1,"work_id":"work-item-number-0001","message_id":"message-number-0001","rules_hash":"h"}` + "\n" +
		`{"event":"claim","at":2,"work_id":"w\u0031","agent_id":"agent-number-0001","outcome":"won","reason":null}` + "\n"
	loose := []byte(text)
	kept := []byte(text)
	release := Freeze(kept)
	defer release()
	require.True(t, isFrozen(kept[3:10]))
	require.False(t, isFrozen(loose))

	want, errs := ParseAudit(loose)
	require.Empty(t, errs)
	got, errs := ParseAudit(kept)
	require.Empty(t, errs)
	assert.Equal(t, withoutLines(want), withoutLines(got))
	for i := range got {
		assert.Equal(t, want[i].Rec.line, got[i].Rec.line)
		assert.True(t, within(unsafe.String(unsafe.SliceData(got[i].Rec.line), len(got[i].Rec.line)), kept), "the line is the file's, not a copy")
	}
	assert.True(t, within(got[0].Rec.WorkID, kept))
	assert.True(t, within(got[1].Rec.AgentID, kept))
	assert.Equal(t, "w1", got[1].Rec.WorkID, "an escaped string is decoded, not sliced")
	assert.False(t, within(want[0].Rec.WorkID, loose))

	inbox := []byte(`{"id":"message-number-0001","conversation_id":"c","from":"f","subject":"a subject of some length","body":"b","at":1}` + "\n")
	releaseInbox := Freeze(inbox)
	msgs, errs := ParseInbox(inbox)
	require.Empty(t, errs)
	assert.True(t, within(msgs[0].Rec.Subject, inbox))
	assert.Equal(t, "a subject of some length", msgs[0].Rec.Subject)

	// Released, the buffer is copied again.
	releaseInbox()
	assert.False(t, isFrozen(inbox))
	assert.True(t, isFrozen(kept), "only the buffer released is forgotten")
	msgs, errs = ParseInbox(inbox)
	require.Empty(t, errs)
	assert.False(t, within(msgs[0].Rec.Subject, inbox))
}

// withoutLines drops what AuditRecord keeps of its line, which is where the
// two parses differ: their bytes, in another place.
func withoutLines(ls []Line[AuditRecord]) []Line[AuditRecord] {
	out := append([]Line[AuditRecord](nil), ls...)
	for i := range out {
		assert.NotEmpty(nil, out[i].Rec.line)
		out[i].Rec.line = nil
	}
	return out
}
