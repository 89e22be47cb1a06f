package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const auditTwo = `{"event":"admission","at":1,"work_id":"w1","message_id":"m1","rules_hash":"sha256:x"}
{"event":"note","at":2}
`

// The same bytes are parsed once and the parse shared; other bytes get
// their own parse, whichever reader asks first.
func TestParsedSharesOneParsePerBytes(t *testing.T) {
	p := &Parsed{}
	first, errs := p.Audit([]byte(auditTwo))
	require.Empty(t, errs)
	require.Len(t, first, 2)
	again, _ := p.Audit([]byte(auditTwo)) // equal bytes, another slice
	assert.Same(t, &first[0], &again[0], "equal bytes are not parsed again")

	shorter := []byte(auditTwo[:len(auditTwo)-len(`{"event":"note","at":2}`)-1])
	other, _ := p.Audit(shorter)
	require.Len(t, other, 1)
	want, _ := ParseAudit(shorter)
	assert.Equal(t, want, other)
	back, _ := p.Audit([]byte(auditTwo))
	assert.Len(t, back, 2, "asking with the first bytes again gives their parse, not the last one's")
}

// A caller that changes the buffer it passed gets the new bytes parsed:
// the memo compares against its own copy.
func TestParsedIsNotFooledByAReusedBuffer(t *testing.T) {
	p := &Parsed{}
	buf := []byte(`{"id":"m1","conversation_id":"c1","from":"a","subject":"s","body":"b","at":1}` + "\n")
	lines, errs := p.Inbox(buf)
	require.Empty(t, errs)
	require.Equal(t, "m1", lines[0].Rec.ID)
	copy(buf[7:9], "m2")
	lines, _ = p.Inbox(buf)
	require.Len(t, lines, 1)
	assert.Equal(t, "m2", lines[0].Rec.ID)
}

// Every file's method is its Parse function, errors included, shared or
// not (a nil Parsed parses every time).
func TestParsedGivesWhatTheParseFunctionsGive(t *testing.T) {
	bad := []byte("{\"approval_id\":\"a1\"}\nnot json\n")
	for _, p := range []*Parsed{nil, {}} {
		for range 2 {
			gotA, errA := p.Approvals(bad)
			wantA, werrA := ParseApprovals(bad)
			assert.Equal(t, wantA, gotA)
			assert.Equal(t, werrA, errA)
			gotS, errS := p.Signals(bad)
			wantS, werrS := ParseSignals(bad)
			assert.Equal(t, wantS, gotS)
			assert.Equal(t, werrS, errS)
			gotD, errD := p.Drafts(bad)
			wantD, werrD := ParseDrafts(bad)
			assert.Equal(t, wantD, gotD)
			assert.Equal(t, werrD, errD)
			gotO, errO := p.Outbox(bad)
			wantO, werrO := ParseOutbox(bad)
			assert.Equal(t, wantO, gotO)
			assert.Equal(t, werrO, errO)
			gotM, errM := p.ModelCalls(bad)
			wantM, werrM := ParseModelCalls(bad)
			assert.Equal(t, wantM, gotM)
			assert.Equal(t, werrM, errM)
			gotI, errI := p.Inbox(bad)
			wantI, werrI := ParseInbox(bad)
			assert.Equal(t, wantI, gotI)
			assert.Equal(t, werrI, errI)
			assert.NotEmpty(t, errI)
		}
	}
}

// Past memoCopyBytes the memo keeps a digest, not a copy: equal bytes in
// another slice still share the parse, and a reused buffer changed in one
// byte is parsed again.
func TestParsedLargeFileIsKnownByItsDigest(t *testing.T) {
	line := `{"id":"m1","conversation_id":"c1","from":"a","subject":"s","body":"b","at":1}` + "\n"
	var buf []byte
	for len(buf) <= memoCopyBytes {
		buf = append(buf, line...)
	}
	p := &Parsed{}
	first, errs := p.Inbox(buf)
	require.Empty(t, errs)
	assert.Nil(t, p.inbox.data, "no copy of a large file is kept")
	again, _ := p.Inbox(append([]byte(nil), buf...))
	assert.Same(t, &first[0], &again[0], "equal bytes are not parsed again")
	copy(buf[len(buf)-len(line)+7:], "m2")
	changed, _ := p.Inbox(buf)
	require.Len(t, changed, len(first))
	assert.Equal(t, "m2", changed[len(changed)-1].Rec.ID)
	assert.Equal(t, "m1", changed[0].Rec.ID)
}
