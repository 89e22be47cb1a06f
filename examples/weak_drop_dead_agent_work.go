package examples

// weak-drop-dead-agent-work notes an agent's death and does nothing with
// its work: the dead agent's claims stay open and nobody takes over.
type dropDeadAgentWork struct{ reference }

func (dropDeadAgentWork) standsDown(reason string) bool { return reason != reasonAgentDeath }

func (dropDeadAgentWork) takeOver(*world, *work) *write { return nil }
