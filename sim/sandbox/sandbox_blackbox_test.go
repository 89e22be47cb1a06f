package sandbox_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

// drafter is an implementation written against the exported surface only:
// at each step it reads the clock and the inbox, and declares one draft per
// message it has not drafted yet. It keeps nothing in memory, so a crash
// between steps loses nothing.
type drafter struct{}

func (drafter) Step(env *sandbox.Env) error {
	tick, err := sandbox.ReadClock(env.Files)
	if err != nil {
		return err
	}
	inbox, _ := env.Files.Read(sandbox.Inbox)
	drafts, _ := env.Files.Read(sandbox.Drafts)
	done := map[string]bool{}
	declared, _ := sandbox.ParseDrafts(drafts)
	for _, d := range declared {
		done[d.Rec.WorkID] = true
	}
	msgs, _ := sandbox.ParseInbox(inbox)
	for _, m := range msgs {
		work := "w-" + m.Rec.ID
		if done[work] {
			continue
		}
		body := "Re: " + m.Rec.Subject
		d := sandbox.Draft{DraftID: "d-" + m.Rec.ID, WorkID: work, ConversationID: m.Rec.ConversationID,
			Body: body, ContentHash: "sha256:" + work, DeclaredAt: tick, Origin: sandbox.Origin{ModelFree: true}}
		if err := sandbox.AppendJSON(env.Files, sandbox.Drafts, d); err != nil {
			return err
		}
	}
	return nil
}

// harness writes what the harness would at a tick: the clock, and the
// inbox lines delivered.
func harness(t *testing.T, s sandbox.Store, tick int, msgs ...sandbox.Message) {
	t.Helper()
	clock, err := sandbox.MarshalLine(sandbox.ClockFile{Tick: tick})
	require.NoError(t, err)
	require.NoError(t, s.Write(sandbox.Clock, append(clock, '\n')))
	for _, m := range msgs {
		require.NoError(t, sandbox.AppendJSON(s, sandbox.Inbox, m))
	}
}

func eachStore(t *testing.T, fn func(t *testing.T, s sandbox.Store)) {
	t.Run("memory", func(t *testing.T) { fn(t, sandbox.NewMemory()) })
	t.Run("dir", func(t *testing.T) {
		d, err := sandbox.OpenDir(filepath.Join(t.TempDir(), "sandbox"))
		require.NoError(t, err)
		fn(t, d)
	})
}

func TestAnImplementationOverEitherStore(t *testing.T) {
	eachStore(t, func(t *testing.T, s sandbox.Store) {
		var impl sandbox.Implementation = drafter{}
		env := &sandbox.Env{Files: s}
		harness(t, s, 1, sandbox.Message{ID: "m1", ConversationID: "c1", From: "a@x", Subject: "late order", Body: "?", At: 1})
		require.NoError(t, impl.Step(env))
		require.NoError(t, impl.Step(env), "a quiet step")
		harness(t, s, 2, sandbox.Message{ID: "m2", ConversationID: "c2", From: "b@x", Subject: "refund", Body: "!", At: 2})
		impl = drafter{} // a fresh instance, as after a crash
		require.NoError(t, impl.Step(env))

		data, err := s.Read(sandbox.Drafts)
		require.NoError(t, err)
		drafts, errs := sandbox.ParseDrafts(data)
		require.Empty(t, errs)
		require.Len(t, drafts, 2)
		assert.Equal(t, 1, drafts[0].N)
		assert.Equal(t, "w-m1", drafts[0].Rec.WorkID)
		assert.Equal(t, 1, drafts[0].Rec.DeclaredAt)
		assert.True(t, drafts[0].Rec.Origin.ModelFree)
		assert.Equal(t, 2, drafts[1].N)
		assert.Equal(t, "Re: refund", drafts[1].Rec.Body)
		assert.Equal(t, 2, drafts[1].Rec.DeclaredAt)
		assert.Equal(t, []string{sandbox.Clock, sandbox.Drafts, sandbox.Inbox}, s.Names())
	})
}

// The implementation's files are judged line by line: a line that is no
// record is reported with its file and line, and the lines around it still
// read.
func TestAGarbledLineIsReportedAndTheRestRead(t *testing.T) {
	eachStore(t, func(t *testing.T, s sandbox.Store) {
		require.NoError(t, sandbox.AppendJSON(s, sandbox.Outbox, sandbox.Effect{EffectID: "e1", DraftID: "d1", SentAt: 3}))
		require.NoError(t, s.Append(sandbox.Outbox, []byte(`{"effect_id":"e2"`)))
		require.NoError(t, sandbox.AppendJSON(s, sandbox.Outbox, sandbox.Effect{EffectID: "e3", DraftID: "d3", SentAt: 4}))
		data, err := s.Read(sandbox.Outbox)
		require.NoError(t, err)
		effects, errs := sandbox.ParseOutbox(data)
		require.Len(t, effects, 2)
		assert.Equal(t, []int{1, 3}, []int{effects[0].N, effects[1].N})
		require.Len(t, errs, 1)
		assert.Equal(t, sandbox.Outbox, errs[0].File)
		assert.Equal(t, 2, errs[0].Line)
	})
}
