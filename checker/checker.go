// Package checker owns the level invariants of the benchmark (spec §2 and
// §4, L0–L6): it judges a run's artifacts — the sandbox files, and the run
// log when the run came from amr's engine — against the scenario bundle, and
// returns a per-level verdict with every violation named by a stable
// invariant id and located by file:line evidence.
//
// The checker never depends on the engine: it reads the sandbox through the
// record types of sim/sandbox and derives the tick timeline from the bundle,
// so it can judge artifacts another harness produced. Liveness is measured
// against the timeline and, when a run log exists, against the tick at which
// each line was observed rather than the implementation's own timestamps.
package checker

import (
	"strings"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Levels of the ladder (spec §4), as scenarios names them.
const (
	MinLevel = scenarios.MinLevel
	MaxLevel = scenarios.MaxLevel
)

// Level verdicts.
const (
	Pass     = "pass"
	Fail     = "fail"
	Untested = "untested"
	// Vacuous is never a value of Verdict.Levels: it is how a level that
	// passed with no obligation judged is shown (see Verdict.Status).
	Vacuous = "vacuous"
)

// Drafting origin tags (spec §5).
const (
	OriginModelBased = "model-based"
	OriginModelFree  = "model-free"
	OriginMixed      = "mixed"
	OriginNone       = "none"
)

// Input is what the checker judges: the bundle, the sandbox files, and the
// run log when the run came from amr's engine (nil when judging artifacts
// from elsewhere).
type Input struct {
	Bundle *scenarios.Bundle
	// Files maps a sandbox file name (sandbox.Drafts, ...) to its content;
	// a missing file is empty.
	Files map[string][]byte
	Log   []sandbox.LogRecord
	// Parsed, when set, is the parse of Files shared with the run's other
	// readers (the history oracle, coverage); nil: the checker parses
	// itself. Either way it reads the same lines.
	Parsed *sandbox.Parsed
}

// Violation is one invariant failure.
type Violation struct {
	Invariant string `json:"invariant"`
	Level     int    `json:"level"`
	// Tick is when it fired; for liveness, the deadline tick.
	Tick      int    `json:"tick"`
	MessageID string `json:"message_id,omitempty"`
	WorkID    string `json:"work_id,omitempty"`
	DraftID   string `json:"draft_id,omitempty"`
	// Evidence are file:line references, e.g. "outbox.jsonl:3".
	Evidence []string `json:"evidence"`
	// Detail is one plain sentence.
	Detail string `json:"detail"`
}

// Verdict is the checker's answer for one run.
type Verdict struct {
	// Levels holds "pass", "fail" or "untested", indexed by level.
	Levels [scenarios.Levels]string `json:"levels"`
	// Obligations counts, per level, the items its safety and liveness
	// checks judged (0 for an untested level); Judged counts them per
	// invariant of the judged levels. Contract invariants are not counted.
	Obligations [scenarios.Levels]int `json:"obligations"`
	Judged      map[string]int        `json:"judged"`
	// Vacuous lists, ascending, the levels that passed with no obligation
	// judged: a pass that is no evidence. Such a level is still "pass" in
	// Levels.
	Vacuous []int `json:"vacuous"`
	// Origin is the drafting origin tag: model-based, model-free, mixed or none.
	Origin string `json:"origin"`
	// Violations are sorted by (tick, level, invariant, evidence).
	Violations []Violation `json:"violations"`
	// FixtureDefects are faults in files the harness writes, in file and
	// line order: the harness's failure, never the implementation's (spec §5
	// "fixture-defect"). What they make unjudgeable is not judged (D26).
	FixtureDefects []FixtureDefect `json:"fixture_defects,omitempty"`
}

// FixtureDefect is one line of a harness-written file that the checker
// cannot read.
type FixtureDefect struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Detail says what is wrong and what was not judged for it.
	Detail string `json:"detail"`
}

// Failed reports whether any tested level failed.
func (v Verdict) Failed() bool {
	for _, l := range v.Levels {
		if l == Fail {
			return true
		}
	}
	return false
}

// levelChecks lists, per level, the functions that judge its invariants.
var levelChecks = [scenarios.Levels][]func(*facts) []Violation{
	{checkRecordFormat, checkHarnessFiles, checkAppendOnly, checkDraftRedeclared, checkOutboxDeclared, checkDraftOrigin, checkReply},
	{checkDuplicateEffect, checkDuplicateWork, checkOwnAnchor, checkFollowUpReply, checkCrashResolution, checkResolutionConflict},
	{checkAdmission, checkAdmissionRecord, checkApprovalBinding, checkForgedCited, checkApprovalLatency, checkRedeliveryDuplicate,
		checkSendAfterRejection},
	{checkClaims, checkAgentDeath, checkAgentDeathUnbound, checkResolutionMissing, checkStateConsistency},
	{checkEscalationL4},
	{checkDistinctWork, checkConversationIdentity, checkEscalatedSend, checkIdentityLiveness},
	{checkPostApproval},
}

// Check judges one run. Levels 0 through the bundle's top level are judged;
// the invariants of higher levels are not evaluated and those levels are
// "untested". Check never panics on bad artifacts: a line that does not
// parse is itself a scored violation.
func Check(in Input) Verdict {
	v := Verdict{Origin: OriginNone, Violations: []Violation{}, Judged: map[string]int{}, Vacuous: []int{}}
	for i := range v.Levels {
		v.Levels[i] = Untested
	}
	if in.Bundle == nil {
		return v
	}
	f := build(in)
	v.Origin = f.origin()
	v.FixtureDefects = f.fixtureDefects
	for level := MinLevel; level <= f.top; level++ {
		v.Levels[level] = Pass
		for _, check := range levelChecks[level] {
			v.Violations = append(v.Violations, check(f)...)
			// Each item named for counting once belongs to one check's
			// invariant: the names need not outlive the check.
			f.obligations.seen = nil
		}
	}
	for _, x := range v.Violations {
		if x.Level >= MinLevel && x.Level <= f.top {
			v.Levels[x.Level] = Fail
		}
	}
	f.relocate(v.Violations)
	v.tally(f)
	sortViolations(v.Violations)
	return v
}

// sortViolations orders by tick, level, invariant, evidence, then the
// remaining fields, so equal inputs give equal output.
func sortViolations(vs []Violation) {
	sortStable(vs, func(a, b Violation) bool {
		if a.Tick != b.Tick {
			return a.Tick < b.Tick
		}
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		if a.Invariant != b.Invariant {
			return a.Invariant < b.Invariant
		}
		if c := compareEvidence(a.Evidence, b.Evidence); c != 0 {
			return c < 0
		}
		if a.WorkID != b.WorkID {
			return a.WorkID < b.WorkID
		}
		if a.MessageID != b.MessageID {
			return a.MessageID < b.MessageID
		}
		if a.DraftID != b.DraftID {
			return a.DraftID < b.DraftID
		}
		return a.Detail < b.Detail
	})
}

// compareEvidence compares references numerically where they share a file,
// so outbox.jsonl:10 sorts after outbox.jsonl:9.
func compareEvidence(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareRef(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func compareRef(a, b string) int {
	fa, na := splitRef(a)
	fb, nb := splitRef(b)
	if fa != fb {
		return strings.Compare(fa, fb)
	}
	if na != nb {
		if na < nb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func splitRef(r string) (string, int) {
	i := strings.LastIndexByte(r, ':')
	if i < 0 {
		return r, 0
	}
	n := 0
	for _, c := range r[i+1:] {
		if c < '0' || c > '9' || n > 1<<40 {
			return r, 0
		}
		n = n*10 + int(c-'0')
	}
	return r[:i], n
}
