package history_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A line put before lines already written is numbered after them, and
// every operation names where its line is now.
func TestCompileNumbersLinesInTheOrderWritten(t *testing.T) {
	b := &scenarios.Bundle{Format: scenarios.Format, Meta: scenarios.Meta{Name: "l-test", TopLevel: 1, Horizon: 3}}
	e := func(id string) string { return fmt.Sprintf(`{"effect_id":%q,"draft_id":"d1","sent_at":1}`, id) }
	files := map[string][]byte{sandbox.Outbox: []byte(e("e0") + "\n" + e("e1") + "\n" + e("e2") + "\n")}
	log := []sandbox.LogRecord{
		{Kind: sandbox.LogStart},
		{Kind: sandbox.LogTickEnd, Tick: 0, Lines: map[string]int{sandbox.Outbox: 1}, Writes: []string{sandbox.Outbox}},
		{Kind: sandbox.LogRewrite, Tick: 1, File: sandbox.Outbox, Line: 1, Fresh: 1, Kept: 1},
		{Kind: sandbox.LogTickEnd, Tick: 1, Lines: map[string]int{sandbox.Outbox: 3}, Writes: []string{sandbox.Outbox, sandbox.Outbox}},
		{Kind: sandbox.LogEnd, Tick: 1},
	}
	h := history.Compile(history.Input{Bundle: b, Files: files, Log: log})
	var got []string
	for _, op := range h.Ops {
		if op.Type == history.OpSend {
			got = append(got, fmt.Sprintf("%s@%d=%s", op.EffectID, op.Tick, op.Src))
		}
	}
	assert.Equal(t, []string{"e1@0=outbox.jsonl:2", "e0@1=outbox.jsonl:1", "e2@1=outbox.jsonl:3"}, got)
}
