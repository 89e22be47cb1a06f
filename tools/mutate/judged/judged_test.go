package judged

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The judge and the tool are two programs; the line between them keeps
// its field names, and reads back as it was written.
func TestTheLineReadsBackAsWritten(t *testing.T) {
	v := Verdict{Outcome: "killed", By: "fuzz", Runs: 3, Run: "2", Invariants: []string{"L0.reply"},
		Detail: "d", Suite: "caught", MaxStepWrites: 4, MaxRunWrites: 9, Unattributed: 1,
		UnattributedRun: "1", Digest: "sha256:x"}
	line, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"outcome":"killed","by":"fuzz","runs":3,"run":"2","invariants":["L0.reply"],
		"detail":"d","suite":"caught","max_step_writes":4,"max_run_writes":9,"unattributed":1,
		"unattributed_run":"1","digest":"sha256:x"}`, string(line))
	var back Verdict
	require.NoError(t, json.Unmarshal(line, &back))
	assert.Equal(t, v, back)
}
