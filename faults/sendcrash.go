package faults

import "github.com/amr-bench/amr/scenarios"

// CrashSend is the kind of a crash right after a send: after the k-th new
// line of outbox.jsonl of an approval's tick, before the resolution record
// that must follow it (D138, D139).
const CrashSend = "crash_send"

// maxSendCrashes bounds the crashes sendCrashes adds, apart from the
// budget of the other crashes so that they never crowd one another out.
const maxSendCrashes = 2

// sendCrashes puts crashes after a send where one is likely: at the tick
// an approval of a real draft fires, the implementation's first send of
// that tick most often its own. With several such approvals at one tick,
// any of their sends may be the one cut after.
func (g *generator) sendCrashes() {
	if !g.on(CrashSend) {
		return
	}
	sends := map[int]int{} // tick -> approvals there that may send
	var ticks []int
	for _, a := range g.apps {
		if a.Decision != scenarios.DecisionApprove || a.Forge != "" || a.Stale() {
			continue
		}
		if sends[a.At] == 0 {
			ticks = append(ticks, a.At)
		}
		sends[a.At]++
	}
	n := 0
	for _, t := range ticks {
		if n >= maxSendCrashes || !g.d.chance(g.rate(CrashSend)) {
			continue
		}
		n++
		g.faults = append(g.faults, scenarios.Fault{At: t, Kind: scenarios.FaultCrash,
			AfterWrites: g.d.between(1, sends[t]), WritesTo: scenarios.SendLog})
	}
}
