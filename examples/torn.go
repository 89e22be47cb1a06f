package examples

import "github.com/amr-bench/amr/sim/sandbox"

// endTornLines ends each of the implementation's logs that a crash left in
// the middle of a line, before anything else is appended: the torn bytes
// then stand as a line of their own, which records nothing, and the next
// record starts a line of its own instead of being glued to them and lost
// with them (D75). Only a crash leaves a torn line, and a fresh instance
// follows every crash, so once per instance is enough.
func (r *responder) endTornLines(s sandbox.Store) error {
	if r.tornChecked || !r.p.mendsTorn() {
		return nil
	}
	vw, views := s.(viewer)
	for _, name := range sandbox.ImplLogs {
		var data []byte
		var err error
		if views {
			data = vw.View(name)
		} else {
			data, err = s.Read(name)
		}
		if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
			continue
		}
		if err := s.Append(name, nil); err != nil {
			return err
		}
	}
	r.tornChecked = true
	return nil
}
