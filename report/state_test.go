package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/report"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim/sandbox"
)

// stateLane is the state lane of a page's only run.
func stateLane(t *testing.T, dir string) []report.Event {
	t.Helper()
	p, err := report.Build([]string{dir}, report.Options{})
	require.NoError(t, err)
	require.Len(t, p.Runs, 1)
	var out []report.Event
	for _, e := range p.Runs[0].Events {
		if e.Lane == "state" {
			out = append(out, e)
		}
	}
	return out
}

// rewriteAsFullCopies rewrites a kept run log the way older harnesses wrote
// it: every changed state.json in full on its tick_end record.
func rewriteAsFullCopies(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, sandbox.RunLogFile)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	log, err := sandbox.ParseRunLog(data)
	require.NoError(t, err)
	var replay sandbox.StateReplay
	var buf bytes.Buffer
	for _, r := range log {
		version, changed, err := replay.Next(r)
		require.NoError(t, err)
		if changed {
			r.State, r.StateEdit = json.RawMessage(version), nil
		}
		line, err := sandbox.MarshalLine(r)
		require.NoError(t, err)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	require.NotContains(t, buf.String(), `"state_edit"`)
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// The state lane shows every version state.json had, rebuilt from the run
// log's edits: one event per rewrite, the last one the final state.json.
// A run log of the older format, with full copies, gives the same lane.
func TestStateLaneRebuildsEditsAndReadsFullCopies(t *testing.T) {
	b := publishedNamed(t, "l0-respond")[0]
	dir := keepReplay(t, t.TempDir(), b, "reference", seeds.Named(b.Meta.Name))
	data, err := os.ReadFile(filepath.Join(dir, sandbox.RunLogFile))
	require.NoError(t, err)
	log, err := sandbox.ParseRunLog(data)
	require.NoError(t, err)
	edits := 0
	for _, r := range log {
		require.Empty(t, r.State, "the run log carries no full copy at tick %d", r.Tick)
		if r.StateEdit != nil {
			edits++
		}
	}
	require.NotZero(t, edits, "the run log records state.json as edits")

	fromEdits := stateLane(t, dir)
	require.Len(t, fromEdits, edits, "one state event per edit")
	final, err := os.ReadFile(filepath.Join(dir, "sandbox", sandbox.State))
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, final))
	last := fromEdits[len(fromEdits)-1]
	assert.JSONEq(t, compact.String(), last.Record, "the last version is the final state.json")
	seen := map[string]bool{}
	for _, e := range fromEdits {
		require.NotEmpty(t, e.Record, "a small version is shown whole at tick %d", e.Tick)
		assert.True(t, json.Valid([]byte(e.Record)), "the version at tick %d is JSON: %s", e.Tick, e.Record)
		seen[e.Record] = true
	}
	if edits > 1 {
		assert.Greater(t, len(seen), 1, "each event shows its own version, not one repeated")
	}

	rewriteAsFullCopies(t, dir)
	assert.Equal(t, fromEdits, stateLane(t, dir), "full copies and edits give the same lane")
}
