package play_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/play"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A play given a log file writes there the run log the same play holds in
// memory without one, and is judged from it to the same judgement: both
// oracles' answers, the guard's, the surprises and the compiled history,
// for the reference on every published bundle and for every weak
// implementation on the bundle it fails, the one whose defect only the run
// log shows among them.
func TestPlayJudgedFromTheLogFileAsInMemory(t *testing.T) {
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	type pair struct {
		b  *scenarios.Bundle
		im examples.Impl
	}
	var pairs []pair
	for _, im := range examples.All() {
		for _, p := range pubs {
			if im.Kind == examples.KindReference || p.Name == im.Scenario {
				pairs = append(pairs, pair{p.Bundle, im})
			}
		}
	}
	failed := 0
	for _, p := range pairs {
		name := p.im.Name + "/" + p.b.Meta.Name
		impl := play.Impl{Name: p.im.Name, New: p.im.New}
		s := seeds.OfScored(3, 2)
		held, err := play.Play(p.b, impl, s, play.Options{})
		require.NoError(t, err, name)
		path := filepath.Join(t.TempDir(), sandbox.RunLogFile)
		kept, err := play.Play(p.b, impl, s, play.Options{LogFile: path})
		require.NoError(t, err, name)

		assert.Nil(t, kept.Result.Log, name)
		data, err := os.ReadFile(path)
		require.NoError(t, err, name)
		assert.Equal(t, string(held.Result.LogBytes()), string(data), name)
		hj, kj := held.Judgement, kept.Judgement
		assert.Equal(t, hj.Level, kj.Level, name)
		assert.Equal(t, hj.History, kj.History, name)
		assert.Equal(t, hj.Guard, kj.Guard, name)
		assert.Equal(t, hj.Surprise, kj.Surprise, name)
		assert.Equal(t, string(hj.Compiled.Bytes()), string(kj.Compiled.Bytes()), name)
		if held.Failed() {
			failed++
		}
	}
	assert.Greater(t, failed, 0, "no weak implementation failed: the judgements compared were all passes")
}

// A play that cannot be played to its end leaves no log behind: a process
// whose command does not exist is an error, and no file is left.
func TestPlayThatFailsRemovesItsLog(t *testing.T) {
	b := published(t, "l0-respond")
	path := filepath.Join(t.TempDir(), sandbox.RunLogFile)
	_, err := play.Play(b, play.Impl{Name: "gone", Process: missingProcess()}, seeds.Seeds{}, play.Options{LogFile: path})
	require.Error(t, err)
	_, statErr := os.Stat(path)
	assert.ErrorIs(t, statErr, os.ErrNotExist)
}

// A log file that cannot be made is an error before anything is played.
func TestPlayRefusesALogFileItCannotMake(t *testing.T) {
	b := published(t, "l0-respond")
	path := filepath.Join(t.TempDir(), "no-such-dir", sandbox.RunLogFile)
	_, err := play.Play(b, builtin(t, "reference"), seeds.Seeds{}, play.Options{LogFile: path})
	require.ErrorContains(t, err, "run log")
}

func missingProcess() *sim.ProcessSpec {
	return &sim.ProcessSpec{Command: []string{filepath.Join(os.TempDir(), "amr-no-such-responder")}}
}

// A kept log changed by something else while the run is judged is never
// judged as if it were the run's: the state it no longer rebuilds is
// reported unread, as amr check reports it (D212), and the verdict is not
// the run's.
func TestPlayLogChangedWhileJudgedIsReportedUnread(t *testing.T) {
	b := published(t, "l3-fleet-concurrent")
	impl := builtin(t, "reference")
	held, err := play.Play(b, impl, seeds.Seeds{}, play.Options{})
	require.NoError(t, err)
	require.False(t, held.Failed())
	path := filepath.Join(t.TempDir(), sandbox.RunLogFile)
	restore := play.WithOracles(func(in checker.Input) checker.Verdict {
		require.NoError(t, os.Truncate(path, 0))
		return checker.Check(in)
	}, nil)
	defer restore()
	kept, err := play.Play(b, impl, seeds.Seeds{}, play.Options{LogFile: path})
	require.NoError(t, err)
	assert.True(t, kept.Failed(), "a log cut to nothing while judged still passed")
	found := false
	for _, v := range kept.Judgement.Level.Violations {
		if strings.Contains(fmt.Sprint(v), "changed since it was read") {
			found = true
		}
	}
	assert.True(t, found, "no violation names the changed log: %v", kept.Judgement.Level.Violations)
}
