package fuzz

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// IndexEnv is the variable a Kubernetes Indexed Job sets in each pod to
// the pod's completion index; "--shard auto/N" reads the shard from it.
const IndexEnv = "JOB_COMPLETION_INDEX"

// ResolveShard reads a shard given as "k/n", or as "auto/n", where k is
// taken from JOB_COMPLETION_INDEX through getenv. A pod that runs
// "auto/n" without the variable, or with an index the count does not
// have, is refused rather than run as shard 0: two pods playing the same
// shard would leave another one missing.
func ResolveShard(s string, getenv func(string) string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok || k != "auto" {
		return ParseShard(s)
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 {
		return Shard{}, fmt.Errorf("%q: want auto/n with n at least 1", s)
	}
	v := getenv(IndexEnv)
	if v == "" {
		return Shard{}, fmt.Errorf("%q: %s is not set (a Kubernetes Indexed Job sets it in each pod; elsewhere give k/n)", s, IndexEnv)
	}
	index, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || index < 0 || index >= count {
		return Shard{}, fmt.Errorf("%q: %s=%q is not an index from 0 to %d", s, IndexEnv, v, count-1)
	}
	return Shard{Index: index, Count: count}, nil
}

// At is the campaign index of the j-th run of the shard.
func (s Shard) At(j int) int { return s.Index + j*s.Count }

// Size is how many of the first runs indices of the run space belong to
// the shard.
func (s Shard) Size(runs int) int {
	if runs <= s.Index {
		return 0
	}
	return (runs-s.Index-1)/s.Count + 1
}

// Tape is what a campaign judged, run by run, in index order: the
// coverage each run reached, and the runs that failed, were invalid or
// diverged. Totals cannot be cut back to a prefix of the run space; the
// tape can, which is what lets shards that ran past the campaign's first
// failure merge into exactly the answer of the unsharded campaign.
type Tape struct {
	// Seen is the j-th judged run's coverage, for the run at Shard.At(j).
	Seen SeenTape `json:"seen"`
	// Marks are the judged runs that did not pass, by index.
	Marks []Mark `json:"marks"`
}

// What a mark says of its run.
const (
	MarkFailed   = "failed"
	MarkInvalid  = "invalid"
	MarkDiverged = "diverged"
)

// Mark is one judged run that did not pass.
type Mark struct {
	Run  int    `json:"run"`
	Kind string `json:"kind"`
	// Invariants are a failed run's violated invariant ids.
	Invariants []string `json:"invariants,omitempty"`
}

// record appends one judged run, as the campaign folds it.
func (t *Tape) record(index int, s Seen, r *Run, d *Divergence) {
	t.Seen = append(t.Seen, s)
	switch {
	case d != nil:
		t.Marks = append(t.Marks, Mark{Run: index, Kind: MarkDiverged})
	case r == nil:
	case r.Invalid():
		t.Marks = append(t.Marks, Mark{Run: index, Kind: MarkInvalid})
	case r.Failed():
		t.Marks = append(t.Marks, Mark{Run: index, Kind: MarkFailed, Invariants: r.Invariants()})
	}
}

// SeenTape is written as one string of hexadecimal masks, one a run,
// separated by spaces: a JSON array would put each of a long campaign's
// runs on a line of its own.
type SeenTape []Seen

func (t SeenTape) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	for i, s := range t {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatUint(uint64(s), 16))
	}
	return json.Marshal(b.String())
}

func (t *SeenTape) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return fmt.Errorf("seen: want a string of hexadecimal masks: %w", err)
	}
	out := SeenTape{}
	for i, f := range strings.Fields(text) {
		v, err := strconv.ParseUint(f, 16, 64)
		if err != nil || v >= 1<<len(counters()) {
			return fmt.Errorf("seen: run %d of the tape: %q is not a coverage mask of %d counters", i, f, len(counters()))
		}
		out = append(out, Seen(v))
	}
	*t = out
	return nil
}
