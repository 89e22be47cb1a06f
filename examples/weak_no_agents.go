package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-no-agents ignores agents altogether: the process does every work
// item itself, writes no claim record, and its state.json names no agent
// (assigned_agent null, no assignments, no agents). The snapshot follows the
// schema; what it withholds is who holds the work, so the harness can never
// deliver an AGENT_DEATH that names a message, and agent death goes untested
// unless the checker says so.
type noAgents struct{ reference }

// derived makes the process the owner, and the winner, of every work item,
// so no claim is ever contested.
func (noAgents) derived(w *world) { w.ownEverything() }

func (noAgents) snapshot(w *world) (sandbox.Snapshot, bool) { return agentlessSnapshot(w), true }

// selfAgent is the owner weak-no-agents keeps in memory for every work item:
// the process itself, which no signal ever names.
const selfAgent = "self"

// ownEverything makes the process the owner of every work item.
func (w *world) ownEverything() {
	for _, wk := range w.works {
		wk.owner, wk.lastWon = selfAgent, selfAgent
	}
}

// agentlessSnapshot is state.json as weak-no-agents writes it.
func agentlessSnapshot(w *world) sandbox.Snapshot {
	s := sandbox.Snapshot{
		WorkItems:   []sandbox.WorkItemState{},
		Agents:      []sandbox.AgentState{},
		Assignments: []sandbox.Assignment{},
	}
	for _, wk := range w.works {
		s.WorkItems = append(s.WorkItems, sandbox.WorkItemState{WorkID: wk.id, Status: w.status(wk)})
	}
	return s
}
