package play

import (
	"errors"
	"fmt"
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/seeds"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Recording is what a replay takes from the run log of an earlier play:
// the seeds its start record carries (the engine seed it played with), and
// where its crashes cut a process (a crash after k writes may land later on
// a process: docs/processes.md).
type Recording struct {
	Seeds seeds.Seeds
	Cuts  []sim.Cut
	// Watched is set when the recorded run landed its crashes by watching
	// the sandbox (its start record's params.cut): the replay watches too,
	// so it cuts the way the run it replays did.
	Watched bool
}

// ReadRecording reads the run log (run.jsonl) of an earlier play of b. It
// refuses a log that does not say its engine seed, and a log of another
// bundle.
func ReadRecording(runLog []byte, b *scenarios.Bundle) (*Recording, error) {
	log, err := sandbox.ParseRunLog(runLog)
	if err != nil {
		return nil, err
	}
	if len(log) == 0 || log[0].Kind != sandbox.LogStart || log[0].Start().Engine == nil {
		return nil, errors.New("the run log does not start with a start record carrying the engine seed")
	}
	hash, err := b.Hash()
	if err != nil {
		return nil, err
	}
	if h := log[0].Start().BundleHash; h != "" && h != hash {
		return nil, fmt.Errorf("the run log is of another bundle (%s, this one is %s)", h, hash)
	}
	watched := strings.HasPrefix(log[0].Start().Params["cut"], sim.CutWatch)
	return &Recording{Seeds: log[0].Start().Seeds, Cuts: sim.CutsOf(log), Watched: watched}, nil
}

// Replay returns what plays the recorded run again: the seeds with the
// recorded engine seed, and impl, a process, told to kill at the recorded
// cuts. impl itself is not changed.
func (r *Recording) Replay(impl Impl) (Impl, seeds.Seeds) {
	if impl.Process != nil {
		spec := *impl.Process
		spec.Cuts = r.Cuts
		spec.NoTrace = spec.NoTrace || r.Watched
		impl.Process = &spec
	}
	return impl, r.Seeds
}
