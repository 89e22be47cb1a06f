package sim

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/examples"
	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/sim/sandbox"
)

// A torn crash cuts the k-th write in half: the first half of the line
// reaches the log, without its newline, and the crash record says which
// file, line and bytes.
func TestTornCrashLeavesHalfALine(t *testing.T) {
	b := toyBundle()
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 1, Torn: true, Down: 3}}
	b.Normalize()
	res := run(t, b, func() sandbox.Implementation { return toy{} }, 1)
	crashes := kinds(res, sandbox.LogCrash)
	require.Len(t, crashes, 1)
	c := crashes[0]
	assert.Equal(t, sandbox.Audit, c.Torn)
	assert.Equal(t, 1, c.Line)
	assert.NotEmpty(t, c.TornText)
	assert.True(t, bytes.HasPrefix(res.Files.View(sandbox.Audit), []byte(c.TornText)))
	assert.False(t, bytes.HasPrefix(res.Files.View(sandbox.Audit), []byte(c.TornText+"\n")),
		"the toy never ends the torn line: its next record is glued on")
}

// A torn state.json replace leaves the first half of the new content.
func TestTornStateReplace(t *testing.T) {
	b := published(t, "l0-respond").Clone()
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 3, Torn: true, Down: 5}}
	b.Normalize()
	var torn sandbox.LogRecord
	for k := 1; k <= 8 && torn.Torn != sandbox.State; k++ {
		b.Faults[0].AfterWrites = k
		res := run(t, b, examples.Reference(), 1)
		torn = kinds(res, sandbox.LogCrash)[0]
	}
	require.Equal(t, sandbox.State, torn.Torn, "some write of tick 1 is a state.json replace")
	assert.Zero(t, torn.Line)
}

// The reference ends a torn line before it writes on and rewrites a torn
// state.json: it passes every published scenario with every crash torn.
func TestReferenceRecoversFromTornWrites(t *testing.T) {
	published, err := scenarios.Published()
	require.NoError(t, err)
	for _, p := range published {
		t.Run(p.Name, func(t *testing.T) {
			b := p.Bundle.Clone()
			tore := false
			for i := range b.Faults {
				if f := &b.Faults[i]; f.Kind == scenarios.FaultCrash && f.AfterWrites > 0 {
					f.Torn, tore = true, true
				}
			}
			for at := 1; at <= 9; at += 4 {
				b.Faults = append(b.Faults, scenarios.Fault{At: at, Kind: scenarios.FaultCrash, AfterWrites: 2, Torn: true})
			}
			b.Normalize()
			res := run(t, b, examples.Reference(), 3)
			requirePass(t, b, res)
			n := 0
			for _, c := range kinds(res, sandbox.LogCrash) {
				if c.Torn != "" {
					n++
				}
			}
			assert.True(t, n > 0 || !tore, "some write was torn")
		})
	}
}

// Two torn crashes in one tick: the second lands on the restarted
// instance's first write, the newline that ends the first torn line, which
// tears to nothing. Found by the reference campaign (seed 20, run 78582).
func TestTornCrashOnAnEmptyWrite(t *testing.T) {
	b := published(t, "l0-respond").Clone()
	b.Faults = []scenarios.Fault{{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 1, Torn: true},
		{At: 1, Kind: scenarios.FaultCrash, AfterWrites: 1, Torn: true}}
	b.Normalize()
	res := run(t, b, examples.Reference(), 1)
	assert.Empty(t, kinds(res, sandbox.LogStepError))
	requirePass(t, b, res)
}
