package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/sim/sandbox"
)

func TestStateEventsFollowEditsAndCopies(t *testing.T) {
	v1, v2, v3 := `{"work_items":[]}`, `{"work_items":[{"work_id":"w1"}]}`, `{"work_items":[{"work_id":"w2"}]}`
	e1, ok := sandbox.NewStateEdit(nil, []byte(v1))
	require.True(t, ok)
	e2, ok := sandbox.NewStateEdit([]byte(v1), []byte(v2))
	require.True(t, ok)
	e3, ok := sandbox.NewStateEdit([]byte(`{"old":true}`), []byte(v3))
	require.True(t, ok)
	log := []sandbox.LogRecord{
		{Kind: sandbox.LogTickEnd, Tick: 1, StateEdit: &e1},
		{Kind: sandbox.LogDeliver, Tick: 2},
		{Kind: sandbox.LogTickEnd, Tick: 2},
		{Kind: sandbox.LogTickEnd, Tick: 3, StateEdit: &e2},
		{Kind: sandbox.LogTickEnd, Tick: 4, State: []byte(`{"old":true}`)},
		{Kind: sandbox.LogTickEnd, Tick: 5, StateEdit: &e3},
	}
	var ticks []int
	var records []string
	for _, e := range stateEvents(log) {
		ticks = append(ticks, e.Tick)
		records = append(records, e.Record)
		assert.Equal(t, "state", e.Lane)
	}
	assert.Equal(t, []int{1, 3, 4, 5}, ticks, "an unchanged tick has no state event")
	assert.Equal(t, []string{v1, v2, `{"old":true}`, v3}, records, "an edit after a full copy applies to it")
}

// A version that does not rebuild is shown as such, never dropped nor
// shown as some other version.
func TestStateEventsSayAnEditDoesNotRebuild(t *testing.T) {
	e1, _ := sandbox.NewStateEdit(nil, []byte(`{"a":1}`))
	// An edit over a longer version than the one before: its hunks do not fit.
	e2, _ := sandbox.NewStateEdit([]byte(`{"a":1,"b":2}`), []byte(`{"a":1,"b":3}`))
	events := stateEvents([]sandbox.LogRecord{
		{Kind: sandbox.LogTickEnd, Tick: 1, StateEdit: &e1},
		{Kind: sandbox.LogTickEnd, Tick: 2, StateEdit: &e2},
	})
	require.Len(t, events, 2)
	assert.Equal(t, `{"a":1}`, events[0].Record)
	assert.Empty(t, events[1].Record)
	assert.Contains(t, events[1].Text, "does not rebuild")
	assert.Contains(t, events[1].Text, "tick 2")
}
