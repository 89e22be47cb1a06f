package examples

// weak-no-stand-down never writes a stood_down claim record: losers of a
// contest and dead agents keep their claims open.
type noStandDown struct{ reference }

func (noStandDown) standsDown(string) bool { return false }
