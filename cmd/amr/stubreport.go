package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/amr-bench/amr/sim/sandbox"
)

// printModelCalls says, per scenario, what the stub refused and which
// request features it did not honour, so a run that leaned on a feature
// the stub ignores is not read as a plain result. Nothing is printed when
// the stub honoured everything.
func printModelCalls(w io.Writer, doc runJSON) {
	for _, r := range doc.Results {
		if r.Model == nil {
			continue
		}
		fmt.Fprintf(w, "stub model, %s: %s\n", r.Scenario, modelCallsLine(*r.Model))
	}
}

func modelCallsLine(st sandbox.ModelCallStats) string {
	var parts []string
	if st.Rejected > 0 {
		parts = append(parts, fmt.Sprintf("%d request(s) refused", st.Rejected))
	}
	if fields := st.IgnoredFields(); len(fields) > 0 {
		var each []string
		for _, f := range fields {
			each = append(each, fmt.Sprintf("%s (%d call(s))", f, st.Ignored[f]))
		}
		parts = append(parts, "not honoured: "+strings.Join(each, ", "))
	}
	return strings.Join(parts, "; ") + " (see model-calls.jsonl: rejected, ignored)"
}
