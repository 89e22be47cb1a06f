package hostile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileCase is one row of the corpus: an input, the command it is given
// to, and what amr must answer.
type hostileCase struct {
	area, name string
	input      string
	args       []string
	exit       int
	want       string // a fragment of stdout or stderr
	setup      func(*world) error
	// drive, when set, runs the case itself (signals, the stub).
	drive func(t *testing.T, w *world) result
}

func allCases() []hostileCase {
	var out []hostileCase
	out = append(out, readCases()...)
	out = append(out, signalCases()...)
	out = append(out, dataCases()...)
	out = append(out, stubCases()...)
	out = append(out, processCases()...)
	return out
}

func TestHostile(t *testing.T) {
	for _, c := range allCases() {
		t.Run(c.area+"/"+c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.args = c.args
			if c.setup != nil {
				require.NoError(t, c.setup(w))
			}
			var r result
			if c.drive != nil {
				r = c.drive(t, w)
			} else {
				r = w.run(t, c.args...)
			}
			require.False(t, r.timedOut, "amr did not answer within %s: %s", caseDeadline, r.output())
			assert.Equal(t, c.exit, r.code, "exit code; output:\n%s", r.output())
			assert.Contains(t, r.output(), c.want)
			assert.NotContains(t, r.output(), "panic:")
			assert.NotContains(t, strings.ToLower(r.output()), "goroutine ")
		})
	}
}
