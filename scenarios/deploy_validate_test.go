package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
