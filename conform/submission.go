// Package conform checks what a submission declares against what it does.
// A submission.json is spec §6's one-page disclosure in machine-readable
// form: the levels attempted, the drafting origin, the mechanism used per
// invariant, and the known gaps. Each declared capability maps to probes
// (published scenarios) whose verdicts decide match, mismatch, or
// unverifiable. A capability declared absent is never exercised, so it is
// unverifiable; unverifiable never counts as a match.
package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/internal/jsondepth"
	"github.com/amr-bench/amr/internal/safefile"
)

// Format tags a submission declaration.
const Format = "amr.submission/v1"

// Drafting origins a submission may declare (spec §5).
var Origins = []string{checker.OriginModelBased, checker.OriginModelFree, checker.OriginMixed}

// Submission is submission.json.
type Submission struct {
	Format string `json:"format"`
	// Implementation names the implementation the declaration is for; amr
	// conform runs the built-in one of that name unless told otherwise.
	Implementation string `json:"implementation"`
	// DraftingOrigin is model-based, model-free or mixed.
	DraftingOrigin string `json:"drafting_origin"`
	// LevelsAttempted lists the levels (0–6) the submission claims.
	LevelsAttempted []int `json:"levels_attempted"`
	// Mechanisms say how each handled invariant is held, by invariant id.
	Mechanisms []Mechanism `json:"mechanisms"`
	// KnownGaps are the invariants the submission says it does not hold.
	KnownGaps []Gap `json:"known_gaps"`
	// Adapters discloses rule-translation and HITL adapters (spec §6).
	Adapters []string `json:"adapters,omitempty"`
}

// Mechanism is how one invariant is held.
type Mechanism struct {
	Invariant string `json:"invariant"`
	Mechanism string `json:"mechanism"`
}

// Gap is one invariant declared not held.
type Gap struct {
	Invariant string `json:"invariant"`
	Gap       string `json:"gap"`
}

// Load reads and validates a declaration file.
func Load(path string) (*Submission, error) {
	data, err := safefile.ReadFile(path, 0)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse reads and validates a declaration. Unknown fields are errors: a
// misspelt key would otherwise silently declare nothing.
func Parse(data []byte) (*Submission, error) {
	if err := jsondepth.Check(data, 0); err != nil {
		return nil, fmt.Errorf("line%w", jsondepth.At(err))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Submission
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a submission declaration: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports every problem of a declaration at once.
func (s *Submission) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if s.Format != Format {
		bad("format: %q, want %q", s.Format, Format)
	}
	if !contains(Origins, s.DraftingOrigin) {
		bad("drafting_origin: %q is not one of %s", s.DraftingOrigin, strings.Join(Origins, ", "))
	}
	seenLevel := map[int]bool{}
	for _, l := range s.LevelsAttempted {
		if l < checker.MinLevel || l > checker.MaxLevel {
			bad("levels_attempted: %d is not a level (%d-%d)", l, checker.MinLevel, checker.MaxLevel)
		}
		if seenLevel[l] {
			bad("levels_attempted: %d listed twice", l)
		}
		seenLevel[l] = true
	}
	declared := map[string]string{}
	for i, m := range s.Mechanisms {
		where := fmt.Sprintf("mechanisms[%d]", i)
		s.checkInvariant(where, m.Invariant, declared, bad)
		if strings.TrimSpace(m.Mechanism) == "" {
			bad("%s: mechanism is empty", where)
		}
	}
	for i, g := range s.KnownGaps {
		s.checkInvariant(fmt.Sprintf("known_gaps[%d]", i), g.Invariant, declared, bad)
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid submission declaration:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

func (s *Submission) checkInvariant(where, id string, declared map[string]string, bad func(string, ...any)) {
	if _, ok := checker.Lookup(id); !ok {
		bad("%s: %q is not an invariant id (see amr impls, docs/invariants.md)", where, id)
		return
	}
	if prev, dup := declared[id]; dup {
		bad("%s: %s is already declared at %s", where, id, prev)
		return
	}
	declared[id] = where
}

// attempted reports whether the submission claims a level.
func (s *Submission) attempted(level int) bool {
	for _, l := range s.LevelsAttempted {
		if l == level {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
