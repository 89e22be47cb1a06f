package examples

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/amr-bench/amr/sim/sandbox"
)

// stateCache keeps the encoding of each work's state.json entries, so a
// state that changed in a few works is encoded only there: the rest is
// copied. What it writes is byte for byte what encodeState writes for the
// same snapshot.
type stateCache struct {
	entries []stateEntry
	// agents are the agents entries as last encoded, in fleet order.
	agents []agentEntry
	buf    bytes.Buffer
	// assigns is scratch for the assignments entries of one assemble.
	assigns [][]byte
	// laid is set while buf holds the entries as they are: a step that
	// changed none of them (as the step after a write of state.json,
	// which reads the file back) is not laid out again.
	laid bool
}

// agentEntry is one agents entry as last encoded.
type agentEntry struct {
	id    string
	alive bool
	data  []byte
}

// stateEntry is one work's entries as last encoded, with what they were
// encoded from.
type stateEntry struct {
	status, agent string
	item, assign  []byte // the work_items entry; the assignments entry or nil
}

// state is the reference's state.json for the tracked world: the entries
// of the works the tracker marked changed, and of the active ones, are
// encoded again when what they say differs.
func (c *stateCache) state(w *world, t *tracker) ([]byte, error) {
	for len(c.entries) < len(w.works) {
		c.entries = append(c.entries, stateEntry{})
		if err := c.refresh(w, w.works[len(c.entries)-1], true); err != nil {
			return nil, err
		}
	}
	for _, list := range [][]*work{t.changed, t.active} {
		for _, wk := range list {
			if err := c.refresh(w, wk, false); err != nil {
				return nil, err
			}
		}
	}
	t.changed = t.changed[:0]
	if err := c.encodeAgents(w); err != nil {
		return nil, err
	}
	if c.laid {
		return c.buf.Bytes(), nil
	}
	c.laid = true
	return c.assemble(), nil
}

func (c *stateCache) refresh(w *world, wk *work, fresh bool) error {
	e := &c.entries[wk.idx]
	status := w.status(wk)
	if !fresh && e.status == status && e.agent == wk.lastWon {
		return nil
	}
	c.laid = false
	item := sandbox.WorkItemState{WorkID: wk.id, Status: status}
	e.assign = nil
	if wk.lastWon != "" {
		agent := wk.lastWon
		item.AssignedAgent = &agent
		a, err := encodeAssignment(sandbox.Assignment{WorkID: wk.id, AgentID: agent})
		if err != nil {
			return err
		}
		e.assign = a
	}
	data, err := encodeWorkItem(item)
	if err != nil {
		return err
	}
	e.status, e.agent, e.item = status, wk.lastWon, data
	return nil
}

// assemble lays the entries out as encodeState does.
func (c *stateCache) assemble() []byte {
	c.buf.Reset()
	c.buf.WriteString("{\n  \"work_items\": ")
	list(&c.buf, len(c.entries), func(i int) []byte { return c.entries[i].item })
	c.buf.WriteString(",\n  \"agents\": ")
	list(&c.buf, len(c.agents), func(i int) []byte { return c.agents[i].data })
	c.buf.WriteString(",\n  \"assignments\": ")
	assigns := c.assigns[:0]
	for i := range c.entries {
		if a := c.entries[i].assign; a != nil {
			assigns = append(assigns, a)
		}
	}
	list(&c.buf, len(assigns), func(i int) []byte { return assigns[i] })
	clear(assigns)
	c.assigns = assigns[:0]
	c.buf.WriteString("\n}\n")
	return c.buf.Bytes()
}

// encodeAgents brings the agents entries up to the fleet and who is dead,
// encoding only the entries that changed.
func (c *stateCache) encodeAgents(w *world) error {
	if len(c.agents) > len(w.v.fleet) {
		c.agents = c.agents[:len(w.v.fleet)]
		c.laid = false
	}
	for i, a := range w.v.fleet {
		alive := !w.dead[a]
		if i < len(c.agents) && c.agents[i].id == a && c.agents[i].alive == alive {
			continue
		}
		data, err := encodeAgent(sandbox.AgentState{ID: a, Alive: alive})
		if err != nil {
			return err
		}
		if i == len(c.agents) {
			c.agents = append(c.agents, agentEntry{})
		}
		c.agents[i] = agentEntry{id: a, alive: alive, data: data}
		c.laid = false
	}
	return nil
}

// list writes a JSON array of n encoded entries at the depth of a
// state.json list.
func list(b *bytes.Buffer, n int, entry func(int) []byte) {
	if n == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		b.Write(entry(i))
	}
	b.WriteString("\n  ]")
}

// encodeEntry encodes one list entry as it reads inside state.json.
func encodeEntry(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding state: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// The entries are laid out by hand when every string in them is plain
// printable ASCII, which json.Encoder writes as it is; anything else goes
// through encodeEntry. Both write the same bytes (a test compares them):
// the encoder's reflection and indent pass were a twentieth of a run.
const (
	entryOpen  = "{\n      "
	entrySep   = ",\n      "
	entryClose = "\n    }"
)

func encodeWorkItem(v sandbox.WorkItemState) ([]byte, error) {
	if !plainASCII(v.WorkID) || !plainASCII(v.Status) || v.AssignedAgent != nil && !plainASCII(*v.AssignedAgent) {
		return encodeEntry(v)
	}
	b := make([]byte, 0, 96+len(v.WorkID)+len(v.Status))
	b = append(append(append(b, entryOpen+`"work_id": "`...), v.WorkID...), `"`+entrySep+`"status": "`...)
	b = append(append(b, v.Status...), `"`+entrySep+`"assigned_agent": `...)
	if v.AssignedAgent == nil {
		b = append(b, "null"...)
	} else {
		b = append(append(append(b, '"'), *v.AssignedAgent...), '"')
	}
	return append(b, entryClose...), nil
}

func encodeAgent(v sandbox.AgentState) ([]byte, error) {
	if !plainASCII(v.ID) {
		return encodeEntry(v)
	}
	alive := "false"
	if v.Alive {
		alive = "true"
	}
	return []byte(entryOpen + `"id": "` + v.ID + `"` + entrySep + `"alive": ` + alive + entryClose), nil
}

func encodeAssignment(v sandbox.Assignment) ([]byte, error) {
	if !plainASCII(v.WorkID) || !plainASCII(v.AgentID) {
		return encodeEntry(v)
	}
	b := make([]byte, 0, 64+len(v.WorkID)+len(v.AgentID))
	b = append(append(append(b, entryOpen+`"work_id": "`...), v.WorkID...), `"`+entrySep+`"agent_id": "`...)
	return append(append(b, v.AgentID...), `"`+entryClose...), nil
}

// plainASCII reports whether json.Encoder (HTML escaping off) writes s
// between its quotes unchanged: printable ASCII without a quote or a
// backslash.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
