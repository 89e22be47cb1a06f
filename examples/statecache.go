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
	buf     bytes.Buffer
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
	return c.assemble(w)
}

func (c *stateCache) refresh(w *world, wk *work, fresh bool) error {
	e := &c.entries[wk.idx]
	status := w.status(wk)
	if !fresh && e.status == status && e.agent == wk.lastWon {
		return nil
	}
	item := sandbox.WorkItemState{WorkID: wk.id, Status: status}
	e.assign = nil
	if wk.lastWon != "" {
		agent := wk.lastWon
		item.AssignedAgent = &agent
		a, err := encodeEntry(sandbox.Assignment{WorkID: wk.id, AgentID: agent})
		if err != nil {
			return err
		}
		e.assign = a
	}
	data, err := encodeEntry(item)
	if err != nil {
		return err
	}
	e.status, e.agent, e.item = status, wk.lastWon, data
	return nil
}

// assemble lays the entries out as encodeState does.
func (c *stateCache) assemble(w *world) ([]byte, error) {
	c.buf.Reset()
	c.buf.WriteString("{\n  \"work_items\": ")
	list(&c.buf, len(c.entries), func(i int) []byte { return c.entries[i].item })
	c.buf.WriteString(",\n  \"agents\": ")
	agents := make([][]byte, 0, len(w.v.fleet))
	for _, a := range w.v.fleet {
		data, err := encodeEntry(sandbox.AgentState{ID: a, Alive: !w.dead[a]})
		if err != nil {
			return nil, err
		}
		agents = append(agents, data)
	}
	list(&c.buf, len(agents), func(i int) []byte { return agents[i] })
	c.buf.WriteString(",\n  \"assignments\": ")
	var assigns [][]byte
	for i := range c.entries {
		if a := c.entries[i].assign; a != nil {
			assigns = append(assigns, a)
		}
	}
	list(&c.buf, len(assigns), func(i int) []byte { return assigns[i] })
	c.buf.WriteString("\n}\n")
	return c.buf.Bytes(), nil
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
