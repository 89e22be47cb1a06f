package history_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/history"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/sim/sandbox"
)

func published(t testing.TB) map[string]*scenarios.Bundle {
	t.Helper()
	pubs, err := scenarios.Published()
	require.NoError(t, err)
	out := map[string]*scenarios.Bundle{}
	for _, p := range pubs {
		out[p.Name] = p.Bundle
	}
	return out
}

func play(t testing.TB, b *scenarios.Bundle, impl string, seed uint64) *sim.Result {
	t.Helper()
	im, ok := examples.Lookup(impl)
	require.True(t, ok, impl)
	res, err := sim.Run(b, im.New, sim.Options{Seed: seed, Impl: impl})
	require.NoError(t, err)
	return res
}

func compile(res *sim.Result, b *scenarios.Bundle, withLog bool) *history.History {
	in := history.Input{Bundle: b, Files: res.Files.Files()}
	if withLog {
		in.Log = res.Log
	}
	return history.Compile(in)
}

// Every required line the implementation wrote is in the history exactly
// once, ticks never go back, and within a tick the harness acts first.
func TestCompileWithRunLogPlacesEveryLine(t *testing.T) {
	for name, b := range published(t) {
		res := play(t, b, "reference", 1)
		h := compile(res, b, true)
		assert.Equal(t, history.OrderRunLog, h.Ordering)
		assert.Equal(t, name, h.Scenario)
		seen := map[string]int{}
		lastTick, implSeen := -1, false
		for i, op := range h.Ops {
			require.Equal(t, i, op.Index)
			if op.Type == history.OpState {
				continue
			}
			require.GreaterOrEqual(t, op.Tick, lastTick, "%s op %d", name, i)
			if op.Tick != lastTick {
				lastTick, implSeen = op.Tick, false
			}
			switch op.Actor {
			case history.ActorImpl, history.ActorStub:
				implSeen = true
			case history.ActorHarness:
				if op.Type != history.OpCrash && op.Type != history.OpRestart && op.Type != history.OpForcedAdvance {
					assert.False(t, implSeen, "%s op %d: harness action after an implementation write of its tick", name, i)
				}
			}
			seen[op.Src()]++
		}
		drafts, _ := sandbox.ParseDrafts(res.Files.View(sandbox.Drafts))
		outbox, _ := sandbox.ParseOutbox(res.Files.View(sandbox.Outbox))
		calls, _ := sandbox.ParseModelCalls(res.Files.View(sandbox.ModelCalls))
		for _, l := range drafts {
			assert.Equal(t, 1, seen[fmt.Sprintf("drafts.jsonl:%d", l.N)], name)
		}
		for _, l := range outbox {
			assert.Equal(t, 1, seen[fmt.Sprintf("outbox.jsonl:%d", l.N)], name)
		}
		for _, l := range calls {
			want := 1
			if l.Rec.Failed != nil || l.Rec.Rejected != nil {
				want = 0 // no model call a draft can come from (D74)
			}
			assert.Equal(t, want, seen[fmt.Sprintf("model-calls.jsonl:%d", l.N)], name)
		}
		torn := map[string]bool{}
		for _, r := range res.Log {
			if r.Kind == sandbox.LogCrash && r.Torn != "" && r.Line > 0 {
				torn[fmt.Sprintf("%s:%d", r.Torn, r.Line)] = true
			}
		}
		for _, s := range h.Skipped {
			assert.True(t, torn[s], "%s: %s skipped, and no crash tore it (D75)", name, s)
		}
	}
}

// A crash inside a tick lands right after the writes that preceded it. At
// each approval tick the reference writes approval_accepted (free-form, no
// operation), the send, then the resolution; the crashes land after the
// first, second and third write.
func TestCompilePlacesACrashAfterItsWrites(t *testing.T) {
	b := published(t)["l1-crash-after-send"]
	h := compile(play(t, b, "reference", 1), b, true)
	for _, want := range []struct {
		tick   int
		before []history.OpType // the tick's implementation operations before the crash
	}{{5, nil}, {10, []history.OpType{history.OpSend}}, {15, []history.OpType{history.OpSend, history.OpResolve}}} {
		var before []history.OpType
		found := false
		for _, op := range h.Ops {
			if op.Tick != want.tick {
				continue
			}
			if op.Type == history.OpCrash {
				found = true
				break
			}
			if op.Actor == history.ActorImpl {
				before = append(before, op.Type)
			}
		}
		assert.True(t, found, "no crash at tick %d", want.tick)
		assert.Equal(t, want.before, before, "tick %d", want.tick)
	}
}

// A model call comes right before the draft that cites it.
func TestCompilePlacesACallBeforeItsDraft(t *testing.T) {
	b := published(t)["l3-fleet-concurrent"]
	h := compile(play(t, b, "reference", 1), b, true)
	n := 0
	for i, op := range h.Ops {
		if op.Type == history.OpDraft {
			require.Positive(t, i)
			prev := h.Ops[i-1]
			assert.Equal(t, history.OpModelCall, prev.Type)
			assert.Equal(t, op.R().Calls, []string{prev.R().CallID})
			n++
		}
	}
	assert.Equal(t, 3, n)
}

func TestCompileWithoutALogUsesTheFilesTicks(t *testing.T) {
	b := published(t)["l1-multiturn-crash"]
	h := compile(play(t, b, "reference", 1), b, false)
	assert.Equal(t, history.OrderFiles, h.Ordering)
	crashes := 0
	for i, op := range h.Ops {
		if i > 0 && op.Type != history.OpState {
			assert.GreaterOrEqual(t, op.Tick, h.Ops[i-1].Tick)
		}
		if op.Type == history.OpCrash {
			crashes++
			assert.True(t, strings.HasPrefix(op.Src(), "bundle:faults["), op.Src())
		}
	}
	assert.Equal(t, 4, crashes)
}

// Duplicate deliveries and redelivered approvals are marked as such.
func TestCompileMarksRepeats(t *testing.T) {
	b := published(t)["l3-fleet-concurrent-redelivery"]
	for _, withLog := range []bool{true, false} {
		h := compile(play(t, b, "reference", 1), b, withLog)
		dups, repeats := 0, 0
		for _, op := range h.Ops {
			if op.Type == history.OpDuplicate {
				dups++
				assert.Equal(t, 2, op.Tick)
			}
			if op.Type == history.OpApprove && op.R().Repeat {
				repeats++
				assert.Equal(t, history.ForgedNo, op.R().Forged)
			}
		}
		assert.Equal(t, 1, dups, "log %v", withLog)
		assert.Equal(t, 2, repeats, "log %v", withLog)
	}
}

// The history decides forgery from the artifacts: it agrees with the
// bundle's forge tags on the published governance scenario.
func TestCompileDecidesForgery(t *testing.T) {
	b := published(t)["l2-govern"]
	for _, withLog := range []bool{true, false} {
		h := compile(play(t, b, "reference", 1), b, withLog)
		got := map[string]string{}
		for _, op := range h.Ops {
			if op.Type == history.OpApprove {
				got[op.R().ApprovalID] = op.R().Forged
			}
		}
		assert.Equal(t, history.ForgedDangling, got["f1"])
		assert.Equal(t, history.ForgedHashMismatch, got["f2"])
		assert.Equal(t, history.ForgedNo, got["ap1"])
	}
}

func TestBytesRoundTripAndSelfDigest(t *testing.T) {
	b := published(t)["l2-govern"]
	h := compile(play(t, b, "reference", 1), b, true)
	data := h.Bytes()
	assert.Equal(t, data, compile(play(t, b, "reference", 1), b, true).Bytes(), "deterministic")
	back, err := history.Parse(data)
	require.NoError(t, err)
	assert.Equal(t, h.Ops, back.Ops)
	assert.Equal(t, history.Check(h), history.Check(back), "a history read back judges the same")

	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	assert.Contains(t, string(lines[len(lines)-1]), `{"digest":"sha256:`)

	edited := bytes.Replace(data, []byte(`"tick":3,`), []byte(`"tick":4,`), 1)
	require.NotEqual(t, data, edited)
	_, err = history.Parse(edited)
	assert.ErrorIs(t, err, history.ErrDigest)
	_, err = history.Parse(data[:len(data)-10])
	assert.ErrorIs(t, err, history.ErrNoDigest)
	_, err = history.Parse(nil)
	assert.ErrorIs(t, err, history.ErrNoDigest)
}

// WriteTo streams the document Bytes holds whole: every line, its count
// of bytes, and a digest over the bytes before the digest's own line.
func TestWriteToStreamsTheDocument(t *testing.T) {
	b := published(t)["l2-govern"]
	h := compile(play(t, b, "reference", 1), b, true)
	var out bytes.Buffer
	n, err := h.WriteTo(&out)
	require.NoError(t, err)
	data := out.Bytes()
	assert.Equal(t, int64(len(data)), n)
	assert.Equal(t, h.Bytes(), data)
	body := data[:bytes.LastIndexByte(data[:len(data)-1], '\n')+1]
	sum := sha256.Sum256(body)
	assert.Equal(t, `{"digest":"sha256:`+hex.EncodeToString(sum[:])+"\"}\n", string(data[len(body):]))
	assert.Equal(t, len(h.Ops)+2, bytes.Count(data, []byte("\n")))

	_, err = h.WriteTo(failing{})
	assert.ErrorIs(t, err, errFull)
}

var errFull = errors.New("full")

// failing fails every write.
type failing struct{}

func (failing) Write([]byte) (int, error) {
	return 0, errFull
}

// The reference leaves no history violation on any published scenario,
// with or without the run log.
func TestReferenceHistoriesAreClean(t *testing.T) {
	for name, b := range published(t) {
		for seed := uint64(1); seed <= 3; seed++ {
			res := play(t, b, "reference", seed)
			for _, withLog := range []bool{true, false} {
				if !withLog && b.NeedsRunLog() {
					continue // judged as meant only with its run log (D72, D75)
				}
				v := history.Check(compile(res, b, withLog))
				assert.Empty(t, v.Violations, "%s seed %d log %v", name, seed, withLog)
				s := history.Surprises(compile(res, b, withLog))
				assert.Zero(t, s.Unattributed, "%s seed %d log %v: %+v", name, seed, withLog, s.Items)
				assert.Positive(t, s.Calls, name)
			}
		}
	}
}

// What the history oracle finds for each weak implementation on its
// scenario. Level-only defects (claims, identity, state) leave no history
// violation: the two oracles overlap, they are not the same.
func TestZooFindings(t *testing.T) {
	want := map[string]map[string]int{
		"weak-drop-dead-agent-work":          {history.H3LostWork: 1},
		"weak-escalate-before-approval-only": {history.H4EffectAfterCancellation: 1},
		"weak-ignore-escalation":             {history.H4EffectAfterCancellation: 1},
		"weak-ignore-posture":                {history.H9Admission: 1},
		"weak-jump-blind":                    {history.H9Admission: 2},
		"weak-memory-pending":                {history.H3LostWork: 2},
		"weak-no-send":                       {history.H3LostWork: 1},
		"weak-send-before-record":            {history.H1DuplicateEffect: 1},
		"weak-send-per-approval":             {history.H1DuplicateEffect: 2, history.H4EffectAfterCancellation: 2},
		"weak-send-without-approval":         {history.H5UnauthorizedEffect: 5},
		"weak-rules-once":                    {history.H9Admission: 1},
		"weak-trust-any-approval":            {history.H5UnauthorizedEffect: 1},
		"weak-approval-by-work":              {history.H5UnauthorizedEffect: 1},
		"weak-content-dedup":                 {history.H9Admission: 1},
		"weak-lazy-mode":                     {history.H9Admission: 1},
		// Abandoned on the rejection, then sent on the later approval.
		"weak-last-decision-wins": {history.H4EffectAfterCancellation: 1, history.H7ClaimContradiction: 2, history.H11SendAfterRejection: 1},
		// Never hears of the rejection, so only the send on the later
		// approval shows.
		"weak-ignore-reject": {history.H11SendAfterRejection: 1},
		// Completed in the audit and in state.json, with nothing validly sent.
		"weak-undeclared-send": {history.H2OrphanEffect: 1, history.H5UnauthorizedEffect: 1, history.H7ClaimContradiction: 2},
		// Each early send, taken back, is unauthorized and then sent again.
		"weak-unsend": {history.H1DuplicateEffect: 7, history.H5UnauthorizedEffect: 7},
		// The faults real deployments have (issue 20).
		"weak-count-duplicates": {history.H9Admission: 2},
		"weak-escalate-all":     {history.H6FalseSuppression: 1},
		"weak-skip-old-signals": {history.H4EffectAfterCancellation: 1},
		"weak-stale-approval":   {history.H3LostWork: 2},
		"weak-torn-glue":        {history.H7ClaimContradiction: 2},
	}
	// Only the run log holds what was taken back, and when a stamped
	// approval was written (D72).
	wantNoLog := map[string]map[string]int{"weak-unsend": {}, "weak-stale-approval": {}}
	pubs := published(t)
	for _, im := range examples.All() {
		if im.Kind != examples.KindWeak || im.Scenario == "" {
			continue
		}
		res := play(t, pubs[im.Scenario], im.Name, 1)
		for _, withLog := range []bool{true, false} {
			v := history.Check(compile(res, pubs[im.Scenario], withLog))
			got := map[string]int{}
			for k, n := range v.Counts {
				if n > 0 {
					got[k] = n
				}
			}
			w := want[im.Name]
			if nl, ok := wantNoLog[im.Name]; ok && !withLog {
				w = nl
			}
			if w == nil {
				w = map[string]int{}
			}
			assert.Equal(t, w, got, "%s on %s, log %v", im.Name, im.Scenario, withLog)
		}
	}
}

func TestSurpriseNamesTheCause(t *testing.T) {
	pubs := published(t)
	res := play(t, pubs["l3-fleet-concurrent"], "reference", 1)
	s := history.Surprises(compile(res, pubs["l3-fleet-concurrent"], true))
	assert.Equal(t, map[string]int{history.SurpriseAdmission: 2, history.SurpriseReassignment: 1}, s.ByKind)
	assert.Equal(t, map[string]int{"w-m1": 2, "w-m2": 1}, s.PerWork)

	res = play(t, pubs["l1-anchor-collision"], "reference", 1)
	s = history.Surprises(compile(res, pubs["l1-anchor-collision"], true))
	assert.Equal(t, 1, s.ByKind[history.SurpriseFollowUp])

	res = play(t, pubs["l3-fleet-concurrent"], "weak-redraft-every-tick", 1)
	s = history.Surprises(compile(res, pubs["l3-fleet-concurrent"], true))
	assert.Positive(t, s.Unattributed)
	assert.Equal(t, s.Calls, s.Attributed+s.Unattributed)
	for _, it := range s.Items {
		if it.Surprise == history.SurpriseNone {
			assert.Equal(t, history.NoSurpriseNothingNew, it.Reason)
			assert.Equal(t, -1, it.Cause)
		}
	}
}

// A history can be compiled and checked from any bytes in any file and any
// run log without a panic.
func TestCompileNeverPanics(t *testing.T) {
	b := published(t)["l2-govern"]
	names := []string{sandbox.Inbox, sandbox.Drafts, sandbox.Outbox, sandbox.Audit, sandbox.Approvals,
		sandbox.Signals, sandbox.ModelCalls, sandbox.State, sandbox.Fleet, sandbox.Clock}
	base := play(t, b, "weak-send-per-approval", 1)
	rapid.Check(t, func(rt *rapid.T) {
		files := map[string][]byte{}
		for name, data := range base.Files.Files() {
			files[name] = append([]byte(nil), data...)
		}
		for _, name := range names {
			if rapid.Bool().Draw(rt, "mutate "+name) {
				data := files[name]
				switch rapid.IntRange(0, 2).Draw(rt, "how "+name) {
				case 0:
					files[name] = rapid.SliceOf(rapid.Byte()).Draw(rt, "bytes "+name)
				case 1:
					if len(data) > 0 {
						i := rapid.IntRange(0, len(data)-1).Draw(rt, "at "+name)
						files[name] = append(data[:i:i], data[i+1:]...)
					}
				case 2:
					files[name] = append(data, []byte(rapid.String().Draw(rt, "line "+name)+"\n")...)
				}
			}
		}
		log := append([]sandbox.LogRecord(nil), base.Log...)
		for k := rapid.IntRange(0, 5).Draw(rt, "log edits"); k > 0 && len(log) > 0; k-- {
			i := rapid.IntRange(0, len(log)-1).Draw(rt, "log at")
			r := log[i]
			r.Tick = rapid.IntRange(-3, 200).Draw(rt, "tick")
			r.Line = rapid.IntRange(-3, 50).Draw(rt, "line")
			r.Written = rapid.IntRange(-3, 50).Draw(rt, "written")
			r.AfterWrites = rapid.IntRange(0, 5).Draw(rt, "after")
			r.Writes = rapid.SliceOf(rapid.SampledFrom(append(names, "private/x"))).Draw(rt, "writes")
			r.Kind = rapid.SampledFrom([]string{sandbox.LogDeliver, sandbox.LogApprove, sandbox.LogRedeliver,
				sandbox.LogSignal, sandbox.LogCrash, sandbox.LogRestart, sandbox.LogTickEnd, sandbox.LogDuplicate}).Draw(rt, "kind")
			log[i] = r
		}
		var bundle *scenarios.Bundle
		if rapid.Bool().Draw(rt, "bundle") {
			bundle = b
		}
		h := history.Compile(history.Input{Bundle: bundle, Files: files, Log: log})
		v := history.Check(h)
		_ = history.Surprises(h)
		for _, x := range v.Violations {
			for _, i := range x.Ops {
				if i < 0 || i >= len(h.Ops) {
					rt.Fatalf("violation %s cites op %d of %d", x.Invariant, i, len(h.Ops))
				}
			}
		}
		back, err := history.Parse(h.Bytes())
		if err != nil {
			rt.Fatalf("a compiled history does not read back: %v", err)
		}
		if len(back.Ops) != len(h.Ops) {
			rt.Fatalf("read back %d ops, wrote %d", len(back.Ops), len(h.Ops))
		}
	})
}

// The history's slice is made once, large enough: without a run log a
// crash adds its restart too, and a slice that outgrows its first size is
// held twice while it is copied.
func TestCompileSizesTheHistoryOnce(t *testing.T) {
	for _, name := range []string{"l1-multiturn-crash", "l0-respond"} {
		b := published(t)[name]
		res := play(t, b, "reference", 1)
		for _, withLog := range []bool{false, true} {
			h := compile(res, b, withLog)
			slack := len(b.Faults) + len(b.Signals) + 1
			assert.LessOrEqual(t, cap(h.Ops)-len(h.Ops), slack, "%s, log %v: %d of %d", name, withLog, len(h.Ops), cap(h.Ops))
		}
	}
}

// A run's admissions under one rule set share one value for their rare
// fields, which holds that rule set's hash: a large run has one admission a
// message and only a few rule sets.
func TestAdmissionsUnderOneRuleSetShareTheirRareFields(t *testing.T) {
	sets := 0
	for name, b := range published(t) {
		for _, withLog := range []bool{true, false} {
			h := compile(play(t, b, "reference", 1), b, withLog)
			byHash := map[string]*history.Rare{}
			for _, op := range h.Ops {
				if op.Type != history.OpAdmit {
					continue
				}
				require.NotNil(t, op.Rare, name)
				require.NotEmpty(t, op.Rare.RulesHash, name)
				if prev, ok := byHash[op.Rare.RulesHash]; ok {
					assert.Same(t, prev, op.Rare, name)
				}
				byHash[op.Rare.RulesHash] = op.Rare
			}
			if withLog {
				sets += len(byHash)
			}
		}
	}
	assert.Greater(t, sets, len(published(t)), "some run admits under more than one rule set")
}
