package play_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A recording replays the run it was read from: the same engine seed, so
// the same bytes.
func TestARecordingReplaysItsRun(t *testing.T) {
	b := published(t, "l1-crash-after-send")
	weak := builtin(t, "weak-send-before-record")
	first, err := play.Play(b, weak, seeds.OfScored(11, 4), play.Options{})
	require.NoError(t, err)
	rec, err := play.ReadRecording(first.Result.LogBytes(), b)
	require.NoError(t, err)
	assert.Equal(t, seeds.OfEngine(uint64(*first.Seeds.Engine)), rec.Seeds, "a run log records the engine seed")

	impl, s := rec.Replay(weak)
	assert.Nil(t, impl.Process, "an in-process implementation has nothing to cut")
	again, err := play.Play(b, impl, s, play.Options{})
	require.NoError(t, err)
	assert.Equal(t, first.Result.LogBytes(), again.Result.LogBytes())
	assert.Equal(t, first.Verdict(), again.Verdict())
}

// A process is told to kill at the recorded cuts; the implementation given
// is left as it was.
func TestARecordingCutsAProcessWhereItWasCut(t *testing.T) {
	rec := &play.Recording{Seeds: seeds.OfEngine(5), Cuts: []sim.Cut{{Tick: 2, Index: 0, Writes: 3}}}
	spec := &sim.ProcessSpec{Command: []string{"./impl"}}
	impl, s := rec.Replay(play.Impl{Name: "p", Process: spec})
	assert.Equal(t, seeds.OfEngine(5), s)
	assert.Equal(t, rec.Cuts, impl.Process.Cuts)
	assert.Empty(t, spec.Cuts)
}

func TestReadRecordingRefuses(t *testing.T) {
	b := published(t, "l0-respond")
	r, err := play.Play(b, builtin(t, examples.ReferenceName), seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	other := published(t, "l2-govern")
	noStart := r.Result.Log[1:]
	var lines []byte
	for _, rec := range noStart {
		line, err := sandbox.MarshalLine(rec)
		require.NoError(t, err)
		lines = append(append(lines, line...), '\n')
	}
	tests := []struct {
		name string
		log  []byte
		want string
	}{
		{"another bundle's log", r.Result.LogBytes(), "the run log is of another bundle"},
		{"no start record", lines, "does not start with a start record"},
		{"empty", nil, "does not start with a start record"},
		{"not a run log", []byte("{\n"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := b
			if tc.name == "another bundle's log" {
				target = other
			}
			_, err := play.ReadRecording(tc.log, target)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A sandbox read back from disk is the sandbox the run left, and judges
// the same.
func TestReadSandboxReadsWhatARunLeft(t *testing.T) {
	b := published(t, "l2-govern")
	r, err := play.Play(b, builtin(t, "weak-send-without-approval"), seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "sandbox")
	require.NoError(t, sandbox.CopyTo(r.Result.Files, dir))
	files, err := play.ReadSandbox(dir)
	require.NoError(t, err)
	assert.Equal(t, texts(r.Result.Files.Files()), texts(files))
	assert.Equal(t, r.Verdict(), play.Judge(b, files, r.Result.Log).Level)

	_, err = play.ReadSandbox(filepath.Join(dir, "missing"))
	assert.Error(t, err)
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = play.ReadSandbox(file)
	assert.ErrorContains(t, err, "not a directory")
}

func texts(files map[string][]byte) map[string]string {
	out := map[string]string{}
	for name, data := range files {
		out[name] = string(data)
	}
	return out
}

// A run that cut by watching is replayed by watching; a traced one is
// replayed traced.
func TestARecordingReplaysWithTheCutItHad(t *testing.T) {
	b := published(t, "l0-respond")
	r, err := play.Play(b, builtin(t, examples.ReferenceName), seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	for _, c := range []struct {
		cut     string
		watched bool
	}{{"watch: tracing turned off", true}, {sim.CutTrace, false}, {"", false}} {
		log := append([]sandbox.LogRecord(nil), r.Result.Log...)
		start := log[0]
		info := *start.LogStartInfo
		start.LogStartInfo = &info
		info.Params = map[string]string{}
		for k, v := range log[0].Start().Params {
			info.Params[k] = v
		}
		if c.cut != "" {
			info.Params["cut"] = c.cut
		}
		log[0] = start
		var lines []byte
		for _, rec := range log {
			line, err := sandbox.MarshalLine(rec)
			require.NoError(t, err)
			lines = append(append(lines, line...), '\n')
		}
		rec, err := play.ReadRecording(lines, b)
		require.NoError(t, err)
		assert.Equal(t, c.watched, rec.Watched, c.cut)
		impl, _ := rec.Replay(play.Impl{Name: "p", Process: &sim.ProcessSpec{Command: []string{"./impl"}}})
		assert.Equal(t, c.watched, impl.Process.NoTrace, c.cut)
	}
}
