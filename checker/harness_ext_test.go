package checker_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/checker"
	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/faults"
	"github.com/amr-bench/amr/fuzz"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

// The engine's own sandboxes hold exactly what the harness wrote: on every
// published scenario, for the reference and every weak implementation, no
// harness file disagrees with the run log, nor without the log with the
// bundle (D30). A weak implementation's odd admissions, redeclared drafts and
// late timestamps must not make an honest harness look tampered with.
func TestEngineSandboxesHoldWhatTheHarnessWrote(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range published {
		for _, im := range examples.All() {
			t.Run(p.Name+"/"+im.Name, func(t *testing.T) {
				for seed := uint64(1); seed <= 2; seed++ {
					res, err := sim.Run(p.Bundle, im.New, sim.Options{Seed: seed})
					require.NoError(t, err)
					readings := [][]sandbox.LogRecord{res.Log, nil}
					if p.Bundle.NeedsRunLog() {
						readings = readings[:1] // a stamped line is placed by the run log alone (D72)
					}
					for _, log := range readings {
						v := checker.Check(checker.Input{Bundle: p.Bundle, Files: res.Files.Files(), Log: log})
						for _, x := range v.Violations {
							assert.NotEqual(t, "L0.harness-files", x.Invariant, "seed %d, log %v: %s %v", seed, log != nil, x.Detail, x.Evidence)
						}
					}
				}
			})
		}
	}
}

// judgeBoth judges files with both oracles and the guard.
func judgeBoth(b *scenarios.Bundle, files map[string][]byte, log []sandbox.LogRecord) (checker.Verdict, checker.GuardResult) {
	lv := checker.Check(checker.Input{Bundle: b, Files: files, Log: log})
	hv := history.Check(history.Compile(history.Input{Bundle: b, Files: files, Log: log}))
	return lv, checker.Guard(lv, hv)
}

func withFile(files map[string][]byte, name string, data []byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	out[name] = data
	return out
}

// An implementation that ignores escalations, on a sandbox whose
// signals.jsonl was emptied after the run: the escalation the bundle
// scheduled still happened, so the send after it still fails L4, the
// emptied file is a finding, and both oracles agree on it.
func TestEmptiedSignalsStillJudgeTheEscalation(t *testing.T) {
	b := bundleNamed(t, "l4-operator-escalation")
	im, ok := examples.Lookup("weak-ignore-escalation")
	require.True(t, ok)
	res, err := sim.Run(b, im.New, sim.Options{Seed: 1})
	require.NoError(t, err)
	files := withFile(res.Files.Files(), sandbox.Signals, nil)
	for _, log := range [][]sandbox.LogRecord{res.Log, nil} {
		honest, _ := judgeBoth(b, res.Files.Files(), log)
		sends := countOf(honest, "L4.send-after-escalation")
		require.Positive(t, sends, "the weak implementation sends after the escalation")

		v, g := judgeBoth(b, files, log)
		assert.True(t, g.Agree, "log %v: %s", log != nil, g.String())
		assert.Equal(t, sends, countOf(v, "L4.send-after-escalation"), "log %v", log != nil)
		assert.Positive(t, countOf(v, "L0.harness-files"), "log %v", log != nil)
		assert.Equal(t, checker.Fail, v.Levels[0])
		assert.Equal(t, checker.Fail, v.Levels[4])
	}
}

func countOf(v checker.Verdict, id string) int {
	n := 0
	for _, x := range v.Violations {
		if x.Invariant == id {
			n++
		}
	}
	return n
}

func bundleNamed(t *testing.T, name string) *scenarios.Bundle {
	t.Helper()
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range published {
		if p.Name == name {
			return p.Bundle
		}
	}
	t.Fatalf("no published scenario %s", name)
	return nil
}

// Generated scenarios stretch the schedule as published ones do not: tick
// jumps, deferred approvals, redeliveries and duplicates before their line,
// posture and rules changes. The engine's sandboxes still hold what the
// harness wrote, read with or without the log, and without the log the two
// oracles still agree.
func TestGeneratedSandboxesHoldWhatTheHarnessWrote(t *testing.T) {
	impls := []string{examples.ReferenceName, "weak-ignore-escalation", "weak-trust-any-approval", "weak-fork-on-duplicate",
		"weak-send-per-approval", "weak-redraft-every-tick"}
	for _, preset := range faults.PresetNames() {
		for i := 0; i < 10; i++ {
			_, b, err := fuzz.Generated(20240611, i, preset)
			require.NoError(t, err)
			for _, name := range impls {
				im, ok := examples.Lookup(name)
				require.True(t, ok)
				res, err := sim.Run(b, im.New, sim.Options{Seed: uint64(i) + 1})
				require.NoError(t, err)
				readings := [][]sandbox.LogRecord{res.Log, nil}
				if b.Meta.StampScheduled {
					// Only the run log says when a stamped line was
					// written (D72): without it there is no reading to test.
					readings = readings[:1]
				}
				for _, log := range readings {
					v, g := judgeBoth(b, res.Files.Files(), log)
					for _, x := range v.Violations {
						assert.NotEqual(t, "L0.harness-files", x.Invariant, "%s run %d, %s, log %v: %s %v", preset, i, name, log != nil, x.Detail, x.Evidence)
					}
					assert.True(t, g.Agree, "%s run %d, %s, log %v: %s", preset, i, name, log != nil, g.String())
				}
			}
		}
	}
}

// Whatever is done to the harness's files after a run, both oracles read
// the same inputs from the run log or the bundle, so the guard never calls
// a tampered sandbox INVALID.
func TestOraclesAgreeOnTamperedHarnessFiles(t *testing.T) {
	type run struct {
		b   *scenarios.Bundle
		res *sim.Result
	}
	var runs []run
	for _, c := range []struct{ scenario, impl string }{
		{"l4-operator-escalation", "weak-ignore-escalation"},
		{"l6-post-approval-escalation", "weak-escalate-before-approval-only"},
		{"l2-govern", "weak-trust-any-approval"},
		{"l2-govern", "weak-send-without-approval"},
		{"l2-approval-redelivery", "weak-send-per-approval"},
		{"l5-identity-fallibility", "weak-subject-keyed"},
	} {
		b := bundleNamed(t, c.scenario)
		im, ok := examples.Lookup(c.impl)
		require.True(t, ok)
		res, err := sim.Run(b, im.New, sim.Options{Seed: 1})
		require.NoError(t, err)
		runs = append(runs, run{b, res})
	}
	rapid.Check(t, func(t *rapid.T) {
		r := rapid.SampledFrom(runs).Draw(t, "run")
		files := map[string][]byte{}
		for k, v := range r.res.Files.Files() {
			files[k] = v
		}
		for i, n := 0, rapid.IntRange(1, 4).Draw(t, "edits"); i < n; i++ {
			name := rapid.SampledFrom([]string{sandbox.Approvals, sandbox.Signals, sandbox.Inbox}).Draw(t, "file")
			files[name] = tamperLines(t, files[name], plausible(t, r.b, files, name))
		}
		var log []sandbox.LogRecord
		if rapid.Bool().Draw(t, "withLog") {
			log = r.res.Log
		}
		v, g := judgeBoth(r.b, files, log)
		if !g.Agree {
			t.Fatalf("log %v: %s\n%s\n%s", log != nil, g.String(), files[sandbox.Approvals], files[sandbox.Signals])
		}
		_ = v
	})
}

// plausible draws a line the harness might have written to a file: an
// approval of a real draft or an escalation of real work, under a scheduled
// or an unknown id, at any tick.
func plausible(t *rapid.T, b *scenarios.Bundle, files map[string][]byte, name string) string {
	tick := rapid.IntRange(0, 12).Draw(t, "tick")
	switch name {
	case sandbox.Approvals:
		drafts, _ := sandbox.ParseDrafts(files[sandbox.Drafts])
		ids := []string{"a9"}
		for _, a := range b.Approvals {
			ids = append(ids, a.ID)
		}
		rec := sandbox.ApprovalRecord{ApprovalID: rapid.SampledFrom(ids).Draw(t, "approval"), DraftID: "d-x",
			ContentHash: "sha256:x", Decision: rapid.SampledFrom([]string{"approve", "reject"}).Draw(t, "decision"), DecidedAt: tick}
		if len(drafts) > 0 {
			d := rapid.SampledFrom(drafts).Draw(t, "draft").Rec
			rec.DraftID, rec.ContentHash = d.DraftID, d.ContentHash
		}
		line, _ := sandbox.MarshalLine(rec)
		return string(line)
	case sandbox.Signals:
		audit, _ := sandbox.ParseAudit(files[sandbox.Audit])
		works := []string{"w-x"}
		for _, a := range audit {
			if a.Rec.Event == sandbox.EventAdmission {
				works = append(works, a.Rec.WorkID)
			}
		}
		ids := []string{"s9"}
		for _, s := range b.Signals {
			ids = append(ids, s.ID)
		}
		line, _ := sandbox.MarshalLine(sandbox.SignalRecord{SignalID: rapid.SampledFrom(ids).Draw(t, "signal"),
			SignalType: scenarios.OperatorEscalation, Target: rapid.SampledFrom(works).Draw(t, "target"), At: tick})
		return string(line)
	}
	d := rapid.SampledFrom(b.Inbox).Draw(t, "message")
	d.At = tick
	line, _ := sandbox.MarshalLine(sandbox.Message(d))
	return string(line)
}

// tamperLines drops, repeats, rewrites a field of, or appends a line.
func tamperLines(t *rapid.T, data []byte, extra string) []byte {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	fields := []string{`"decision":"approve"`, `"decision":"reject"`, `"decided_at":0`, `"decided_at":9`, `"at":0`, `"at":30`,
		`"target":"w-m2"`, `"target":"w-m1"`, `"draft_id":"d-x"`, `"approval_id":"a9"`, `"signal_id":"s9"`}
	k := rapid.IntRange(0, 3).Draw(t, "how")
	switch {
	case k == 0 && len(lines) > 0:
		i := rapid.IntRange(0, len(lines)-1).Draw(t, "drop")
		lines = append(lines[:i], lines[i+1:]...)
	case k == 1 && len(lines) > 0:
		lines = append(lines, lines[rapid.IntRange(0, len(lines)-1).Draw(t, "repeat")])
	case k == 2 && len(lines) > 0:
		i := rapid.IntRange(0, len(lines)-1).Draw(t, "line")
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(lines[i]), &m) == nil {
			kv := strings.SplitN(rapid.SampledFrom(fields).Draw(t, "field"), ":", 2)
			key := strings.Trim(kv[0], `"`)
			if _, ok := m[key]; ok {
				m[key] = json.RawMessage(kv[1])
				out, _ := json.Marshal(m)
				lines[i] = string(out)
			}
		}
	default:
		i := rapid.IntRange(0, len(lines)).Draw(t, "at")
		lines = append(lines[:i], append([]string{extra}, lines[i:]...)...)
	}
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}
