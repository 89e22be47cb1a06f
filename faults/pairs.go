package faults

import (
	"fmt"
	"sort"
)

// sameBodies adds, for some messages, another message from the same sender
// with the same subject and body: a customer writing the same words twice.
// It is a different message (its own id), in the same conversation or in a
// new one of that sender, so a system that recognizes messages by content,
// not by id, drops or merges it. Nothing else distinguishes the two.
func (g *generator) sameBodies() {
	if !g.on(SameBody) {
		return
	}
	var extra []*message
	for _, m := range g.msgs {
		if len(g.msgs)+len(extra) >= maxMessages {
			break
		}
		if !g.d.chance(g.rate(SameBody) / 2) {
			continue
		}
		c := m.conv
		if g.d.chance(500) {
			other := *m.conv
			other.id = fmt.Sprintf("c%d", len(g.convs)+1)
			c = &other
			g.convs = append(g.convs, c)
		}
		extra = append(extra, &message{conv: c, at: m.at + g.d.between(0, 8), subject: m.subject, body: m.body})
	}
	if len(extra) == 0 {
		return
	}
	g.msgs = append(g.msgs, extra...)
	sort.SliceStable(g.msgs, func(i, j int) bool { return g.msgs[i].at < g.msgs[j].at })
	for i, m := range g.msgs {
		m.id = fmt.Sprintf("m%d", i+1)
	}
}
