package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// entriesOf is what Entries must answer, read from a whole snapshot.
func entriesOf(s Snapshot, w string) ([]WorkItemState, []string) {
	var items []WorkItemState
	var agents []string
	for _, wi := range s.WorkItems {
		if wi.WorkID == w {
			items = append(items, wi)
		}
	}
	for _, a := range s.Assignments {
		if a.WorkID == w {
			agents = append(agents, a.AgentID)
		}
	}
	return items, agents
}

// genStateVersion draws a state.json: mostly well-formed compact entries
// over a few work ids (so versions repeat, change in place, gain and lose
// entries, and list a work twice), sometimes spaced out, misspelled, with
// an escaped key or not JSON at all.
func genStateVersion(t *rapid.T, label string) string {
	works := rapid.SliceOfN(rapid.IntRange(0, 6), 0, 7).Draw(t, label+"-works")
	var items, assigns []string
	for i, w := range works {
		agent := "null"
		if rapid.Bool().Draw(t, fmt.Sprintf("%s-held-%d", label, i)) {
			agent = fmt.Sprintf(`"a%d"`, rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("%s-agent-%d", label, i)))
			assigns = append(assigns, fmt.Sprintf(`{"work_id":"w%d","agent_id":%s}`, w, agent))
		}
		status := rapid.SampledFrom([]string{"pending", "completed", "abandoned"}).Draw(t, fmt.Sprintf("%s-status-%d", label, i))
		items = append(items, fmt.Sprintf(`{"work_id":"w%d","status":"%s","assigned_agent":%s}`, w, status, agent))
	}
	agents := []string{}
	for i := range rapid.IntRange(0, 3).Draw(t, label+"-agents") {
		agents = append(agents, fmt.Sprintf(`{"id":"a%d","alive":%v}`, i, rapid.Bool().Draw(t, fmt.Sprintf("%s-alive-%d", label, i))))
	}
	doc := `{"work_items":[` + strings.Join(items, ",") + `],"agents":[` + strings.Join(agents, ",") + `],"assignments":[` + strings.Join(assigns, ",") + `]}`
	switch rapid.IntRange(0, 14).Draw(t, label+"-odd") {
	case 0:
		doc = strings.ReplaceAll(doc, ",", " ,\n ")
	case 1:
		doc = strings.Replace(doc, `"status"`, `"stat\u0075s"`, 1)
	case 2:
		doc = strings.Replace(doc, `"status":`, `"state":`, 1)
	case 3:
		doc = strings.Replace(doc, `"assignments":[`, `"assignments":[7,`, 1)
	case 4:
		doc = doc[:len(doc)/2]
	case 5:
		doc = "\uFEFF" + doc
	case 6:
		doc = strings.Replace(doc, `"agents":`, `"extra":{"x":[1,2]},"agents":`, 1)
	case 7:
		doc = ""
	case 8:
		doc = strings.Replace(doc, `{"work_items"`, `{"agents":[{"id":"zz","alive":true}],"work_items"`, 1)
	case 9:
		doc = `{"assignments":[` + strings.Join(assigns, ",") + `],"agents":[` + strings.Join(agents, ",") + `] , "work_items":[` + strings.Join(items, ",") + "]}\n"
	}
	return doc
}

// Following versions one after the other reads each exactly as ParseState
// reads it whole, and a work the change does not list has the same entries
// as in the version before.
func TestStateFollowerReadsEveryVersionAsParseState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var f StateFollower
		var prev Snapshot
		prevOK := false
		n := rapid.IntRange(1, 12).Draw(t, "versions")
		for v := range n {
			data := []byte(genStateVersion(t, fmt.Sprintf("v%d", v)))
			want, wantErr := ParseState(data)
			got, err, ch := f.Next(data)
			require.Equal(t, wantErr, err, "version %d: %s", v, data)
			if wantErr != nil {
				prevOK = false
				continue
			}
			require.Equal(t, want, Snapshot{WorkItems: nilIfEmpty(got.WorkItems), Agents: nilIfEmpty(got.Agents), Assignments: nilIfEmpty(got.Assignments)}, "version %d: %s", v, data)
			listed := map[string]bool{}
			for _, w := range ch.Works {
				require.False(t, listed[w], "work %s listed twice", w)
				listed[w] = true
			}
			for i := range 8 {
				w := fmt.Sprintf("w%d", i)
				items, agents := f.Entries(w)
				wantItems, wantAgents := entriesOf(want, w)
				require.Equal(t, wantItems, items, "entries of %s, version %d: %s", w, v, data)
				require.Equal(t, wantAgents, agents, "assignments of %s, version %d: %s", w, v, data)
				if prevOK && !listed[w] {
					pi, pa := entriesOf(prev, w)
					require.Equal(t, pi, wantItems, "work %s changed unlisted, version %d: %s", w, v, data)
					require.Equal(t, pa, wantAgents, "work %s changed unlisted, version %d: %s", w, v, data)
				}
			}
			if prevOK && !ch.Agents {
				require.Equal(t, prev.Agents, want.Agents, "agents changed unlisted, version %d", v)
			}
			prev, prevOK = want, true
		}
	})
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append([]T(nil), s...)
}

// An item changed in place, one appended and one removed each cost one
// work in the change, not the whole list.
func TestStateFollowerListsOnlyWhatChanged(t *testing.T) {
	doc := func(items ...string) []byte {
		var out []string
		for _, it := range items {
			out = append(out, `{"work_id":"`+it[:2]+`","status":"`+it[3:]+`","assigned_agent":null}`)
		}
		return []byte(`{"work_items":[` + strings.Join(out, ",") + `],"agents":[],"assignments":[]}`)
	}
	var f StateFollower
	_, err, ch := f.Next(doc("w1 pending", "w2 pending", "w3 pending"))
	require.Nil(t, err)
	assert.True(t, ch.Whole)
	_, _, ch = f.Next(doc("w1 pending", "w2 completed", "w3 pending"))
	assert.Equal(t, []string{"w2"}, ch.Works)
	assert.False(t, ch.Whole || ch.Agents)
	_, _, ch = f.Next(doc("w1 pending", "w2 completed", "w3 pending", "w4 pending"))
	assert.Equal(t, []string{"w4"}, ch.Works)
	_, _, ch = f.Next(doc("w1 pending", "w3 pending", "w4 pending"))
	assert.Equal(t, []string{"w2"}, ch.Works)
	_, _, ch = f.Next(doc("w1 pending", "w3 pending", "w4 pending"))
	assert.Empty(t, ch.Works)
}
