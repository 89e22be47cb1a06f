package examples

// weak-send-without-approval sends every latest draft as soon as it is
// declared, without waiting for an approval.
type sendWithoutApproval struct{ reference }

func (p sendWithoutApproval) late(w *world) *write {
	for _, wk := range w.works {
		if wk.resolved || wk.effects > 0 || !w.ownerAlive(wk) {
			continue
		}
		if d, ok := wk.latestDraft(); ok {
			return p.send(w, wk, d)
		}
	}
	return nil
}
