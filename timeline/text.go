package timeline

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/amr-bench/amr/checker"
)

// DefaultQuiet is the shortest stretch of quiet ticks the text shows as one
// "… n quiet ticks …" line; shorter stretches are simply skipped.
const DefaultQuiet = 3

// TextOptions tune the text rendering.
type TextOptions struct {
	// Quiet is the shortest quiet stretch shown as a line (0: DefaultQuiet).
	Quiet int
	// Refs adds each entry's file:line reference.
	Refs bool
}

// WriteText renders the timeline as aligned text: a header, then one line
// per entry, the tick written once per tick, quiet stretches collapsed.
func (t *Timeline) WriteText(w io.Writer, opts TextOptions) error {
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	var b strings.Builder
	t.header(&b)
	prev := -1
	for _, e := range t.Entries {
		tick := ""
		if e.Tick != prev {
			if q := t.quietBetween(prev, e.Tick); q >= opts.Quiet {
				fmt.Fprintf(&b, "%5s  … %d quiet ticks …\n", "", q)
			}
			tick = fmt.Sprint(e.Tick)
			prev = e.Tick
		}
		mark := " "
		if e.What == "violation" {
			mark = "!"
		}
		line := fmt.Sprintf("%5s %s %-7s  %-9s  %s", tick, mark, e.Who, e.What, e.Text)
		if opts.Refs && e.Ref != "" {
			line += "  [" + e.Ref + "]"
		}
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	if q := t.quietBetween(prev, t.Horizon+1); q >= opts.Quiet {
		fmt.Fprintf(&b, "%5s  … %d quiet ticks to the horizon …\n", "", q)
	}
	t.writeDowntimes(&b, opts.Refs)
	t.footer(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Timeline) header(b *strings.Builder) {
	if t.Seeds.Text() != "" {
		fmt.Fprintln(b, t.Seeds.Line())
	}
	fmt.Fprintf(b, "%s", t.Scenario)
	if t.Impl != "" {
		fmt.Fprintf(b, "  impl %s", t.Impl)
	}
	fmt.Fprintf(b, "  horizon %d\n", t.Horizon)
	var levels []string
	for i := 0; i <= t.TopLevel && i <= checker.MaxLevel; i++ {
		name := fmt.Sprintf("L%d", i)
		v := t.Levels[name]
		switch {
		case v == checker.Fail:
			v = "FAIL"
		case t.vacuous(name):
			v = checker.Vacuous
		}
		levels = append(levels, name+" "+v)
	}
	fmt.Fprintf(b, "levels: %s\n", strings.Join(levels, "  "))
	if len(t.Vacuous) > 0 {
		b.WriteString("vacuous: passed with no obligation judged; nothing the level is about happened\n")
	}
	if !t.Observed {
		b.WriteString("no run log: implementation lines are placed at their own timestamps\n")
	}
	fmt.Fprintf(b, "%5s   %-7s  %-9s  %s\n", "tick", "who", "what", "detail")
}

// vacuous reports whether a level passed with no obligation judged.
func (t *Timeline) vacuous(level string) bool {
	for _, l := range t.Vacuous {
		if l == level {
			return true
		}
	}
	return false
}

func (t *Timeline) footer(b *strings.Builder) {
	n := len(t.Violations)
	switch n {
	case 0:
		b.WriteString("no violations\n")
	case 1:
		b.WriteString("1 violation\n")
	default:
		fmt.Fprintf(b, "%d violations\n", n)
	}
}

// quietBetween counts the visited ticks strictly between a and b: the
// ticks on the clock's path where nothing was shown.
func (t *Timeline) quietBetween(a, b int) int {
	i := sort.SearchInts(t.visited, a+1)
	j := sort.SearchInts(t.visited, b)
	return max(j-i, 0)
}
