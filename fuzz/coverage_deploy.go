package fuzz

import (
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// Counters of the faults real deployments have (issue 20), read, as every
// counter is, from what happened in the run.
const (
	CPiledUpWhileDown = "schedule_fired_while_down"
	CStaleStamp       = "line_stamped_before_it_fired"
	CModelRecovered   = "model_call_failed_then_answered"
	CTornLogLine      = "crash_tore_a_log_line"
	CTornState        = "crash_tore_state_json"
	CThresholdAfterDu = "threshold_hit_after_a_duplicate"
)

// deployCounters follow coverage.go's list in the catalogue rather than
// being in it, so the two grow apart without touching each other.
var deployCounters = []Counter{
	{CPiledUpWhileDown, "a delivery, approval or signal fired while the implementation was down, and it restarted after"},
	{CStaleStamp, "an approval or signal line carried the tick it was due, earlier than the tick it fired"},
	{CModelRecovered, "a model call failed and a later call was answered"},
	{CTornLogLine, "a crash left half a line in drafts, outbox or audit"},
	{CTornState, "a crash left half of state.json's new content"},
	{CThresholdAfterDu, "a message sat exactly at a rule's thread-length or sender-history threshold, after a duplicate delivery of an earlier message of its thread or sender"},
}

// deployment marks the counters of issue 20's faults.
func (o *observer) deployment(files map[string][]byte, log []sandbox.LogRecord, parsed *sandbox.Parsed) {
	down := false
	piled := false
	for _, r := range log {
		switch r.Kind {
		case sandbox.LogCrash:
			if r.Down > 0 {
				down = true
			}
			switch {
			case r.Torn == sandbox.State:
				o.seen.mark(CTornState)
			case r.Torn != "" && sandbox.IsImplLog(r.Torn):
				o.seen.mark(CTornLogLine)
			}
		case sandbox.LogRestart:
			if down && piled {
				o.seen.mark(CPiledUpWhileDown)
			}
			down, piled = false, false
		case sandbox.LogDeliver, sandbox.LogApprove, sandbox.LogSignal:
			piled = piled || down
			if r.Stamped != nil && *r.Stamped < r.Tick {
				o.seen.mark(CStaleStamp)
			}
		}
	}
	calls, _ := parsed.ModelCalls(files[sandbox.ModelCalls])
	failed := false
	for _, c := range calls {
		if c.Rec.Failed != nil {
			failed = true
		} else if failed && c.Rec.Rejected == nil {
			o.seen.mark(CModelRecovered)
			break
		}
	}
	if o.thresholdAfterDuplicate() {
		o.seen.mark(CThresholdAfterDu)
	}
}

// thresholdAfterDuplicate walks the inbox as delivered: for each message's
// first line, its thread length and sender history in distinct messages
// (D6), and whether a duplicate of an earlier message of its thread or
// sender came before it; then whether some rule set the bundle uses has a
// bound exactly there.
func (o *observer) thresholdAfterDuplicate() bool {
	sets := [][]scenarios.Rule{o.b.Rules}
	for _, f := range o.b.Faults {
		if f.Kind == scenarios.FaultRules {
			sets = append(sets, f.Rules)
		}
	}
	seen := map[string]bool{}
	thread, sender := map[string]int{}, map[string]int{}
	dupThread, dupSender := map[string]bool{}, map[string]bool{}
	for _, l := range o.inbox {
		m := l.Rec
		if seen[m.ID] {
			dupThread[m.ConversationID], dupSender[m.From] = true, true
			continue
		}
		seen[m.ID] = true
		thread[m.ConversationID]++
		t, h := thread[m.ConversationID], sender[m.From]
		sender[m.From]++
		for _, rules := range sets {
			for _, r := range rules {
				c := r.When
				if dupThread[m.ConversationID] && (at(c.ThreadLengthMin, t) || at(c.ThreadLengthMax, t)) ||
					dupSender[m.From] && (at(c.SenderHistoryMin, h) || at(c.SenderHistoryMax, h)) {
					return true
				}
			}
		}
	}
	return false
}

func at(bound *int, n int) bool { return bound != nil && *bound == n }
