package checker

import (
	"fmt"
	"sort"

	"github.com/amr-bench/amr/history"
)

// Question is one question the level checker and the history oracle both
// answer for a run, as a count. The two definitions coincide exactly; the
// mapping is documented in docs/invariants.md ("The differential guard").
type Question struct {
	Name string `json:"name"`
	// Level is the level whose invariants answer it on the level side: the
	// question is compared only when that level was judged.
	Level int `json:"level"`
	// LevelIDs are the level invariants whose violations are counted.
	LevelIDs []string `json:"level_ids"`
	// HistoryID is the history invariant whose violations are counted,
	// those carrying one of HistoryCauses when it is set.
	HistoryID     string   `json:"history_id"`
	HistoryCauses []string `json:"history_causes,omitempty"`
	// PerWork counts distinct work items on the history side (the level
	// side reports one violation per work item).
	PerWork bool   `json:"per_work,omitempty"`
	Summary string `json:"summary"`
}

var questions = []Question{
	{Name: "undeclared-effects", Level: 0, LevelIDs: []string{"L0.outbox-declared"},
		HistoryID: history.H2OrphanEffect, HistoryCauses: []string{history.CauseUndeclared},
		Summary: "outbox lines whose draft was not declared before them"},
	{Name: "duplicate-effects", Level: 1, LevelIDs: []string{"L1.duplicate-effect"},
		HistoryID: history.H1DuplicateEffect,
		Summary:   "outbox lines after the first for one effect id, one draft or one work item"},
	{Name: "contradictions", Level: 1, LevelIDs: []string{"L1.resolution-conflict"},
		HistoryID: history.H7ClaimContradiction, PerWork: true,
		HistoryCauses: []string{history.CauseCompletedWithoutSend, history.CauseAbandonedWithSend, history.CauseResolvedBothWays},
		Summary:       "work items whose resolution records contradict each other or the outbox"},
	{Name: "unauthorized-effects", Level: 2, LevelIDs: []string{"L2.approval-binding", "L2.forged-approval-acted"},
		HistoryID: history.H5UnauthorizedEffect,
		Summary:   "outbox lines with no valid approve line for their draft before them, forged authority included"},
	{Name: "admissions", Level: 2, LevelIDs: []string{"L2.admission-unwarranted", "L2.admission-missing"},
		HistoryID: history.H9Admission, HistoryCauses: []string{history.CauseUnwarranted, history.CauseMissing},
		Summary: "messages admitted though no rules and posture they may be judged under admit them, and messages every such context admits that are not admitted within 5 visited ticks"},
	{Name: "sends-after-rejection", Level: 2, LevelIDs: []string{"L2.send-after-rejection"},
		HistoryID: history.H11SendAfterRejection,
		Summary:   "outbox lines after a rejection that was the first valid decision on their draft or ended their work item"},
	{Name: "sends-after-escalation", Level: 4, LevelIDs: []string{"L4.send-after-escalation"},
		HistoryID: history.H4EffectAfterCancellation, HistoryCauses: []string{history.CauseEscalation},
		Summary: "outbox lines for a work item after an escalation naming it"},
	{Name: "drafts-after-escalation", Level: 4, LevelIDs: []string{"L4.draft-after-escalation"},
		HistoryID: history.H10DraftAfterEscalation,
		Summary:   "draft declarations for a work item after an escalation naming it"},
}

// GuardQuestions returns the questions the guard compares.
func GuardQuestions() []Question {
	out := make([]Question, len(questions))
	for i, q := range questions {
		q.LevelIDs = append([]string(nil), q.LevelIDs...)
		q.HistoryCauses = append([]string(nil), q.HistoryCauses...)
		out[i] = q
	}
	return out
}

// Answer is both oracles' count for one question, with what each counted.
type Answer struct {
	Question string `json:"question"`
	Level    int    `json:"level_count"`
	History  int    `json:"history_count"`
	// LevelEvidence and HistoryEvidence list the references behind each
	// count (file:line), so a disagreement can be read off.
	LevelEvidence   []string `json:"level_evidence,omitempty"`
	HistoryEvidence []string `json:"history_evidence,omitempty"`
}

// GuardResult is the differential guard's answer for one run. When the
// oracles disagree on any compared question the run is INVALID: a harness
// bug, neither a pass nor a fail of the implementation.
type GuardResult struct {
	Agree bool `json:"agree"`
	// Compared holds every compared question's answers; Skipped names the
	// questions whose level was not judged.
	Compared []Answer `json:"compared"`
	Skipped  []string `json:"skipped"`
	// Diffs are the compared answers whose counts differ.
	Diffs []Answer `json:"diffs"`
}

// Guard compares the level checker's and the history oracle's counts for
// one run.
func Guard(lv Verdict, hv history.Verdict) GuardResult {
	g := GuardResult{Agree: true, Compared: []Answer{}, Skipped: []string{}, Diffs: []Answer{}}
	for _, q := range questions {
		if lv.Levels[q.Level] == Untested || lv.Levels[q.Level] == "" {
			g.Skipped = append(g.Skipped, q.Name)
			continue
		}
		a := Answer{Question: q.Name}
		for _, v := range lv.Violations {
			if contains(q.LevelIDs, v.Invariant) {
				a.Level++
				a.LevelEvidence = append(a.LevelEvidence, v.Evidence...)
			}
		}
		works := map[string]bool{}
		for _, v := range hv.Violations {
			if v.Invariant != q.HistoryID || !hasAny(v, q.HistoryCauses) {
				continue
			}
			if q.PerWork {
				if works[v.WorkID] {
					continue
				}
				works[v.WorkID] = true
			}
			a.History++
			a.HistoryEvidence = append(a.HistoryEvidence, v.Src...)
		}
		a.LevelEvidence, a.HistoryEvidence = uniqueRefs(a.LevelEvidence), uniqueRefs(a.HistoryEvidence)
		g.Compared = append(g.Compared, a)
		if a.Level != a.History {
			g.Agree = false
			g.Diffs = append(g.Diffs, a)
		}
	}
	return g
}

// String renders a disagreement in one line per question.
func (g GuardResult) String() string {
	if g.Agree {
		return "the oracles agree"
	}
	s := "the oracles disagree:"
	for _, d := range g.Diffs {
		s += fmt.Sprintf(" %s: level %d, history %d;", d.Question, d.Level, d.History)
	}
	return s[:len(s)-1]
}

func hasAny(v history.Violation, causes []string) bool {
	if len(causes) == 0 {
		return true
	}
	for _, c := range causes {
		if v.Has(c) {
			return true
		}
	}
	return false
}

func uniqueRefs(refs []string) []string {
	if len(refs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return compareRef(out[i], out[j]) < 0 })
	return out
}
