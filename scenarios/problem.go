package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a bundle's files.
type Pos struct {
	File string
	Line int
}

// Problem is one thing wrong with a bundle, located by file, line and field
// path (for example inbox[2].at). A warning does not make a bundle invalid.
type Problem struct {
	Pos     Pos
	Field   string
	Msg     string
	Warning bool
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Pos.File)
	if p.Pos.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Pos.Line)
	}
	b.WriteString(": ")
	if p.Warning {
		b.WriteString("warning: ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is a list of problems; as an error it reads one per line.
type Problems []Problem

// Errors returns the problems that are not warnings.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sortProblems orders problems by file, line, then field, so output is stable.
func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		return a.Field < b.Field
	})
}
