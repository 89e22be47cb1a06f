package timeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/timeline"
)

// downtimeRuns are the runs whose timelines are kept as golden text: the
// published downtime scenario against the reference and against the weak
// implementation that skips signals stamped before it started, and a
// generated deployment run (campaign 1, run 38) whose 33-tick downtime piles
// up a delivery, two escalations, an agent death and two approvals.
func downtimeRuns(t *testing.T) map[string]timeline.Input {
	t.Helper()
	_, generated, err := fuzz.Generated(1, 38, "deployment")
	require.NoError(t, err)
	b := bundleNamed(t, "l4-downtime-escalation")
	return map[string]timeline.Input{
		"l4-downtime-escalation.reference":             play(t, b, examples.ReferenceName, 1),
		"l4-downtime-escalation.weak-skip-old-signals": play(t, b, "weak-skip-old-signals", 1),
		"generated-1-38.reference":                     play(t, generated, examples.ReferenceName, 1),
		"generated-1-38.weak-skip-old-signals":         play(t, generated, "weak-skip-old-signals", 1),
	}
}

// The text of a downtime run, with its table of what piled up and when it
// was read, is pinned byte for byte; two builds of one run give the same
// bytes, as text and as JSON. AMR_UPDATE_GOLDEN=1 rewrites the files.
func TestDowntimeTimelineGolden(t *testing.T) {
	for name, in := range downtimeRuns(t) {
		t.Run(name, func(t *testing.T) {
			a, b := timeline.Build(in), timeline.Build(in)
			text := render(t, a, timeline.TextOptions{Refs: true})
			assert.Equal(t, text, render(t, b, timeline.TextOptions{Refs: true}))
			ja, err := json.Marshal(a)
			require.NoError(t, err)
			jb, err := json.Marshal(b)
			require.NoError(t, err)
			assert.Equal(t, string(ja), string(jb))
			require.NotEmpty(t, a.Downtimes, "the run has a downtime")

			path := filepath.Join("testdata", name+".txt")
			if os.Getenv("AMR_UPDATE_GOLDEN") == "1" {
				require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "AMR_UPDATE_GOLDEN=1 go test ./timeline -run TestDowntimeTimelineGolden writes it")
			assert.Equal(t, string(want), text)
		})
	}
}

// Whatever piled up is read only after the restart: no item is acted on
// before the instance that could read it started, and each item acted on
// names the record and the tick.
func TestPiledUpItemsAreReadAfterTheRestart(t *testing.T) {
	for name, in := range downtimeRuns(t) {
		for _, d := range timeline.Build(in).Downtimes {
			for _, p := range d.PiledUp {
				assert.GreaterOrEqual(t, p.Fired, d.Crash, "%s: %+v fired at or after the crash", name, p)
				if d.Restart != nil {
					assert.Less(t, p.Fired, *d.Restart, "%s: %+v fired before the restart", name, p)
				}
				if p.ActedAt == nil {
					continue
				}
				require.NotNil(t, d.Restart, name)
				assert.GreaterOrEqual(t, *p.ActedAt, *d.Restart, "%s: %+v", name, p)
				assert.NotEmpty(t, p.ActedBy, name)
				assert.NotEmpty(t, p.Ref, name)
			}
		}
	}
}

// The reference acts on the escalation that fired while it was down, at
// its restart; weak-skip-old-signals never does (it completes the
// escalated work instead, which is not acting on the escalation).
func TestTheSkippedSignalIsNeverRead(t *testing.T) {
	runs := downtimeRuns(t)
	find := func(name, id string) timeline.PiledUp {
		tl := timeline.Build(runs[name])
		require.Len(t, tl.Downtimes, 1, name)
		for _, p := range tl.Downtimes[0].PiledUp {
			if p.ID == id {
				return p
			}
		}
		t.Fatalf("%s: %s did not pile up", name, id)
		return timeline.PiledUp{}
	}
	ref := find("l4-downtime-escalation.reference", "s1")
	require.NotNil(t, ref.ActedAt)
	assert.Equal(t, 10, *ref.ActedAt)
	assert.Contains(t, ref.ActedBy, "resolve w-m1 abandoned (operator_escalation)")
	weak := find("l4-downtime-escalation.weak-skip-old-signals", "s1")
	assert.Nil(t, weak.ActedAt)
	text := render(t, timeline.Build(runs["l4-downtime-escalation.weak-skip-old-signals"]), timeline.TextOptions{})
	assert.Regexp(t, `\n +4  signal +s1 +never: no record of the implementation acts on it\n`, text)
}

// A downtime the horizon cuts off never restarts, and says so; a run with
// no downtime shows no table.
func TestADowntimeTheHorizonCutsOff(t *testing.T) {
	b := bundleNamed(t, "l4-downtime-escalation").Clone()
	b.Meta.Horizon = 8
	b.Normalize()
	tl := timeline.Build(play(t, b, examples.ReferenceName, 1))
	require.Len(t, tl.Downtimes, 1)
	assert.Nil(t, tl.Downtimes[0].Restart)
	for _, p := range tl.Downtimes[0].PiledUp {
		assert.Nil(t, p.ActedAt, "%+v", p)
	}
	assert.Contains(t, render(t, tl, timeline.TextOptions{}), "down 8 tick(s), never restarted: the horizon came first")

	plain := timeline.Build(play(t, bundleNamed(t, "l1-crash-after-send"), examples.ReferenceName, 1))
	assert.Empty(t, plain.Downtimes)
	assert.NotContains(t, render(t, plain, timeline.TextOptions{}), "downtime")
}
