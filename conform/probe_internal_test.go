package conform

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/amr-bench/amr/suite"
)

// A declared level that every probe passed without judging anything is not
// confirmed; one probe that exercised it is enough; a failing probe is a
// mismatch whatever the others did.
func TestVacuousProbesConfirmNoLevel(t *testing.T) {
	level := capability{kind: kindLevel, name: "level:L3", declared: "present", level: 3, probes: []string{"a", "b"}}
	pass := func(vacuous bool) *suite.Report {
		r := &suite.Report{Levels: map[string]string{"L3": suite.Pass}}
		if vacuous {
			r.Vacuous = []string{"L3"}
		}
		return r
	}
	fail := &suite.Report{Levels: map[string]string{"L3": suite.Fail}}
	cases := []struct {
		name    string
		reports map[string]*suite.Report
		want    string
	}{
		{"every probe vacuous", map[string]*suite.Report{"a": pass(true), "b": pass(true)}, Unverifiable},
		{"one probe exercised it", map[string]*suite.Report{"a": pass(true), "b": pass(false)}, Match},
		{"a probe failed", map[string]*suite.Report{"a": pass(true), "b": fail}, Mismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, level.judge(tc.reports).Status)
		})
	}
}
