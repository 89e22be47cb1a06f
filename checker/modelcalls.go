package checker

import (
	"fmt"

	"github.com/amr-bench/amr/sim/sandbox"
)

// parseModelCalls reads the stub's log (decision D26). A line the checker
// cannot read is the harness's defect, not the implementation's: it is
// listed, and since it may be the very call a draft cites, origins naming
// calls that are not found are then left unjudged.
func (f *facts) parseModelCalls(data []byte) {
	f.modelCalls, f.refused, f.failed = map[string]bool{}, map[string]bool{}, map[string]bool{}
	calls, errs := f.parsed.ModelCalls(data)
	for _, c := range calls {
		// A refused request, or a call that failed (D74), got an error,
		// not a completion: no draft's text can have come from it.
		if c.Rec.Rejected != nil {
			f.refused[c.Rec.CallID] = true
			continue
		}
		if c.Rec.Failed != nil {
			f.failed[c.Rec.CallID] = true
			continue
		}
		f.modelCalls[c.Rec.CallID] = true
	}
	for _, e := range errs {
		what := e.Msg
		if e.Field != "" {
			what = e.Field + ": " + e.Msg
		}
		f.fixtureDefects = append(f.fixtureDefects, FixtureDefect{File: e.File, Line: e.Line,
			Detail: fmt.Sprintf("The stub's log line %d is not a call record (%s); draft origins naming calls not found in %s are not judged.",
				e.Line, what, sandbox.ModelCalls)})
	}
}

// callsUnreadable reports whether the stub's log has lines the checker could
// not read, so that a call id missing from it may be on one of them.
func (f *facts) callsUnreadable() bool {
	for _, d := range f.fixtureDefects {
		if d.File == sandbox.ModelCalls {
			return true
		}
	}
	return false
}
