package scenarios

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fields of issue 20's faults validate both ways: what they allow
// passes, what they forbid names its field.
func TestValidateDeploymentFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(b *Bundle)
		field  string // "" when the bundle stays valid
	}{
		{"a downtime", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 2, Kind: FaultCrash, Down: 5}) }, ""},
		{"a negative downtime", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 2, Kind: FaultCrash, Down: -1}) }, "faults[0].down"},
		{"down on a duplicate", func(b *Bundle) {
			b.Faults = append(b.Faults, Fault{At: 5, Kind: FaultDuplicate, MessageID: b.Inbox[0].ID, Down: 2})
		}, "faults[0].down"},
		{"a torn write", func(b *Bundle) {
			b.Faults = append(b.Faults, Fault{At: 2, Kind: FaultCrash, AfterWrites: 1, Torn: true})
		}, ""},
		{"torn without a write", func(b *Bundle) { b.Faults = append(b.Faults, Fault{At: 2, Kind: FaultCrash, Torn: true}) }, "faults[0].torn"},
		{"model failures", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelRateLimit, RetryAfter: 2}, {Call: 2, Kind: ModelTimeout}}
		}, ""},
		{"a call number of 0", func(b *Bundle) { b.Model.Failures = []ModelFailure{{Call: 0, Kind: ModelReset}} }, "model.failures[0].call"},
		{"a call failing twice", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 3, Kind: ModelReset}, {Call: 3, Kind: ModelMalformed}}
		}, "model.failures[1].call"},
		{"an unknown kind", func(b *Bundle) { b.Model.Failures = []ModelFailure{{Call: 1, Kind: "slow"}} }, "model.failures[0].kind"},
		{"retry_after on a 500", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelServerError, RetryAfter: 1}}
		}, "model.failures[0].retry_after"},
		{"a timeout's hold", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelTimeout, HoldMS: 1}, {Call: 2, Kind: ModelTimeout, HoldMS: MaxHoldMS}}
		}, ""},
		{"hold_ms on a reset", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelReset, HoldMS: 5}}
		}, "model.failures[0].hold_ms"},
		{"a negative hold", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelTimeout, HoldMS: -1}}
		}, "model.failures[0].hold_ms"},
		{"a hold past the bound", func(b *Bundle) {
			b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelMalformed}, {Call: 2, Kind: ModelTimeout, HoldMS: MaxHoldMS + 1}}
		}, "model.failures[1].hold_ms"},
		{"a stamped bundle", func(b *Bundle) { b.Meta.StampScheduled = true }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := baseBundle()
			b.Faults = nil
			tc.mutate(b)
			errs := Validate(b, nil).Errors()
			if tc.field == "" {
				assert.Empty(t, errs)
				return
			}
			var fields []string
			for _, p := range errs {
				fields = append(fields, p.Field)
			}
			assert.Contains(t, fields, tc.field)
		})
	}
}

// A bad hold in a bundle's file is refused at its file and line; a timeout
// without one is held as long as before hold_ms existed (D183).
func TestABadHoldIsLocated(t *testing.T) {
	b := baseBundle()
	b.Model.Failures = []ModelFailure{{Call: 1, Kind: ModelTimeout}, {Call: 2, Kind: ModelTimeout, HoldMS: MaxHoldMS + 1}}
	data, err := b.MarshalIndent()
	require.NoError(t, err)
	parsed, src, err := Parse("b.json", data)
	require.NoError(t, err)
	p := findProblem(t, Validate(parsed, src).Errors(), "model.failures[1].hold_ms")
	line := lineOf(t, string(data), `"hold_ms":60001`, 1)
	assert.Equal(t, fmt.Sprintf("b.json:%d: model.failures[1].hold_ms: hold_ms 60001 is outside 1..60000 milliseconds", line), p.String())
	assert.Equal(t, DefaultHoldMS, parsed.Model.Failures[0].Hold())
	assert.Equal(t, MaxHoldMS+1, parsed.Model.Failures[1].Hold())
}
