package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/amr-bench/amr/sim"
	"github.com/amr-bench/amr/suite"
)

// anyProcess reports whether any run of the reports was a process run.
func anyProcess(reports []*suite.Report) bool {
	for _, r := range reports {
		for _, run := range r.Runs {
			if run.Process != nil {
				return true
			}
		}
	}
	return false
}

// processCell sums up a scenario's process outcomes over its runs: "ok"
// when every instance ran until the harness ended it, else each outcome
// with the runs that had it ("hung 1/5, exited 2/5").
func processCell(r *suite.Report) string {
	counts := map[string]int{}
	for _, run := range r.Runs {
		if run.Process != nil {
			counts[run.Process.Outcome()]++
		}
	}
	delete(counts, "ok")
	if len(counts) == 0 {
		return "ok"
	}
	var parts []string
	for _, o := range []string{sim.ProcHung, sim.ProcOversize, sim.ProcBound, "exited"} {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", strings.ToUpper(o), n, len(r.Runs)))
		}
	}
	return strings.Join(parts, ", ")
}

// printProcessEvents lists, per run, every moment of its processes that
// the verdict depends on (an exit and its code, a kill, a forced advance, a
// hang and whether it was restarted), its failure class, and the tail of
// its stderr when an instance ended by itself or was killed for good.
func printProcessEvents(w io.Writer, reports []*suite.Report) {
	for _, r := range reports {
		for _, run := range r.Runs {
			p := run.Process
			if p == nil || !notable(p) {
				continue
			}
			class := ""
			if run.Class != "" {
				class = ", failure class " + run.Class
			}
			fmt.Fprintf(w, "\n%s run %d: process %s, %d instance(s)%s\n", r.Scenario, run.Run, p.Outcome(), p.Instances, class)
			for _, e := range p.Events {
				if e.Kind == sim.ProcForced && p.Count(sim.ProcForced) > 3 {
					continue
				}
				fmt.Fprintf(w, "  tick %-4d %-13s %s%s\n", e.Tick, e.Kind, instanceOf(e), e.Detail)
			}
			if n := p.Count(sim.ProcForced); n > 3 {
				fmt.Fprintf(w, "  %d forced advances, at ticks %s\n", n, forcedTicks(p))
			}
			if p.StderrTail != "" && (p.Exited() || p.KilledForGood()) {
				fmt.Fprintf(w, "  stderr (last lines):\n    %s\n", strings.ReplaceAll(p.StderrTail, "\n", "\n    "))
			}
		}
	}
}

// notable reports whether a run's processes did anything beyond being
// started, and killed by crash faults and restarted.
func notable(p *sim.ProcessFacts) bool {
	for _, e := range p.Events {
		if e.Kind != sim.ProcCrash {
			return true
		}
	}
	return false
}

func instanceOf(e sim.ProcessEvent) string {
	if e.Instance == 0 {
		return ""
	}
	s := fmt.Sprintf("instance %d: ", e.Instance)
	if e.Code != nil {
		s = fmt.Sprintf("instance %d, exit code %d: ", e.Instance, *e.Code)
	}
	return s
}

func forcedTicks(p *sim.ProcessFacts) string {
	var ticks []int
	for _, e := range p.Events {
		if e.Kind == sim.ProcForced {
			ticks = append(ticks, e.Tick)
		}
	}
	sort.Ints(ticks)
	parts := make([]string, len(ticks))
	for i, t := range ticks {
		parts[i] = fmt.Sprint(t)
	}
	return strings.Join(parts, ", ")
}

// printCutCopies says which kept run directories their bound cut.
func printCutCopies(w io.Writer, doc runJSON, out string) {
	for _, r := range doc.Results {
		for _, run := range r.Runs {
			k := run.RunDir
			if k == nil || len(k.Cut)+len(k.Left) == 0 {
				continue
			}
			fmt.Fprintf(w, "note: %s run %d: the copy of its run directory was cut at %d bytes (--keep-bytes): %d file(s) cut short, %d left out; see %s\n",
				r.Scenario, run.Run, k.Limit, len(k.Cut), len(k.Left),
				filepath.Join(out, r.Scenario, fmt.Sprintf("run-%d", run.Run), k.Dir, sim.CutNote))
		}
	}
}
