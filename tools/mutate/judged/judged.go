// Package judged is the verdict tools/mutate/judge prints for one mutant
// and tools/mutate reads back: one type for both ends of the line.
package judged

// Verdict is the line the judge prints for a mutant and the tool reads
// back. The tool adds the outcomes only it can give: "stillborn" (it does
// not build), "timeout" (the wall-clock safety net) and "same" (survived
// with the reference's artifacts).
type Verdict struct {
	// Outcome is "killed", "hung", "invalid" or "survived".
	Outcome string `json:"outcome"`
	// By names what killed it: "fuzz" or "suite".
	By string `json:"by,omitempty"`
	// Runs is how many campaign runs were played, the killing one
	// included.
	Runs int `json:"runs"`
	// Run names the killing run: its campaign index, or the published
	// scenario and its scored run.
	Run        string   `json:"run,omitempty"`
	Invariants []string `json:"invariants,omitempty"`
	Detail     string   `json:"detail,omitempty"`
	// Suite reports whether the published suite alone catches the mutant
	// ("" when it was not played because the campaign killed it first and
	// -suite-always is off).
	Suite string `json:"suite,omitempty"`
	// MaxStepWrites and MaxRunWrites are the most lines one step and one
	// run wrote: for the unmutated reference, the margin under the
	// budgets.
	MaxStepWrites int `json:"max_step_writes"`
	MaxRunWrites  int `json:"max_run_writes"`
	// Unattributed counts the model calls the surprise diagnostic could
	// justify by nothing, over every run played, and UnattributedRun names
	// the first run with one. A survivor with more of them than the
	// unmutated reference on the same runs is "costly" (tools/mutate): it
	// passes every level and wastes model calls, as the zoo's costly
	// implementations do (examples/kind.go).
	Unattributed    int    `json:"unattributed"`
	UnattributedRun string `json:"unattributed_run,omitempty"`
	// Digest covers every played run's sandbox files and run log.
	Digest string `json:"digest,omitempty"`
}
