package examples

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/sim/sandbox"
)

// The hand-laid entries are json.Encoder's bytes for every string, plain
// or not (quotes, backslashes, control bytes, non-ASCII, invalid UTF-8,
// U+2028 and HTML's <>&, which the encoder handles each its own way).
func TestStateEntriesMatchTheEncoder(t *testing.T) {
	str := rapid.OneOf(
		rapid.StringMatching(`[a-z0-9_-]{0,12}`),
		rapid.SampledFrom([]string{"", `a"b`, `a\b`, "a\nb", "\x01", "<&>", "é", "\u2028", "\xff", "\x7f", " ~"}),
		rapid.String(),
	)
	rapid.Check(t, func(t *rapid.T) {
		id, status, agent := str.Draw(t, "id"), str.Draw(t, "status"), str.Draw(t, "agent")
		item := sandbox.WorkItemState{WorkID: id, Status: status}
		if rapid.Bool().Draw(t, "assigned") {
			item.AssignedAgent = &agent
		}
		for _, c := range []struct {
			v   any
			got func() ([]byte, error)
		}{
			{item, func() ([]byte, error) { return encodeWorkItem(item) }},
			{sandbox.AgentState{ID: agent, Alive: status == ""}, func() ([]byte, error) {
				return encodeAgent(sandbox.AgentState{ID: agent, Alive: status == ""})
			}},
			{sandbox.Assignment{WorkID: id, AgentID: agent}, func() ([]byte, error) {
				return encodeAssignment(sandbox.Assignment{WorkID: id, AgentID: agent})
			}},
		} {
			want, err := encodeEntry(c.v)
			require.NoError(t, err)
			got, err := c.got()
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
		}
	})
}
