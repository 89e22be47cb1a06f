package examples

// weak-torn-glue writes on after a crash as if every log ended with its
// last record: appending is all an append-only log needs, it reasons. When
// a crash tore a write, its next record is glued onto the torn half line,
// and both are one line that is no record: the record it meant to write is
// lost with it (D75). A crash between two whole writes never shows it.
type tornGlue struct{ reference }

func (tornGlue) mendsTorn() bool { return false }
