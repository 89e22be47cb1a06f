package ledger

// SealedForTest exposes sealed to the black-box tests.
func SealedForTest(r Receipt) (canonical, line []byte, err error) { return r.sealed() }
