package examples

// weak-cite-forged records every approval it rejects as received, so the
// audit cites forged approvals as if they had been taken up.
type citeForged struct{ reference }

// eventApprovalReceived is weak-cite-forged's name for an ignored approval.
const eventApprovalReceived = "approval_received"

func (citeForged) ignoredEvent() string { return eventApprovalReceived }
