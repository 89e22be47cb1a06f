package shrink_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/amr-bench/amr/scenarios"
	"github.com/amr-bench/amr/shrink"
)

// withSendCrash is l0-respond with a crash after the second send of tick 3.
func withSendCrash(t *testing.T) *scenarios.Bundle {
	b := published(t, "l0-respond")
	b.Faults = append(b.Faults, scenarios.Fault{At: 3, Kind: scenarios.FaultCrash, AfterWrites: 2, WritesTo: scenarios.SendLog})
	require.Empty(t, scenarios.Validate(b, nil).Errors())
	return b
}

func sendCrashes(b *scenarios.Bundle) []scenarios.Fault {
	var out []scenarios.Fault
	for _, f := range b.Faults {
		if f.Kind == scenarios.FaultCrash {
			out = append(out, f)
		}
	}
	return out
}

// A failure that needs a crash after a send keeps one, after the first
// send; one that needs only a crash gets a boundary crash, which counts no
// log; one that needs none loses it (D140).
func TestShrinkKeepsACrashAfterASendOnlyWhereTheFailureNeedsIt(t *testing.T) {
	afterSend := func(b *scenarios.Bundle) bool {
		for _, f := range b.Faults {
			if f.Kind == scenarios.FaultCrash && f.WritesTo == scenarios.SendLog {
				return true
			}
		}
		return false
	}
	res, err := shrink.Shrink(withSendCrash(t), afterSend, shrink.Options{Budget: -1})
	require.NoError(t, err)
	cs := sendCrashes(res.Bundle)
	require.Len(t, cs, 1)
	assert.Equal(t, scenarios.SendLog, cs[0].WritesTo)
	assert.Equal(t, 1, cs[0].AfterWrites, "after fewer sends")

	anyCrash := func(b *scenarios.Bundle) bool { return len(sendCrashes(b)) > 0 }
	res, err = shrink.Shrink(withSendCrash(t), anyCrash, shrink.Options{Budget: -1})
	require.NoError(t, err)
	cs = sendCrashes(res.Bundle)
	require.Len(t, cs, 1)
	assert.Zero(t, cs[0].AfterWrites, "at the boundary")
	assert.Empty(t, cs[0].WritesTo, "a boundary crash counts no log")
	assert.Empty(t, scenarios.Validate(res.Bundle, nil).Errors())

	noCrash := func(b *scenarios.Bundle) bool { return len(b.Inbox) > 0 }
	res, err = shrink.Shrink(withSendCrash(t), noCrash, shrink.Options{Budget: -1})
	require.NoError(t, err)
	assert.Empty(t, sendCrashes(res.Bundle))
}
