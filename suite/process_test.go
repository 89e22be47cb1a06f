package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/amr-bench/amr/sim"
)

func facts(kinds ...string) *sim.ProcessFacts {
	f := &sim.ProcessFacts{Regime: sim.RegimeStep, Instances: 1}
	for _, k := range kinds {
		f.Events = append(f.Events, sim.ProcessEvent{Kind: k})
		if k == sim.ProcHung {
			f.Hung = true
		}
	}
	return f
}

func TestFailureClass(t *testing.T) {
	for _, c := range []struct {
		name   string
		failed bool
		p      *sim.ProcessFacts
		want   string
	}{
		{"in process, passed", false, nil, ""},
		{"in process, failed", true, nil, ClassMechanism},
		{"process ran throughout, failed", true, facts(sim.ProcCrash, sim.ProcForced), ClassMechanism},
		{"process ran throughout, passed", false, facts(sim.ProcCrash), ""},
		{"an instance ended by itself, failed", true, facts(sim.ProcExit), ClassProcess},
		{"an instance ended by itself, passed", false, facts(sim.ProcExit), ""},
		{"hung, levels passed", false, facts(sim.ProcHung, sim.ProcRestart), ClassProcess},
		{"hung, failed", true, facts(sim.ProcHung), ClassProcess},
		{"killed for a bound", false, facts(sim.ProcOversize), ClassProcess},
		{"killed for the sandbox bound", true, facts(sim.ProcBound), ClassProcess},
	} {
		assert.Equal(t, c.want, failureClass(c.failed, c.p), c.name)
	}
}

func TestARunKilledForGoodNeverPasses(t *testing.T) {
	pass := map[string]string{"L0": Pass}
	ok := RunReport{Levels: pass, Process: facts(sim.ProcCrash)}
	rep := NewReport("s", "impl", 0, []RunReport{ok, ok})
	assert.True(t, rep.Passed())
	assert.Zero(t, rep.ProcessDown)
	hung := RunReport{Levels: pass, Process: facts(sim.ProcHung), Class: ClassProcess}
	rep = NewReport("s", "impl", 0, []RunReport{ok, hung})
	assert.Equal(t, Pass, rep.Levels["L0"], "the levels are what the checker found")
	assert.False(t, rep.Passed(), "a run marked hung is never reported as passing")
	assert.Equal(t, 1, rep.ProcessDown)
	assert.Equal(t, map[string]int{ClassProcess: 1}, rep.Classes)
}
