package examples

import "github.com/amr-bench/amr/sim/sandbox"

// weak-ignore-posture evaluates the rules as if the posture were always
// normal; its records still name the posture mode.json holds.
type ignorePosture struct{ reference }

func (ignorePosture) facts(w *world, m sandbox.Message) facts {
	f := w.facts(m)
	f.posture = "normal"
	return f
}
